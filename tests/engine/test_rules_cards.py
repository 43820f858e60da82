"""Drawing train cards (C-DRW-1..5): the market, blind draws, locomotives, the three-locomotive wipe, reshuffles."""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine import events as ev
from games.engine import legal_moves
from games.engine import moves as mv
from games.engine.decide import step
from games.engine.state import SECOND_CARD, TURN, State
from tests.engine.builders import (
    LOCO,
    ScriptedShuffles,
    arrange,
    assert_c_drw_4_kept,
    card_count,
    event_types,
    hand_size,
    of_type,
    opening,
    play,
    refused,
    started,
)

MARKET = ["red", "blue", "green", "white", "black"]
DECK = ["yellow", "orange", "purple", "red", "blue", "green", "white", "black"]


def position(map_name: str = "europe", **parts: object) -> State:
    """Seat 0 to play in a 2-player game, with the given market/deck/discards/hands (defaults: no locomotives)."""
    defaults: dict[str, object] = {"market": MARKET, "deck": DECK, "discards": {}, "hands": {0: {}, 1: {}}}
    return arrange(started(map_name, 2), **{**defaults, **parts})  # type: ignore[arg-type]


# C-DRW-1: two cards, face up or blind; a face-up card is replaced at once.


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_c_drw_1_a_face_up_card_is_replaced_at_once_from_the_deck(map_name: str) -> None:
    state = position(map_name)
    after, events = play(state, 0, mv.DrawCard("market", 2))
    assert event_types(events) == ["card_drawn", "market_revealed"]
    drawn, revealed = events
    assert isinstance(drawn, ev.CardDrawn) and drawn.card == "green" and drawn.index == 2
    assert isinstance(revealed, ev.MarketRevealed) and revealed.slots == (2,) and revealed.cards == ("yellow",)
    assert after.market == ["red", "blue", "yellow", "white", "black"]
    assert after.players[0].hand == {"green": 1}
    assert after.phase == SECOND_CARD and after.current == 0  # the same player takes a second card


def test_c_drw_1_the_replacement_is_shown_even_when_it_is_the_last_card_of_the_deck() -> None:
    state = position(deck=["orange"])
    after, events = play(state, 0, mv.DrawCard("market", 0))
    assert of_type(events, ev.MarketRevealed)[0].cards == ("orange",)
    assert after.market[0] == "orange" and after.draw_pile == []


def test_c_drw_1_a_blind_draw_takes_the_top_of_the_deck() -> None:
    state = position()
    after, events = play(state, 0, mv.DrawCard("deck"))
    assert of_type(events, ev.CardDrawn)[0].card == "yellow"
    assert after.players[0].hand == {"yellow": 1}
    assert after.market == MARKET and after.draw_pile == state.draw_pile[:-1]
    assert after.phase == SECOND_CARD


@pytest.mark.parametrize(
    ("first", "second", "gained"),
    [
        (mv.DrawCard("market", 0), mv.DrawCard("deck"), {"red": 1, "orange": 1}),
        (mv.DrawCard("deck"), mv.DrawCard("market", 4), {"yellow": 1, "black": 1}),
        (mv.DrawCard("deck"), mv.DrawCard("deck"), {"yellow": 1, "orange": 1}),
        (mv.DrawCard("market", 1), mv.DrawCard("market", 1), {"blue": 1, "yellow": 1}),
    ],
)
def test_c_drw_1_the_action_is_two_cards_from_either_source(
    first: mv.DrawCard, second: mv.DrawCard, gained: dict[str, int]
) -> None:
    state, _ = play(position(), 0, first)
    state, events = play(state, 0, second)
    assert state.players[0].hand == gained
    assert of_type(events, ev.TurnEnded)[0].seat == 0
    assert state.current == 1 and state.phase == TURN


def test_c_drw_1_only_a_face_up_card_can_be_taken_from_the_market() -> None:
    state = position(market=["red", None, "green", "white", "black"])
    assert refused(state, 0, mv.DrawCard("market", 1)).rule == "C-DRW-1"
    assert refused(state, 0, mv.DrawCard("market", 5)).rule == "C-DRW-1"
    assert refused(state, 0, mv.DrawCard("market")).rule == "C-DRW-1"
    assert mv.DrawCard("market", 1) not in legal_moves(state, 0)


# C-DRW-2: a face-up locomotive.


def test_c_drw_2_a_face_up_locomotive_as_first_card_ends_the_action() -> None:
    state = position(market=["red", LOCO, "green", "white", "black"])
    after, events = play(state, 0, mv.DrawCard("market", 1))
    assert after.players[0].hand == {LOCO: 1}
    assert of_type(events, ev.TurnEnded)[0].seat == 0
    assert after.current == 1 and after.phase == TURN


