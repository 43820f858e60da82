"""Greedy-lite in a playout (bots/policies/rollout.py): its plans kept while the board leaves them whole, made
again when it breaks them; the other seats drawing tickets as the greedy bot does; the situation it reads from the
State the same as the greedy bot's from the view."""

from __future__ import annotations

import random

import pytest

from bots.policies import rollout
from bots.policies.greedy import choose_move, view_situation
from bots.policies.plan import plan_network
from bots.policies.rollout import Plans, Positions, Seats, lite_move, position_of, situation_of
from bots.policies.situation import TICKET_DRAW_TIME, plan_links, points_length, station_city, wants_tickets
from games.engine import begin, legal_moves, step, view
from games.engine import moves as mv
from games.engine.state import KEEP_TICKETS, SETUP_TICKETS, TURN, State


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


def test_a_seats_position_is_made_again_only_once_a_route_is_claimed_or_a_station_built() -> None:
    state = opened(7)
    positions = Positions()
    pos = positions.of(state, 0)
    assert pos == position_of(state, 0)
    state.players[0].hand["red"] = state.players[0].hand.get("red", 0) + 2  # cards drawn: the board is the same
    assert positions.of(state, 0) is pos
    route = next(r for r in state.board.route_list if r.id not in state.route_owner)
    state.route_owner[route.id] = 1
    assert positions.of(state, 0) == position_of(state, 0) != pos
    city = next(c for c in state.board.cities if c not in state.station_owner)
    state.station_owner[city] = 0
    state.players[0].stations += 1
    assert positions.of(state, 0) == position_of(state, 0)


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


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_the_greedy_bot_from_its_view_and_greedy_lite_from_the_state_see_the_same_situation(map_name: str) -> None:
    """One strategy, two readers: the `Situation` greedy.py builds from a seat's view and the one rollout.py builds
    from the State agree, and so do the decisions situation.py makes from them."""
    rng = random.Random(3)
    state, _ = begin(map_name, 3, rng)
    compared = 0
    while not state.finished:
        seat = state.deciders()[0]
        if state.phase == TURN:
            from_view = view_situation(view(state, seat))
            root = position_of(state, seat)
            from_state = situation_of(state, seat, root, Plans().of(state, seat, root))
            for name in ("pos", "hand", "plan", "building", "fewest_trains", "last_round", "tickets_left"):
                assert getattr(from_view, name) == getattr(from_state, name), name
            for decision in (wants_tickets, plan_links, station_city, points_length):
                assert decision(from_view) == decision(from_state), decision.__name__
            assert from_view.endgame == from_state.endgame
            compared += 1
        state, _ = step(state, seat, choose_move(view(state, seat), legal_moves(state, seat)), rng, in_place=True)
    assert compared > 50


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_the_other_seats_of_a_playout_may_keep_the_tickets_the_greedy_bot_keeps(
    map_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """C-TKT-1, E-SET-2: with OTHERS_KEEP_LIKE_GREEDY the other seats of a playout keep the tickets the greedy bot
    would (a third one when its plan has trains to spare); the searching seat keeps the fewest, cheapest."""
    monkeypatch.setattr(rollout, "OTHERS_KEEP_LIKE_GREEDY", True)
    compared, more = 0, 0
    for seed in range(4):
        rng = random.Random(seed)
        state, _ = begin(map_name, 3, rng)
        while not state.finished:
            seat = state.deciders()[0]
            greedy = choose_move(view(state, seat), legal_moves(state, seat))
            if state.phase in (SETUP_TICKETS, KEEP_TICKETS):
                assert Seats().move(state, seat, rng, draws_tickets=False, other=True) == greedy
                own = Seats().move(state, seat, rng, draws_tickets=False, other=False)
                assert isinstance(own, mv.KeepTickets) and isinstance(greedy, mv.KeepTickets)
                assert len(own.tickets) == min(len(state.offered[seat]), 2 if state.phase == SETUP_TICKETS else 1)
                more += len(greedy.tickets) > len(own.tickets)
                compared += 1
            state, _ = step(state, seat, greedy, rng, in_place=True)
    assert compared > 12 and more > 0
