"""The end of the game (C-END-1, C-END-2): the last round, passing, and a game where nobody can act."""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine import events as ev
from games.engine import legal_moves
from games.engine import moves as mv
from games.engine.state import State
from tests.engine.builders import LOCO, arrange, claim, of_type, play, refused, started

ONE = {"europe": "amsterdam--bruxelles", "usa": "atlanta--nashville"}  # routes of length 1


def draw_two(state: State, seat: int) -> tuple[State, list[ev.Event]]:
    state, first = play(state, seat, mv.DrawCard("deck"))
    state, second = play(state, seat, mv.DrawCard("deck"))
    return state, [*first, *second]


# C-END-1: 2 trains or fewer at the end of a turn: one more turn for everyone, then the end.


@pytest.mark.parametrize("map_name", ["europe", "usa"])
@pytest.mark.parametrize("trains", [3, 2, 1])
def test_c_end_1_ending_a_turn_with_2_trains_or_fewer_starts_the_last_round(map_name: str, trains: int) -> None:
    state = arrange(started(map_name, 3), hands={0: {LOCO: 1}}, trains={0: trains})
    after, events = play(state, 0, claim(ONE[map_name], locomotive=1))
    last = of_type(events, ev.LastRoundStarted)
    if trains - 1 <= 2:
        assert last == [ev.LastRoundStarted(seat=0, turns_left=3)] and after.turns_left == 3
    else:
        assert not last and after.turns_left is None


@pytest.mark.parametrize("map_name", ["europe", "usa"])
@pytest.mark.parametrize("players", [2, 3, 5])
def test_c_end_1_every_player_that_player_included_gets_exactly_one_more_turn(map_name: str, players: int) -> None:
    trigger = 1
    state = arrange(started(map_name, players, current=trigger), hands={trigger: {LOCO: 1}}, trains={trigger: 3})
    state, _ = play(state, trigger, claim(ONE[map_name], locomotive=1))
    turns: list[int] = []
    log: list[ev.Event] = []
    while not state.finished:
        seat = state.current
        assert seat is not None
        turns.append(seat)
        state, events = draw_two(state, seat)
        log.extend(events)
    assert turns == [(trigger + 1 + i) % players for i in range(players)]  # clockwise, the trigger last
    assert Counter(e.seat for e in of_type(log, ev.TurnEnded)) == dict.fromkeys(range(players), 1)
    assert of_type(log, ev.GameEnded)[0].reason == "last_round"
    assert refused(state, trigger, mv.DrawCard("deck")).rule == "C-END-1"


def test_c_end_1_running_low_during_the_last_round_does_not_restart_it() -> None:
    state = arrange(started("europe", 2), hands={0: {LOCO: 1}, 1: {LOCO: 1}}, trains={0: 3, 1: 3})
    state, _ = play(state, 0, claim("amsterdam--bruxelles", locomotive=1))
    assert state.turns_left == 2
    state, events = play(state, 1, claim("dieppe--paris", locomotive=1))
    assert not of_type(events, ev.LastRoundStarted) and state.turns_left == 1
    state, events = draw_two(state, 0)
    assert state.finished and of_type(events, ev.GameEnded)


def test_c_end_1_no_last_round_while_more_than_2_trains_remain() -> None:
    state = arrange(started("usa", 2), hands={0: {"blue": 5}}, trains={0: 8})
    state, events = play(state, 0, claim("atlanta--miami", blue=5))
    assert state.players[0].trains == 3 and not of_type(events, ev.LastRoundStarted)


# C-END-2: a player with no legal action passes; when nobody can act the game ends.


def stuck(map_name: str, hand0: dict[str, int], tickets: list[str]) -> State:
    """No train card anywhere but in seat 0's hand; seat 1 holds nothing."""
    return arrange(started(map_name, 2), hands={0: hand0, 1: {}}, market=[None] * 5, deck=[], discards={},
                   ticket_pile=tickets)


@pytest.mark.parametrize(("map_name", "ticket"), [("europe", "kyiv--petrograd"), ("usa", "denver--el-paso")])
def test_c_end_2_a_player_with_no_legal_action_passes_and_it_is_recorded(map_name: str, ticket: str) -> None:
    # Seat 0 takes the last ticket; seat 1 has no card, no card is left to draw, no ticket to draw.
    state = stuck(map_name, {"red": 1}, [ticket])
    state, _ = play(state, 0, mv.DrawTickets())
    after, events = play(state, 0, mv.KeepTickets((ticket,)))
    assert legal_moves(arrange(after, current=1), 1) == []
    assert of_type(events, ev.TurnPassed) == [ev.TurnPassed(seat=1)]
    passed = events.index(ev.TurnPassed(seat=1))
    assert events[passed - 1] == ev.TurnEnded(seat=0, next_seat=1)
    assert events[passed + 1] == ev.TurnEnded(seat=1, next_seat=0)
    assert after.current == 0 and not after.finished  # seat 0 can still claim or build with its red card
    assert legal_moves(after, 0)


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_c_end_2_when_no_player_can_act_the_game_ends(map_name: str) -> None:
    state = stuck(map_name, {}, ["kyiv--petrograd" if map_name == "europe" else "denver--el-paso"])
    state, _ = play(state, 0, mv.DrawTickets())
    after, events = play(state, 0, mv.KeepTickets(state.offered[0]))
    assert of_type(events, ev.TurnPassed) == [ev.TurnPassed(seat=1), ev.TurnPassed(seat=0)]
    ended = of_type(events, ev.GameEnded)[0]
    assert ended.reason == "no_moves" and after.finished and after.end_reason == "no_moves"


def test_c_end_2_a_player_who_can_still_act_does_not_pass() -> None:
    state = stuck("europe", {}, ["kyiv--petrograd", "sofia--smyrna"])
    state, _ = play(state, 0, mv.DrawTickets())
    after, events = play(state, 0, mv.KeepTickets(state.offered[0][:1]))
    assert not of_type(events, ev.TurnPassed)  # seat 1 may still draw the ticket left
    assert after.current == 1 and legal_moves(after, 1) == [mv.DrawTickets()]
