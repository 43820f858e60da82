"""Destination tickets during the game and at the end (C-TKT-1..3), on both maps."""

from __future__ import annotations

import json
import random
from itertools import combinations

import pytest

from games.engine import events as ev
from games.engine import legal_moves, random_legal_move, redact, score_ended, view
from games.engine import moves as mv
from games.engine.codec import view_json
from games.engine.state import KEEP_TICKETS, State
from tests.engine.builders import arrange, of_type, opening, play, refused, scored, started

MAPS = ["europe", "usa"]


def drawing(map_name: str, pile: list[str] | None = None) -> State:
    """Seat 0 has just drawn destination tickets."""
    state = started(map_name, 2)
    if pile is not None:
        state = arrange(state, ticket_pile=pile)
    after, _ = play(state, 0, mv.DrawTickets())
    return after


# C-TKT-1: draw 3, keep at least 1, the rest to the bottom.


@pytest.mark.parametrize("map_name", MAPS)
def test_c_tkt_1_the_top_3_tickets_are_offered(map_name: str) -> None:
    state = started(map_name, 2)
    top3 = tuple(reversed(state.ticket_pile[-3:]))
    after, events = play(state, 0, mv.DrawTickets())
    dealt = of_type(events, ev.TicketsDealt)[0]
    assert dealt.tickets == top3 and dealt.count == 3
    assert after.offered[0] == top3 and after.phase == KEEP_TICKETS and after.deciders() == (0,)
    assert len(after.ticket_pile) == len(state.ticket_pile) - 3


@pytest.mark.parametrize("map_name", MAPS)
def test_c_tkt_1_at_least_one_ticket_must_be_kept(map_name: str) -> None:
    state = drawing(map_name)
    assert refused(state, 0, mv.KeepTickets(())).rule == "C-TKT-1"
    offered = state.offered[0]
    expected = {mv.KeepTickets(c) for k in (1, 2, 3) for c in combinations(offered, k)}
    assert set(legal_moves(state, 0)) == expected and len(expected) == 7
    for keep in expected:
        after, _ = play(state, 0, keep)
        assert after.players[0].tickets[-len(keep.tickets):] == list(keep.tickets)


@pytest.mark.parametrize("map_name", MAPS)
def test_c_tkt_1_only_the_tickets_just_drawn_can_be_kept(map_name: str) -> None:
    state = drawing(map_name)
    offered = state.offered[0]
    other = next(t for t in state.board.tickets if t not in offered)
    assert refused(state, 0, mv.KeepTickets((offered[0], other))).rule == "C-TKT-1"
    assert refused(state, 0, mv.KeepTickets((offered[0], offered[0]))).rule == "C-TKT-1"


@pytest.mark.parametrize("map_name", MAPS)
def test_c_tkt_1_returned_tickets_go_to_the_bottom_of_the_ticket_deck(map_name: str) -> None:
    state = drawing(map_name)
    offered = state.offered[0]
    pile_before = list(state.ticket_pile)
    after, events = play(state, 0, mv.KeepTickets(offered[1:2]))
    assert set(after.ticket_pile[:2]) == {offered[0], offered[2]}  # the bottom is the start of the list
    assert after.ticket_pile[2:] == pile_before
    assert of_type(events, ev.TurnEnded)[0].seat == 0 and after.current == 1


@pytest.mark.parametrize("left", [1, 2])
def test_c_tkt_1_fewer_than_3_are_drawn_when_fewer_remain(left: int) -> None:
    pile = ["kyiv--petrograd", "sofia--smyrna"][:left]
    state = drawing("europe", pile)
    assert state.offered[0] == tuple(pile)
    assert state.ticket_pile == []
    assert refused(state, 0, mv.KeepTickets(())).rule == "C-TKT-1"
    after, _ = play(state, 0, mv.KeepTickets(tuple(pile[:1])))
    assert after.ticket_pile == pile[1:]


@pytest.mark.parametrize("map_name", MAPS)
def test_c_tkt_1_drawing_tickets_is_not_legal_when_the_ticket_deck_is_empty(map_name: str) -> None:
    state = arrange(started(map_name, 2), ticket_pile=[])
    assert refused(state, 0, mv.DrawTickets()).rule == "C-TKT-1"
    assert mv.DrawTickets() not in legal_moves(state, 0)


# C-TKT-2: secret until the end; never discarded.


