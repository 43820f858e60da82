"""Turns and actions (C-TRN-1, E-TRN-1, U-TRN-1, X-TIME-1)."""

from __future__ import annotations

import random

import pytest

from bots.policies import POLICIES, Decision
from games.engine import IllegalMove, NotYourTurn, legal_moves, view
from games.engine import events as ev
from games.engine import moves as mv
from games.engine.state import KEEP_TICKETS, SECOND_CARD, TURN
from tests.engine.builders import LOCO, arrange, claim, of_type, opening, play, refused, started, station

# C-TRN-1: the first player is random and recorded; turns go clockwise; one action per turn.


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_c_trn_1_the_first_player_is_drawn_at_random_and_recorded(map_name: str) -> None:
    firsts = set()
    for seed in range(40):
        state, events = opening(map_name, 4, seed)
        started_event = events[0]
        assert isinstance(started_event, ev.GameStarted)
        assert state.first_seat == started_event.first_seat
        firsts.add(started_event.first_seat)
    assert firsts == {0, 1, 2, 3}


def test_c_trn_1_the_first_player_plays_the_first_turn() -> None:
    state, _ = opening("europe", 3, seed=2)
    for seat in range(3):
        state, _ = play(state, seat, mv.KeepTickets(state.offered[seat]))
    assert state.phase == TURN and state.current == state.first_seat
    assert state.deciders() == (state.first_seat,)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_c_trn_1_turns_go_clockwise_from_seat_to_seat(players: int) -> None:
    state = started("europe", players, current=players - 1)
    seen = []
    for _ in range(players + 1):
        seat = state.current
        assert seat is not None
        state, events = play(state, seat, mv.DrawTickets())
        state, events = play(state, seat, mv.KeepTickets(state.offered[seat][:1]))
        ended = of_type(events, ev.TurnEnded)[0]
        assert ended.seat == seat and ended.next_seat == (seat + 1) % players
        seen.append(seat)
    assert seen == [players - 1, *range(players)]


def test_c_trn_1_a_seat_cannot_move_out_of_turn() -> None:
    state = started("europe", 3, current=1)
    for seat in (0, 2):
        error = refused(state, seat, mv.DrawCard("deck"))
        assert isinstance(error, NotYourTurn) and error.rule == "C-TRN-1"
    assert refused(state, 7, mv.DrawCard("deck")).rule == "C-TRN-1"


def test_c_trn_1_one_action_per_turn() -> None:
    state = arrange(started("europe", 2), hands={0: {"black": 1, LOCO: 1}})
    second = claim("dieppe--paris", locomotive=1)
    play(state, 0, second)  # a legal action on its own
    state, _ = play(state, 0, claim("amsterdam--bruxelles", black=1))
    assert state.current == 1
    with pytest.raises(IllegalMove) as raised:
        play(state, 0, second)
    assert raised.value.rule == "C-TRN-1"


def test_c_trn_1_an_action_is_finished_before_another_starts() -> None:
    state = arrange(started("europe", 2), hands={0: {"black": 2}}, market=["red", "blue", "green", "white", "black"])
    drawing, _ = play(state, 0, mv.DrawCard("market", 0))
    assert drawing.phase == SECOND_CARD
    assert refused(drawing, 0, claim("amsterdam--bruxelles", black=1)).rule == "C-DRW-1"
    assert refused(drawing, 0, mv.DrawTickets()).rule == "C-DRW-1"
    choosing, _ = play(state, 0, mv.DrawTickets())
    assert choosing.phase == KEEP_TICKETS
    assert refused(choosing, 0, mv.DrawCard("deck")).rule == "C-TKT-1"
    assert refused(state, 0, mv.PayTunnel(())).rule == "C-TRN-1"
    assert refused(state, 0, mv.KeepTickets(())).rule == "C-TRN-1"


# E-TRN-1 / U-TRN-1: the four (three) actions.


def test_e_trn_1_europe_offers_exactly_four_kinds_of_action() -> None:
    state = arrange(started("europe", 2), hands={0: {"red": 3, LOCO: 1}})
    kinds = {type(m) for m in legal_moves(state, 0)}
    assert kinds == {mv.DrawCard, mv.ClaimRoute, mv.DrawTickets, mv.BuildStation}
    for move in (mv.DrawCard("deck"), claim("amsterdam--bruxelles", locomotive=1), mv.DrawTickets(),
                 station("wien", red=1)):
        play(state, 0, move)  # each is accepted as the turn's action


def test_u_trn_1_usa_offers_three_kinds_of_action_and_no_stations() -> None:
    state = arrange(started("usa", 2), hands={0: {"red": 3, LOCO: 1}})
    kinds = {type(m) for m in legal_moves(state, 0)}
    assert kinds == {mv.DrawCard, mv.ClaimRoute, mv.DrawTickets}
    assert refused(state, 0, station("chicago", red=1)).rule == "U-TRN-1"


# X-TIME-1: a seat whose time runs out is played by a bot; the engine must let a bot finish any decision.


@pytest.mark.parametrize("level", sorted(POLICIES))
@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_x_time_1_a_fallback_bot_can_play_any_decision_from_the_seats_view(level: str, map_name: str) -> None:
    rng = random.Random(f"{level}:{map_name}")
    state, _ = opening(map_name, 3, seed=7)
    policy = POLICIES[level]
    decisions = 0
    while not state.finished and decisions < 3000:
        seat = state.deciders()[0]
        moves = legal_moves(state, seat)
        assert moves, f"seat {seat} must decide in phase {state.phase} but has no legal move"
        # The strong bot searches a couple of sampled games a decision here: the test is about legality.
        move = policy(Decision(view(state, seat), moves, rng, iterations=1)).move
        assert move in moves
        state, _ = play(state, seat, move, seed=decisions)
        decisions += 1
    assert state.finished
