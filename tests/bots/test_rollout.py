"""Greedy-lite in a playout (bots/policies/rollout.py): its plans kept while the board leaves them whole, made
again when it breaks them; the other seats drawing tickets as the greedy bot does."""

from __future__ import annotations

import random

from bots.policies.greedy import TICKET_DRAW_TIME
from bots.policies.plan import plan_network
from bots.policies.rollout import Plans, lite_move, position_of
from games.engine import begin, step
from games.engine import moves as mv
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


def test_the_other_seats_of_a_playout_draw_tickets_once_theirs_are_done_as_the_greedy_bot_does() -> None:
    """C-TKT-1: a seat with nothing left to build and trains to spare draws tickets where asked to (the other
    seats of a playout); the searching seat does not, and no seat does once the game is near its end (C-END-1)."""
    state = opened(7)
    seat = state.deciders()[0]
    state.players[seat].tickets.clear()  # nothing left to build
    rng = random.Random(1)
    assert lite_move(state, seat, rng, position_of(state, seat), draws_tickets=True) == mv.DrawTickets()
    assert not isinstance(lite_move(state, seat, rng, position_of(state, seat)), mv.DrawTickets)
    state.players[1 - seat].trains = TICKET_DRAW_TIME - 1
    assert not isinstance(lite_move(state, seat, rng, position_of(state, seat), draws_tickets=True), mv.DrawTickets)
