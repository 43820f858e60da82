"""Tunnels (E-TUN-1..5), with the three examples of the Europe rule book.

Gray tunnels of length 2 (bucuresti--sofia) stand in for the rule book's "2 red" example; venezia--zurich is
a green tunnel of length 2.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from games.engine import events as ev
from games.engine import evolve, legal_moves, view
from games.engine import moves as mv
from games.engine.board import load_board
from games.engine.state import TUNNEL_PAYMENT, TURN, State
from tests.engine.builders import LOCO, arrange, card_count, claim, event_types, of_type, pay, play, refused, started

GRAY_TUNNEL = "bucuresti--sofia"
GREEN_TUNNEL = "venezia--zurich"
FILLER = ["purple"] * 6  # under the revealed cards, so that the market refill never reshuffles


def position(hand: dict[str, int], deck: list[str], discards: dict[str, int] | None = None) -> State:
    return arrange(started("europe", 2), hands={0: hand, 1: {}}, deck=deck, discards=discards or {},
                   market=["black"] * 5)


def reveal(state: State, move: mv.ClaimRoute) -> tuple[State, ev.TunnelRevealed]:
    after, events = play(state, 0, move)
    return after, of_type(events, ev.TunnelRevealed)[0]


def test_e_tun_1_the_tunnels_of_the_board() -> None:
    board = load_board("europe")
    assert board.routes[GRAY_TUNNEL].tunnel and board.routes[GRAY_TUNNEL].color == "gray"
    assert board.routes[GREEN_TUNNEL].tunnel and board.routes[GREEN_TUNNEL].color == "green"
    assert board.routes[GRAY_TUNNEL].length == board.routes[GREEN_TUNNEL].length == 2


# E-TUN-1: play the cards of a normal route, then reveal the top 3 cards of the deck.


def test_e_tun_1_the_cards_of_a_normal_route_are_played_first() -> None:
    state = position({"red": 3, "blue": 1}, ["red", "white", "blue", *FILLER])
    assert refused(state, 0, claim(GRAY_TUNNEL, red=1)).rule == "C-CLM-1"
    assert refused(state, 0, claim(GRAY_TUNNEL, red=1, blue=1)).rule == "C-CLM-1"
    assert refused(state, 0, claim(GREEN_TUNNEL, red=2)).rule == "C-CLM-1"


def test_e_tun_1_then_the_top_3_cards_of_the_deck_are_revealed() -> None:
    state = position({"red": 3}, ["red", "white", "blue", *FILLER])
    after, revealed = reveal(state, claim(GRAY_TUNNEL, red=2))
    assert revealed.revealed == ("red", "white", "blue")
    assert revealed.cards == pay(red=2) and revealed.route == GRAY_TUNNEL
    assert after.phase == TUNNEL_PAYMENT and after.deciders() == (0,)
    assert after.draw_pile == list(reversed(FILLER))
    assert after.players[0].hand == {"red": 3}  # nothing is paid yet
    assert GRAY_TUNNEL not in after.route_owner
    assert card_count(after) == card_count(state)


def test_e_tun_1_the_discards_are_shuffled_in_first_when_the_deck_has_fewer_than_3() -> None:
    state = position({"red": 2}, ["white"], discards={"blue": 2, "yellow": 1})
    after, events = play(state, 0, claim(GRAY_TUNNEL, red=2))
    assert event_types(events)[:2] == ["deck_shuffled", "tunnel_revealed"]
    assert after.route_owner[GRAY_TUNNEL] == 0  # no red and no locomotive revealed: nothing to add
    shuffled = of_type(events, ev.DeckShuffled)[0]
    assert shuffled.reason == "tunnel" and Counter(shuffled.cards) == {"blue": 2, "yellow": 1}
    revealed = of_type(events, ev.TunnelRevealed)[0].revealed
    assert shuffled.cards is not None
    assert revealed == ("white", *shuffled.cards[:2])  # the old deck stays on top of the new cards


def test_e_tun_1_a_deck_of_exactly_3_cards_is_revealed_whole() -> None:
    state = position({"red": 3}, ["red", "white", "blue"])
    after, revealed = reveal(state, claim(GRAY_TUNNEL, red=2))
    assert revealed.revealed == ("red", "white", "blue") and revealed.extra == 1
    assert after.phase == TUNNEL_PAYMENT and after.draw_pile == []


def test_e_tun_1_a_reshuffle_that_makes_exactly_3_cards_reveals_all_3() -> None:
    state = position({"red": 3}, ["red"], discards={"red": 2})
    after, revealed = reveal(state, claim(GRAY_TUNNEL, red=2))
    assert revealed.revealed == ("red", "red", "red") and revealed.extra == 3
    assert legal_moves(after, 0) == [mv.DeclineTunnel()]  # 3 more red cards: one short


# E-TUN-2: one more card per revealed card of the colour played, and per revealed locomotive.


def test_e_tun_2_rule_book_example_1_two_red_played_one_red_revealed_one_more_red() -> None:
    state = position({"red": 3, "white": 2}, ["red", "white", "blue", *FILLER])
    after, revealed = reveal(state, claim(GRAY_TUNNEL, red=2))
    assert revealed.extra == 1
    assert set(legal_moves(after, 0)) == {mv.PayTunnel(pay(red=1)), mv.DeclineTunnel()}
    paid, events = play(after, 0, mv.PayTunnel(pay(red=1)))
    claimed = of_type(events, ev.RouteClaimed)[0]
    assert claimed.cards == pay(red=3) and claimed.points == 2
    assert paid.route_owner[GRAY_TUNNEL] == 0 and paid.players[0].hand == {"white": 2}
    assert paid.players[0].trains == 45 - 2


def test_e_tun_2_rule_book_example_2_two_green_played_one_locomotive_revealed_one_more_green() -> None:
    state = position({"green": 3, LOCO: 1}, [LOCO, "white", "blue", *FILLER])
    after, revealed = reveal(state, claim(GREEN_TUNNEL, green=2))
    assert revealed.extra == 1
    assert set(legal_moves(after, 0)) == {mv.PayTunnel(pay(green=1)), mv.PayTunnel(pay(locomotive=1)),
                                          mv.DeclineTunnel()}
    paid, _ = play(after, 0, mv.PayTunnel(pay(green=1)))
    assert paid.route_owner[GREEN_TUNNEL] == 0 and paid.players[0].hand == {LOCO: 1}


def test_e_tun_2_rule_book_example_3_two_locomotives_played_one_locomotive_revealed_one_more_locomotive() -> None:
    state = position({LOCO: 3, "red": 2}, [LOCO, "red", "green", *FILLER])
    after, revealed = reveal(state, claim(GRAY_TUNNEL, locomotive=2))
    assert revealed.extra == 1  # the revealed red and green do not count
    assert set(legal_moves(after, 0)) == {mv.PayTunnel(pay(locomotive=1)), mv.DeclineTunnel()}
    assert refused(after, 0, mv.PayTunnel(pay(red=1))).rule == "E-TUN-2"
    paid, _ = play(after, 0, mv.PayTunnel(pay(locomotive=1)))
    assert paid.route_owner[GRAY_TUNNEL] == 0 and paid.players[0].hand == {"red": 2}


@pytest.mark.parametrize(
    ("played", "top3", "extra"),
    [
        ({"red": 2}, ["white", "blue", "green"], 0),
        ({"red": 2}, ["red", "red", LOCO], 3),
        ({"red": 1, LOCO: 1}, ["red", LOCO, "blue"], 2),
        ({LOCO: 2}, ["red", "red", "red"], 0),
        ({LOCO: 2}, [LOCO, LOCO, "red"], 2),
    ],
)
def test_e_tun_2_the_number_of_extra_cards(played: dict[str, int], top3: list[str], extra: int) -> None:
    state = position({"red": 5, LOCO: 5}, [*top3, *FILLER])
    after, events = play(state, 0, mv.ClaimRoute(GRAY_TUNNEL, mv.payment(played)))
    assert of_type(events, ev.TunnelRevealed)[0].extra == extra
    assert (after.phase == TUNNEL_PAYMENT) == (extra > 0)


def test_e_tun_2_the_extra_cards_are_the_colour_played_or_locomotives_and_exactly_as_many() -> None:
    state = position({"red": 4, "blue": 2, LOCO: 2}, ["red", LOCO, "white", *FILLER])
    after, _ = reveal(state, claim(GRAY_TUNNEL, red=2))
    assert refused(after, 0, mv.PayTunnel(pay(blue=2))).rule == "E-TUN-2"
    assert refused(after, 0, mv.PayTunnel(pay(red=1))).rule == "E-TUN-2"
    assert refused(after, 0, mv.PayTunnel(pay(red=3))).rule == "E-TUN-2"
    assert refused(after, 0, mv.PayTunnel(pay(red=1, blue=1))).rule == "E-TUN-2"
    for extra in (pay(red=2), pay(red=1, locomotive=1), pay(locomotive=2)):
        paid, events = play(after, 0, mv.PayTunnel(extra))
        whole = Counter(dict(extra)) + Counter(red=2)
        assert of_type(events, ev.RouteClaimed)[0].cards == pay(**whole)
        assert Counter(paid.players[0].hand) == Counter({"red": 4, "blue": 2, LOCO: 2}) - whole


def test_e_tun_2_the_extra_cards_must_be_in_the_hand_beside_the_played_ones() -> None:
    state = position({"red": 2, "white": 1}, ["red", "white", "blue", *FILLER])
    after, _ = reveal(state, claim(GRAY_TUNNEL, red=2))
    assert refused(after, 0, mv.PayTunnel(pay(red=1))).rule == "E-TUN-2"
    assert legal_moves(after, 0) == [mv.DeclineTunnel()]


# E-TUN-3: refusing (or being unable) to pay.


def test_e_tun_3_declining_returns_the_cards_claims_nothing_and_ends_the_turn() -> None:
    hand = {"red": 3}
    state = position(hand, ["red", "red", "blue", *FILLER])
    after, revealed = reveal(state, claim(GRAY_TUNNEL, red=2))
    assert revealed.extra == 2  # one red card short: the player cannot pay
    assert legal_moves(after, 0) == [mv.DeclineTunnel()]
    declined, events = play(after, 0, mv.DeclineTunnel())
    assert event_types(events)[:2] == ["tunnel_declined", "turn_ended"]
    assert declined.players[0].hand == hand
    assert GRAY_TUNNEL not in declined.route_owner and declined.players[0].trains == 45
    assert declined.current == 1 and declined.phase == TURN and declined.tunnel is None
    reopened = arrange(declined, current=0, hands={0: {"red": 2}}, deck=FILLER)
    assert any(isinstance(m, mv.ClaimRoute) and m.route == GRAY_TUNNEL for m in legal_moves(reopened, 0))


def test_e_tun_3_a_player_may_refuse_even_when_able_to_pay() -> None:
    state = position({"red": 5}, ["red", "white", "blue", *FILLER])
    after, _ = reveal(state, claim(GRAY_TUNNEL, red=2))
    declined, _ = play(after, 0, mv.DeclineTunnel())
    assert declined.players[0].hand == {"red": 5} and GRAY_TUNNEL not in declined.route_owner


def test_e_tun_3_nothing_else_happens_until_the_tunnel_is_paid_or_declined() -> None:
    state = position({"red": 5}, ["red", "white", "blue", *FILLER])
    after, _ = reveal(state, claim(GRAY_TUNNEL, red=2))
    assert refused(after, 0, mv.DrawCard("deck")).rule == "E-TUN-3"
    assert refused(after, 0, claim("kyiv--wilno", red=2)).rule == "E-TUN-3"
    assert refused(after, 1, mv.DeclineTunnel()).rule == "C-TRN-1"


# E-TUN-4: the revealed cards are discarded at the end of the turn, whatever the outcome.


@pytest.mark.parametrize("outcome", ["paid", "declined", "nothing_to_add"])
def test_e_tun_4_the_revealed_cards_go_to_the_discards_whatever_the_outcome(outcome: str) -> None:
    top3 = ["white", "blue", "green"] if outcome == "nothing_to_add" else ["red", "white", "blue"]
    state = position({"red": 3}, [*top3, *FILLER], discards={"yellow": 1})
    after, events = play(state, 0, claim(GRAY_TUNNEL, red=2))
    if outcome == "paid":
        after, events = play(after, 0, mv.PayTunnel(pay(red=1)))
    elif outcome == "declined":
        after, events = play(after, 0, mv.DeclineTunnel())
    assert of_type(events, ev.TurnEnded)
    paid = {"paid": {"red": 3}, "declined": {}, "nothing_to_add": {"red": 2}}[outcome]
    assert Counter(after.discards) == Counter(top3) + Counter(paid) + Counter(yellow=1)
    assert after.tunnel is None
    assert card_count(after) == card_count(state)


def test_e_tun_4_the_revealed_cards_are_out_of_the_deck_while_the_player_decides() -> None:
    state = position({"red": 3}, ["red", "white", "blue", *FILLER])
    after, _ = reveal(state, claim(GRAY_TUNNEL, red=2))
    assert after.tunnel is not None and after.tunnel.revealed == ("red", "white", "blue")
    assert after.discards == {} and len(after.draw_pile) == len(FILLER)


def whole_turn(state: State, answer: mv.Move | None) -> tuple[ev.Event, ...]:
    """The events of seat 0's turn: claiming the gray tunnel with 2 red, then `answer` if more is owed."""
    after, events = play(state, 0, claim(GRAY_TUNNEL, red=2))
    if after.phase == TUNNEL_PAYMENT:
        assert answer is not None
        events += play(after, 0, answer)[1]
    return events


