"""Ferries (E-FER-1): gray routes that need one locomotive per locomotive symbol, with the rule book's example."""

from __future__ import annotations

import pytest

from games.engine import events as ev
from games.engine import legal_moves
from games.engine import moves as mv
from games.engine.board import load_board
from games.engine.cards import COLOURS
from games.engine.state import State
from tests.engine.builders import LOCO, arrange, claim, of_type, pay, play, refused, started


def position(hand: dict[str, int]) -> State:
    return arrange(started("europe", 2), hands={0: hand}, deck=["white"] * 5, discards={})


def ferry_payments(state: State, route: str) -> set[mv.Payment]:
    return {m.cards for m in legal_moves(state, 0) if isinstance(m, mv.ClaimRoute) and m.route == route}


def test_e_fer_1_ferries_are_gray_routes_with_locomotive_symbols() -> None:
    ferries = [r for r in load_board("europe").route_list if r.ferry_locomotives]
    assert ferries
    assert all(r.color == "gray" and not r.tunnel and r.ferry_locomotives <= r.length for r in ferries)


def test_e_fer_1_rule_book_example_smyrna_palermo_takes_4_cards_of_one_colour_and_2_locomotives() -> None:
    route = load_board("europe").routes["palermo--smyrna"]
    assert (route.length, route.ferry_locomotives) == (6, 2)
    state = position({"red": 4, LOCO: 2})
    after, events = play(state, 0, claim(route.id, red=4, locomotive=2))
    claimed = of_type(events, ev.RouteClaimed)[0]
    assert claimed.cards == pay(red=4, locomotive=2) and claimed.points == 15
    assert after.route_owner[route.id] == 0 and after.players[0].hand == {}
    assert after.players[0].trains == 45 - 6


@pytest.mark.parametrize("cards", [{"red": 6}, {"red": 5, LOCO: 1}])
def test_e_fer_1_fewer_locomotives_than_symbols_is_refused(cards: dict[str, int]) -> None:
    state = position({"red": 6, LOCO: 2})
    assert refused(state, 0, mv.ClaimRoute("palermo--smyrna", mv.payment(cards))).rule == "E-FER-1"


@pytest.mark.parametrize("cards", [{"red": 3, LOCO: 3}, {"green": 2, LOCO: 4}, {LOCO: 6}])
def test_e_fer_1_more_locomotives_than_symbols_are_allowed(cards: dict[str, int]) -> None:
    state = position({"red": 4, "green": 4, LOCO: 6})
    after, _ = play(state, 0, mv.ClaimRoute("palermo--smyrna", mv.payment(cards)))
    assert after.route_owner["palermo--smyrna"] == 0


def test_e_fer_1_the_other_cards_are_one_colour_as_for_a_gray_route() -> None:
    state = position({"red": 4, "green": 4, LOCO: 2})
    assert refused(state, 0, claim("palermo--smyrna", red=2, green=2, locomotive=2)).rule == "C-CLM-1"


def test_e_fer_1_legal_moves_offer_exactly_the_payments_with_enough_locomotives() -> None:
    hand = {"red": 6, "green": 4, "blue": 1, LOCO: 3}
    state = position(hand)
    expected = {
        pay(**{colour: k, LOCO: 6 - k} if k < 6 else {colour: k})
        for colour in COLOURS
        for k in range(1, 7)
        if k <= hand.get(colour, 0) and 2 <= 6 - k <= hand[LOCO]
    }
    assert expected == {pay(red=4, locomotive=2), pay(red=3, locomotive=3), pay(green=4, locomotive=2),
                        pay(green=3, locomotive=3)}
    assert ferry_payments(state, "palermo--smyrna") == expected


def test_e_fer_1_a_ferry_with_one_symbol_needs_one_locomotive() -> None:
    route = load_board("europe").routes["athina--smyrna"]
    assert (route.length, route.ferry_locomotives) == (2, 1)
    state = position({"yellow": 2, LOCO: 1})
    assert refused(state, 0, claim(route.id, yellow=2)).rule == "E-FER-1"
    assert ferry_payments(state, route.id) == {pay(yellow=1, locomotive=1)}
    after, _ = play(state, 0, claim(route.id, yellow=1, locomotive=1))
    assert after.route_owner[route.id] == 0


def test_e_fer_1_without_locomotives_no_ferry_can_be_claimed() -> None:
    state = position({colour: 8 for colour in COLOURS})
    claimable = {m.route for m in legal_moves(state, 0) if isinstance(m, mv.ClaimRoute)}
    ferries = {r.id for r in state.board.route_list if r.ferry_locomotives}
    assert claimable and not claimable & ferries