@pytest.mark.parametrize("map_name", MAPS)
def test_c_tkt_2_tickets_are_secret_from_the_other_players(map_name: str) -> None:
    state = started(map_name, 2)
    after, events = play(state, 0, mv.DrawTickets())
    offered = after.offered[0]
    kept_state, kept_events = play(after, 0, mv.KeepTickets(offered[:2]))
    for event in (*events, *kept_events):
        if isinstance(event, ev.TicketsDealt | ev.TicketsKept):
            assert redact(event, 0) == event
            assert not any(f"'{t}'" in repr(redact(event, 1)) for t in offered)
    for shown in (view(after, 1), view(kept_state, 1), view(kept_state, None)):
        text = json.dumps(view_json(shown))
        assert not any(f'"{t}"' in text for t in [*offered, *state.players[0].tickets])
    assert view(kept_state, 1).players[0].tickets == len(kept_state.players[0].tickets)
    assert view(kept_state, 0).tickets == tuple(kept_state.players[0].tickets)


@pytest.mark.parametrize("map_name", MAPS)
def test_c_tkt_2_a_kept_ticket_is_never_discarded(map_name: str) -> None:
    state = started(map_name, 2)
    held = list(state.players[0].tickets)
    state, _ = play(state, 0, mv.DrawTickets())
    assert refused(state, 0, mv.KeepTickets((held[0],))).rule == "C-TKT-1"  # not even by "keeping" it again
    state, _ = play(state, 0, mv.KeepTickets(state.offered[0][:1]))
    assert state.players[0].tickets[: len(held)] == held


@pytest.mark.parametrize("map_name", MAPS)
def test_c_tkt_2_no_move_of_a_whole_game_ever_removes_a_kept_ticket(map_name: str) -> None:
    rng = random.Random(map_name)
    state, _ = opening(map_name, 3, seed=11)
    while not state.finished:
        seat = state.deciders()[0]
        move = random_legal_move(state, seat, rng)
        assert move is not None
        after, _ = play(state, seat, move, seed=rng.randrange(1 << 30))
        for before, now in zip(state.players, after.players, strict=True):
            assert now.tickets[: len(before.tickets)] == before.tickets
        state = after
    final = view(state, 1).final
    assert final is not None and final.player_tickets == tuple(tuple(p.tickets) for p in state.players)  # public now


# C-TKT-3: completed tickets add, incomplete ones subtract.


def test_c_tkt_3_a_chain_of_own_routes_completes_a_ticket_europe() -> None:
    result = scored("europe", {"petrograd--wilno": 0, "kyiv--wilno": 0}, tickets={0: ["kyiv--petrograd"]})
    (ticket,) = result.scores[0].tickets
    assert ticket.completed and ticket.points == 6 and result.scores[0].ticket_points == 6


def test_c_tkt_3_any_chain_counts_not_only_the_shortest() -> None:
    routes = {"petrograd--wilno": 0, "warszawa--wilno": 0, "kyiv--warszawa": 0}
    assert scored("europe", routes, tickets={0: ["kyiv--petrograd"]}).scores[0].ticket_points == 6


def test_c_tkt_3_an_incomplete_ticket_subtracts_its_points() -> None:
    result = scored("europe", {"petrograd--wilno": 0}, tickets={0: ["kyiv--petrograd", "sofia--smyrna"]})
    assert [(t.completed, t.points) for t in result.scores[0].tickets] == [(False, -6), (False, -5)]
    assert result.scores[0].ticket_points == -11


def test_c_tkt_3_another_players_route_does_not_complete_a_ticket() -> None:
    result = scored("europe", {"petrograd--wilno": 0, "kyiv--wilno": 1}, tickets={0: ["kyiv--petrograd"]})
    assert result.scores[0].ticket_points == -6


def test_c_tkt_3_usa_completed_and_incomplete_tickets() -> None:
    routes = {"denver--santa-fe": 0, "el-paso--santa-fe": 0, "calgary--helena": 1}
    result = scored("usa", routes, tickets={0: ["denver--el-paso", "calgary--salt-lake-city"],
                                            1: ["calgary--salt-lake-city"]})
    assert [t.points for t in result.scores[0].tickets] == [4, -7]
    assert [t.points for t in result.scores[1].tickets] == [-7]


def test_c_tkt_3_the_game_end_scores_the_tickets_each_player_holds() -> None:
    state = arrange(started("usa", 2), tickets={0: ["denver--el-paso"], 1: ["kansas-city--houston"]},
                    routes={"denver--santa-fe": 0}, hands={0: {"red": 2}}, trains={0: 4})
    state, events = play(state, 0, mv.ClaimRoute("el-paso--santa-fe", (("red", 2),)))
    assert state.turns_left is not None  # 2 trains left: the last round (C-END-1)
    state, _ = play(state, 1, mv.DrawCard("deck"))
    state, _ = play(state, 1, mv.DrawCard("deck"))
    state, _ = play(state, 0, mv.DrawCard("deck"))
    state, events = play(state, 0, mv.DrawCard("deck"))
    assert state.finished and of_type(events, ev.GameEnded)[0].reason == "last_round"
    ended = score_ended(state)  # the workers score an ended game with this pure step
    assert [t.points for t in ended.scores[0].tickets] == [4]
    assert [t.points for t in ended.scores[1].tickets] == [-5]