@pytest.mark.parametrize("first", [mv.DrawCard("market", 0), mv.DrawCard("deck")])
def test_c_drw_2_no_face_up_locomotive_as_second_card(first: mv.DrawCard) -> None:
    state, _ = play(position(market=["red", LOCO, "green", "white", "black"]), 0, first)
    assert state.phase == SECOND_CARD
    assert refused(state, 0, mv.DrawCard("market", 1)).rule == "C-DRW-2"
    assert mv.DrawCard("market", 1) not in legal_moves(state, 0)
    assert mv.DrawCard("market", 2) in legal_moves(state, 0)


def test_c_drw_2_not_even_the_locomotive_that_just_replaced_the_first_card() -> None:
    state = position(deck=[LOCO, *DECK])
    state, _ = play(state, 0, mv.DrawCard("market", 3))
    assert state.market[3] == LOCO
    assert refused(state, 0, mv.DrawCard("market", 3)).rule == "C-DRW-2"


# C-DRW-3: a blind locomotive is one card.


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_c_drw_3_a_locomotive_drawn_blind_counts_as_one_card(map_name: str) -> None:
    state = position(map_name, deck=[LOCO, "purple", *DECK])
    state, events = play(state, 0, mv.DrawCard("deck"))
    assert not of_type(events, ev.TurnEnded)
    assert state.phase == SECOND_CARD and state.current == 0
    state, _ = play(state, 0, mv.DrawCard("deck"))
    assert state.players[0].hand == {LOCO: 1, "purple": 1}
    assert state.current == 1


# C-DRW-4: three face-up locomotives.


def test_c_drw_4_three_face_up_locomotives_send_the_market_to_the_discards() -> None:
    state = position(market=[LOCO, LOCO, "red", "blue", "green"], deck=[LOCO, *DECK])
    after, events = play(state, 0, mv.DrawCard("market", 2))
    assert event_types(events) == ["card_drawn", "market_revealed", "market_discarded", "market_revealed"]
    wiped = of_type(events, ev.MarketDiscarded)[0]
    assert Counter(wiped.cards) == {LOCO: 3, "blue": 1, "green": 1}
    assert after.discards == {LOCO: 3, "blue": 1, "green": 1}
    assert after.market == DECK[:5]  # five new cards turned up
    assert after.players[0].hand == {"red": 1}
    assert after.phase == SECOND_CARD  # the wipe does not change the player's action
    assert card_count(after) == card_count(state)


def test_c_drw_4_the_wipe_repeats_while_three_locomotives_come_up() -> None:
    deck = [LOCO, LOCO, LOCO, LOCO, "red", "blue", *DECK]
    state = position(market=[LOCO, LOCO, "red", "blue", "green"], deck=deck)
    after, events = play(state, 0, mv.DrawCard("market", 2))
    assert len(of_type(events, ev.MarketDiscarded)) == 2
    assert after.market == DECK[:5]
    assert after.market.count(LOCO) < 3


def test_c_drw_4_the_new_market_is_revealed_in_the_log_even_from_the_last_5_cards() -> None:
    state = position(market=[LOCO, LOCO, "red", "blue", "green"], deck=[LOCO, *DECK[:5]])
    after, events = play(state, 0, mv.DrawCard("market", 2))
    assert of_type(events, ev.MarketRevealed)[-1].cards == tuple(DECK[:5])
    assert after.market == DECK[:5] and after.draw_pile == []


def test_c_drw_4_the_wipe_stops_when_the_piles_cannot_give_a_better_market_and_says_so() -> None:
    state = position(market=[LOCO, LOCO, "red", "blue", "green"], deck=[LOCO], discards={LOCO: 2})
    after, events = play(state, 0, mv.DrawCard("market", 2))
    assert not of_type(events, ev.MarketDiscarded)
    assert len(of_type(events, ev.MarketWipeSkipped)) == 1
    assert after.market == [LOCO, LOCO, LOCO, "blue", "green"]  # blue and green are the only other cards left
    assert_c_drw_4_kept(state, events)


# Three locomotives on top of three reshuffles in a row, then none: 3 other cards (blue, white, green) are left
# among the deck, the discards and the market, so a market with at most 2 locomotives can always come up.
THREE_OTHERS_LEFT = {"market": [LOCO, LOCO, "red", "blue", "green"], "deck": [LOCO], "discards": {"white": 1}}