def states_through(state: State, events: tuple[ev.Event, ...]) -> Iterator[tuple[ev.Event, State]]:
    """Each event with the state right after it."""
    for event in events:
        state = evolve(state, event)
        yield event, state


def evolve_all(state: State, events: tuple[ev.Event, ...]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


@pytest.mark.parametrize("outcome", ["paid", "declined", "nothing_to_add"])
def test_e_tun_4_the_revealed_cards_join_the_discard_pile_only_when_the_turn_ends(outcome: str) -> None:
    # The engine once discarded them with route_claimed or tunnel_declined: the discard count showed them early.
    top3 = ["white", "blue", "green"] if outcome == "nothing_to_add" else ["red", "white", "blue"]
    state = position({"red": 3}, [*top3, *FILLER], discards={"yellow": 1})
    answer = {"paid": mv.PayTunnel(pay(red=1)), "declined": mv.DeclineTunnel(), "nothing_to_add": None}[outcome]
    paid = Counter({"paid": {"red": 3}, "declined": {}, "nothing_to_add": {"red": 2}}[outcome])
    claimed = False
    for event, after in states_through(state, whole_turn(state, answer)):
        claimed = claimed or isinstance(event, ev.RouteClaimed)
        if isinstance(event, ev.TurnEnded):
            assert Counter(after.discards) == Counter(yellow=1) + paid + Counter(top3) and after.tunnel is None
            return
        assert Counter(after.discards) == Counter(yellow=1) + (paid if claimed else Counter()), event
        assert after.tunnel is not None and after.tunnel.revealed == tuple(top3), event
    raise AssertionError("the turn did not end")


def test_e_tun_4_a_reshuffle_later_in_the_turn_leaves_the_revealed_cards_out() -> None:
    # The reveal uses up the deck and a market slot is empty: refilling it at the end of the turn reshuffles
    # the discards, the paid cards among them, but not the revealed cards, which are not discarded yet.
    state = arrange(position({"red": 3}, ["red", "white", "blue"], {"yellow": 1}), market=[*["black"] * 4, None])
    events = whole_turn(state, mv.PayTunnel(pay(red=1)))
    assert event_types(events)[:5] == ["tunnel_revealed", "route_claimed", "deck_shuffled", "market_revealed", "turn_ended"]
    assert Counter(of_type(events, ev.DeckShuffled)[0].cards) == {"red": 3, "yellow": 1}
    after = evolve_all(state, events)
    assert after.discards == {"red": 1, "white": 1, "blue": 1} and len(after.draw_pile) == 3
    assert card_count(after) == card_count(state)


def test_e_tun_4_once_discarded_the_revealed_cards_can_fill_an_empty_market_slot() -> None:
    # Nothing else can fill the slot during the turn; as the next turn begins, the discarded reveal can (C-DRW-1).
    state = arrange(position({"red": 3}, ["red", "white", "blue"]), market=[*["black"] * 4, None])
    events = whole_turn(state, mv.DeclineTunnel())
    assert event_types(events) == ["tunnel_revealed", "tunnel_declined", "turn_ended", "deck_shuffled", "market_revealed"]
    assert Counter(of_type(events, ev.DeckShuffled)[0].cards) == {"red": 1, "white": 1, "blue": 1}
    after = evolve_all(state, events)
    assert after.current == 1 and after.market[4] is not None and after.discards == {}
    assert card_count(after) == card_count(state)


def test_e_tun_4_every_view_shows_the_revealed_cards_until_they_are_discarded() -> None:
    # The revealed cards are public (X-SEC-1): between the claim and the end of the turn they are in no pile,
    # so each view shows them with the tunnel, and every card stays in sight.
    state = position({"red": 3}, ["red", "white", "blue", *FILLER], discards={"yellow": 1})
    cards = sum(card_count(state).values())
    for event, after in states_through(state, whole_turn(state, mv.PayTunnel(pay(red=1)))):
        for viewer in (0, 1, None):
            shown = view(after, viewer)
            revealed = shown.tunnel.revealed if shown.tunnel is not None else ()
            assert revealed == (() if after.tunnel is None else ("red", "white", "blue")), event
            market = sum(1 for card in shown.market if card is not None)
            held = sum(player.cards for player in shown.players)
            assert shown.deck_size + shown.discard_size + market + held + len(revealed) == cards, event
        assert (after.tunnel is None) == isinstance(event, ev.TurnEnded)


def test_e_tun_4_a_log_written_before_the_fix_still_replays_with_every_card_once() -> None:
    # Such a log discarded the revealed cards with route_claimed, so the reshuffle later in the turn took them
    # into the new deck (7 cards: the 3 paid, the yellow and the 3 revealed): they must not be discarded again.
    state = arrange(position({"red": 3}, ["red", "white", "blue"], {"yellow": 1}), market=[*["black"] * 4, None])
    old_log = (
        ev.TunnelRevealed(0, GRAY_TUNNEL, pay(red=2), ("red", "white", "blue"), 1),
        ev.RouteClaimed(0, GRAY_TUNNEL, pay(red=3), 2),
        ev.DeckShuffled(7, "reshuffle", ("red", "yellow", "white", "blue", "red", "red", "red")),
        ev.MarketRevealed((4,), ("red",)),
        ev.TurnEnded(0, 1),
    )
    after = evolve_all(state, old_log)
    assert after.discards == {} and len(after.draw_pile) == 6 and after.tunnel is None
    assert card_count(after) == card_count(state)


# E-TUN-5: fewer than 3 cards to reveal.


@pytest.mark.parametrize(
    ("deck", "discards", "count"),
    [(["white", "red"], {}, 2), (["red"], {}, 1), ([], {"red": 1}, 1), (["white"], {"red": 1}, 2)],
)
def test_e_tun_5_only_the_cards_left_are_revealed(deck: list[str], discards: dict[str, int], count: int) -> None:
    state = position({"red": 4}, deck, discards=discards)
    after, revealed = reveal(state, claim(GRAY_TUNNEL, red=2))
    assert len(revealed.revealed) == count
    assert Counter(revealed.revealed) == Counter(deck) + Counter(discards)
    assert revealed.extra == revealed.revealed.count("red")
    assert after.phase == TUNNEL_PAYMENT


def test_e_tun_5_with_no_card_to_reveal_the_tunnel_is_claimed_like_a_normal_route() -> None:
    state = position({"red": 2}, [], discards={})
    after, events = play(state, 0, claim(GRAY_TUNNEL, red=2))
    assert not of_type(events, ev.TunnelRevealed)
    assert event_types(events)[0] == "route_claimed"
    assert after.route_owner[GRAY_TUNNEL] == 0 and after.current == 1
