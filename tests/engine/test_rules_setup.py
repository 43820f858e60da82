"""Components and setup (C-CMP-*, C-SET-1, E-CMP-1, E-SET-*, U-CMP-1, U-SET-1), on both maps."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from games.engine import events as ev
from games.engine import moves as mv
from games.engine.board import load_board
from games.engine.cards import COLOURS, LOCOMOTIVE, full_deck
from games.engine.codec import view_json
from games.engine.setup import begin
from games.engine.state import SETUP_TICKETS, TURN
from games.engine.view import redact, view
from tests.engine.builders import card_count, hand_size, of_type, opening, play, refused

MAPS = ("europe", "usa")


# C-CMP-1 / C-CMP-2: the train cards and the trains.


def test_c_cmp_1_deck_is_110_cards_12_of_each_colour_and_14_locomotives() -> None:
    deck = Counter(full_deck())
    assert set(COLOURS) == {"purple", "blue", "orange", "white", "green", "yellow", "black", "red"}
    assert deck == {**{colour: 12 for colour in COLOURS}, LOCOMOTIVE: 14}
    assert sum(deck.values()) == 110


@pytest.mark.parametrize("map_name", MAPS)
@pytest.mark.parametrize("players", [2, 5])
def test_c_cmp_1_every_card_of_the_deck_is_in_play_after_setup(map_name: str, players: int) -> None:
    state, _ = opening(map_name, players, seed=players)
    assert card_count(state) == Counter(full_deck())


@pytest.mark.parametrize("map_name", MAPS)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_c_cmp_2_each_player_starts_with_45_trains(map_name: str, players: int) -> None:
    state, _ = opening(map_name, players)
    assert [p.trains for p in state.players] == [45] * players
    assert [player.trains for player in view(state, 0).players] == [45] * players


@pytest.mark.parametrize("map_name", MAPS)
@pytest.mark.parametrize("players", [0, 1, 6])
def test_c_cmp_2_a_game_has_2_to_5_players(map_name: str, players: int) -> None:
    with pytest.raises(ValueError):
        begin(map_name, players, random.Random(1))


# C-SET-1: shuffle, deal 4 each, turn up 5.


@pytest.mark.parametrize("map_name", MAPS)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_c_set_1_deal_4_cards_each_from_the_shuffled_deck_then_turn_up_5(map_name: str, players: int) -> None:
    state, events = opening(map_name, players, seed=10 + players)
    shuffled = of_type(events, ev.DeckShuffled)[0]
    assert shuffled.reason == "setup" and shuffled.cards is not None
    deck = list(shuffled.cards)  # top first
    assert Counter(deck) == Counter(full_deck())  # all 110 cards, shuffled
    for seat, dealt in enumerate(of_type(events, ev.CardsDealt)):
        assert dealt.seat == seat
        assert dealt.cards == tuple(deck[4 * seat : 4 * seat + 4])
        assert state.players[seat].hand == Counter(dealt.cards)
        assert hand_size(state, seat) == 4
    first_reveal = of_type(events, ev.MarketRevealed)[0]
    assert first_reveal.slots == (0, 1, 2, 3, 4)
    assert first_reveal.cards == tuple(deck[4 * players : 4 * players + 5])
    assert all(card is not None for card in state.market)
    if not of_type(events, ev.MarketDiscarded):  # no three-locomotive wipe (C-DRW-4) at this seed
        assert state.market == list(first_reveal.cards)
        assert len(state.draw_pile) == 110 - 4 * players - 5


def test_c_set_1_different_shuffles_deal_different_hands() -> None:
    hands = {tuple(sorted(opening("europe", 2, seed)[0].players[0].hand.items())) for seed in range(10)}
    assert len(hands) > 1


# E-CMP-1 / U-CMP-1: what each map holds.


def test_e_cmp_1_europe_has_46_tickets_6_long_3_stations_and_lengths_1_to_8() -> None:
    board = load_board("europe")
    assert len(board.tickets) == 46
    assert len(board.long_tickets) == 6
    assert len(board.regular_tickets) == 40
    assert board.stations_per_player == 3
    assert {r.length for r in board.route_list} == {1, 2, 3, 4, 6, 8}
    state, _ = opening("europe", 3)
    assert [p.stations_left for p in view(state, 0).players] == [3, 3, 3]


def test_u_cmp_1_usa_has_30_tickets_no_stations_tunnels_or_ferries_and_lengths_1_to_6() -> None:
    board = load_board("usa")
    assert len(board.tickets) == 30
    assert board.long_tickets == ()
    assert board.stations_per_player == 0 and not board.has_stations
    assert not any(r.tunnel for r in board.route_list)
    assert not any(r.ferry_locomotives for r in board.route_list)
    assert {r.length for r in board.route_list} == {1, 2, 3, 4, 5, 6}


# E-SET-1 / E-SET-2: Europe's setup tickets.


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_e_set_1_each_player_gets_1_long_and_3_regular_tickets(players: int) -> None:
    state, _ = opening("europe", players, seed=players)
    board = state.board
    dealt: list[str] = []
    for seat in range(players):
        offered = state.offered[seat]
        assert len(offered) == 4
        assert sum(board.tickets[t].long for t in offered) == 1
        dealt.extend(offered)
    assert len(set(dealt)) == len(dealt)
    # The other long tickets leave the game: the ticket pile holds only the undealt regular tickets.
    assert len(state.ticket_pile) == 40 - 3 * players
    assert not any(board.tickets[t].long for t in state.ticket_pile)


def test_e_set_1_the_long_tickets_not_dealt_are_never_seen() -> None:
    state, events = opening("europe", 2, seed=3)
    dealt = {t for offered in state.offered.values() for t in offered}
    unseen = set(state.board.long_tickets) - dealt
    assert len(unseen) == 4
    for viewer in (0, 1, None):
        shown = json.dumps(view_json(view(state, viewer))) + repr([redact(e, viewer) for e in events])
        assert not any(f"'{ticket}'" in shown or f'"{ticket}"' in shown for ticket in unseen)


def test_e_set_2_a_player_must_keep_at_least_2_of_the_4_setup_tickets() -> None:
    state, _ = opening("europe", 2)
    offered = state.offered[0]
    assert refused(state, 0, mv.KeepTickets(offered[:1])).rule == "E-SET-2"
    assert refused(state, 0, mv.KeepTickets(())).rule == "E-SET-2"


@pytest.mark.parametrize("pick", [(0, 1), (1, 2), (0, 3), (0, 1, 2, 3)])
def test_e_set_2_any_mix_of_at_least_2_may_be_kept(pick: tuple[int, ...]) -> None:
    state, _ = opening("europe", 2)
    offered = state.offered[0]  # the long ticket first, then the 3 regular ones
    kept = tuple(offered[i] for i in pick)
    after, _ = play(state, 0, mv.KeepTickets(kept))
    assert after.players[0].tickets == list(kept)


def test_e_set_2_returned_setup_tickets_leave_the_game() -> None:
    state, _ = opening("europe", 2)
    pile_before = list(state.ticket_pile)
    returned = {0: state.offered[0][2:], 1: state.offered[1][:2]}
    state, _ = play(state, 0, mv.KeepTickets(state.offered[0][:2]))
    state, _ = play(state, 1, mv.KeepTickets(state.offered[1][2:]))
    assert state.phase == TURN
    assert state.ticket_pile == pile_before  # nothing went back into the deck
    gone = {t for ts in returned.values() for t in ts}
    assert not gone & {t for p in state.players for t in p.tickets}


def test_e_set_2_players_choose_at_the_same_time_in_any_order() -> None:
    state, _ = opening("europe", 3, seed=5)
    assert state.phase == SETUP_TICKETS and state.deciders() == (0, 1, 2)
    state, _ = play(state, 2, mv.KeepTickets(state.offered[2][:2]))  # the last seat may choose first
    assert state.deciders() == (0, 1)
    assert refused(state, 2, mv.KeepTickets(())).rule == "C-TRN-1"  # a seat chooses once
    state, _ = play(state, 0, mv.KeepTickets(state.offered[0]))
    assert state.phase == SETUP_TICKETS  # no turn before everyone has chosen
    state, _ = play(state, 1, mv.KeepTickets(state.offered[1][1:]))
    assert state.phase == TURN and state.current == state.first_seat


def test_e_set_2_no_other_action_before_the_setup_tickets_are_kept() -> None:
    state, _ = opening("europe", 2)
    assert refused(state, 0, mv.DrawCard("deck")).rule == "E-SET-2"
    assert refused(state, 0, mv.DrawTickets()).rule == "E-SET-2"


def test_e_set_2_the_choice_is_secret() -> None:
    state, _ = opening("europe", 2)
    _, events = play(state, 0, mv.KeepTickets(state.offered[0][:2]))
    kept = of_type(events, ev.TicketsKept)[0]
    assert redact(kept, 0) == kept
    for other in (1, None):
        hidden = redact(kept, other)
        assert isinstance(hidden, ev.TicketsKept)
        assert hidden.kept is None and hidden.returned is None
        assert (hidden.kept_count, hidden.returned_count) == (2, 2)
    assert view(state, 1).offered_tickets == state.offered[1]
    shown = json.dumps(view_json(view(state, 1)))
    assert not any(f'"{ticket}"' in shown for ticket in state.offered[0])


# U-SET-1: the original map's setup tickets.


@pytest.mark.parametrize("players", [2, 5])
def test_u_set_1_each_player_is_dealt_3_tickets_and_no_long_ones(players: int) -> None:
    state, _ = opening("usa", players)
    assert [len(state.offered[seat]) for seat in range(players)] == [3] * players
    assert len(state.ticket_pile) == 30 - 3 * players


def test_u_set_1_a_player_must_keep_at_least_2_of_3() -> None:
    state, _ = opening("usa", 2)
    assert refused(state, 0, mv.KeepTickets(state.offered[0][:1])).rule == "U-SET-1"
    after, _ = play(state, 0, mv.KeepTickets(state.offered[0][:2]))
    assert after.players[0].tickets == list(state.offered[0][:2])


def test_u_set_1_returned_tickets_go_to_the_bottom_of_the_ticket_deck() -> None:
    state, _ = opening("usa", 2)
    top_before = state.ticket_pile[-3:]
    returned = state.offered[1][2]
    after, _ = play(state, 1, mv.KeepTickets(state.offered[1][:2]))
    assert after.ticket_pile[0] == returned  # the bottom of the pile is the start of the list
    assert after.ticket_pile[-3:] == top_before
    assert len(after.ticket_pile) == len(state.ticket_pile) + 1