@pytest.mark.parametrize("bad_reshuffles", [0, 1, 19, 20, 30])
def test_c_drw_4_the_wipe_has_no_limit_while_three_other_cards_are_left(bad_reshuffles: int) -> None:
    # Each bad reshuffle turns up three locomotives again; the engine once gave up after 20 wipes and
    # recorded a skip, even right after the 20th wipe had turned up a legal market.
    state = position(**THREE_OTHERS_LEFT)
    after, events = step(state, 0, mv.DrawCard("market", 2), ScriptedShuffles(bad_reshuffles))
    assert len(of_type(events, ev.MarketDiscarded)) == bad_reshuffles + 1
    assert not of_type(events, ev.MarketWipeSkipped)
    assert Counter(after.market) == {"blue": 1, "white": 1, "green": 1, LOCO: 2}  # 6 cards left: the best market
    assert after.phase == SECOND_CARD and card_count(after) == card_count(state)
    assert_c_drw_4_kept(state, events)


@pytest.mark.parametrize("seed", range(20))
def test_c_drw_4_with_exactly_three_other_cards_left_the_market_is_wiped_until_legal(seed: int) -> None:
    state = position(**THREE_OTHERS_LEFT)
    after, events = play(state, 0, mv.DrawCard("market", 2), seed)
    assert of_type(events, ev.MarketDiscarded) and not of_type(events, ev.MarketWipeSkipped)
    assert after.market.count(LOCO) <= 2
    assert_c_drw_4_kept(state, events)


@pytest.mark.parametrize("seed", [168, 237, 268])
def test_c_drw_4_applies_to_the_opening_market_too(seed: int) -> None:
    state, events = opening("europe", 2, seed)
    first = of_type(events, ev.MarketRevealed)[0]
    assert first.cards.count(LOCO) >= 3
    assert of_type(events, ev.MarketDiscarded)[0].cards == first.cards
    assert state.market.count(LOCO) < 3


def test_c_drw_4_no_opening_market_shows_three_locomotives() -> None:
    for seed in range(200):
        state, events = opening("usa", 3, seed)
        assert state.market.count(LOCO) < 3 or of_type(events, ev.MarketWipeSkipped)


# C-DRW-5: reshuffles, and no card to draw.


def test_c_drw_5_an_empty_deck_is_refilled_by_shuffling_the_discards() -> None:
    discards = {"red": 2, "white": 1, LOCO: 1}
    state = position(deck=[], discards=discards)
    after, events = play(state, 0, mv.DrawCard("deck"))
    shuffled = of_type(events, ev.DeckShuffled)[0]
    assert shuffled.reason == "reshuffle" and shuffled.cards is not None
    assert Counter(shuffled.cards) == discards
    assert of_type(events, ev.CardDrawn)[0].card == shuffled.cards[0]  # the top of the new deck
    assert after.discards == {}
    assert len(after.draw_pile) == 3


def test_c_drw_5_refilling_the_market_reshuffles_the_discards_too() -> None:
    state = position(deck=[], discards={"purple": 3})
    after, events = play(state, 0, mv.DrawCard("market", 0))
    assert event_types(events)[:3] == ["card_drawn", "deck_shuffled", "market_revealed"]
    assert after.market[0] == "purple"


def test_c_drw_5_no_blind_draw_when_deck_and_discards_are_empty() -> None:
    state = position(deck=[], discards={})
    assert refused(state, 0, mv.DrawCard("deck")).rule == "C-DRW-5"
    assert mv.DrawCard("deck") not in legal_moves(state, 0)
    assert mv.DrawCard("market", 0) in legal_moves(state, 0)


@pytest.mark.parametrize(
    ("market", "deck", "first"),
    [
        (["red", None, None, None, None], [], mv.DrawCard("market", 0)),
        (["red", LOCO, LOCO, None, None], [], mv.DrawCard("market", 0)),
        ([None] * 5, ["red"], mv.DrawCard("deck")),
        ([LOCO, None, None, None, None], ["red"], mv.DrawCard("deck")),
    ],
)
def test_c_drw_5_when_only_one_card_can_be_drawn_the_action_ends_after_it(
    market: list[str | None], deck: list[str], first: mv.DrawCard
) -> None:
    state = position(market=market, deck=deck, discards={})
    after, events = play(state, 0, first)
    assert after.players[0].hand == {"red": 1}
    assert of_type(events, ev.TurnEnded)[0].seat == 0
    assert after.current == 1


def test_c_drw_5_drawing_cards_is_not_an_action_when_no_card_is_left() -> None:
    state = position(market=[None] * 5, deck=[], discards={}, hands={0: {"red": 1}, 1: {}})
    assert not any(isinstance(m, mv.DrawCard) for m in legal_moves(state, 0))
    assert refused(state, 0, mv.DrawCard("deck")).rule == "C-DRW-5"
    assert refused(state, 0, mv.DrawCard("market", 0)).rule == "C-DRW-1"
    assert hand_size(state, 0) == 1
