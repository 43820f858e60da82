"""Greedy-lite's plans in a playout (bots/policies/rollout.py): kept while the board leaves them whole, made
again when it breaks them."""

from __future__ import annotations

import random

from bots.policies.plan import plan_network
from bots.policies.rollout import Plans, lite_move, position_of
from games.engine import begin, step
from games.engine.state import SETUP_TICKETS, State


def opened(seed: int) -> State:
    """A 2-player Europe game past the opening tickets, each seat keeping greedy-lite's choice."""
    rng = random.Random(seed)
    state, _ = begin("europe", 2, rng)
    while state.deciders() and state.phase == SETUP_TICKETS:
        seat = state.deciders()[0]
        state, _ = step(state, seat, lite_move(state, seat, rng, position_of(state, seat)), rng, in_place=True)
    return state


def test_a_plan_is_kept_through_claims_that_leave_its_routes_open() -> None:
    state = opened(7)
    plans = Plans()
    plan = plans.of(state, 0, position_of(state, 0))
    assert plan.routes
    elsewhere = next(r for r in state.board.route_list if r.id not in plan.routes and r.twin not in plan.routes)
    state.route_owner[elsewhere.id] = 1
    assert plans.of(state, 0, position_of(state, 0)) is plan
    state.route_owner[plan.routes[0]] = 0  # the seat's own claim: the plan has one route fewer left
    assert plans.of(state, 0, position_of(state, 0)) is plan


def test_a_plan_is_made_again_when_another_seat_takes_one_of_its_routes_or_the_tickets_change() -> None:
    state = opened(7)
    plans = Plans()
    plan = plans.of(state, 0, position_of(state, 0))
    taken = plan.routes[0]
    state.route_owner[taken] = 1
    again = plans.of(state, 0, position_of(state, 0))
    assert taken not in again.routes
    assert again == plan_network(position_of(state, 0), tuple(sorted(state.players[0].tickets)))
    state.players[0].tickets.append(next(t for t in state.board.tickets if t not in state.players[0].tickets))
    assert plans.of(state, 0, position_of(state, 0)) is not again
