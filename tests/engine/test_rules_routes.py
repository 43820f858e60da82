"""Claiming routes (C-CLM-1..3) and double routes (C-DBL-1..2), with the rule books' payment examples."""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine import events as ev
from games.engine import legal_moves
from games.engine import moves as mv
from games.engine.board import load_board
from games.engine.cards import COLOURS
from games.engine.state import State
from tests.engine.builders import LOCO, arrange, claim, of_type, pay, play, refused, started

NO_LOCOS = ["white"] * 10  # a deck that never adds to a tunnel paid with locomotives only (E-TUN-2)


def position(map_name: str, hand: dict[str, int], players: int = 2, **parts: object) -> State:
    base = started(map_name, players)
    defaults: dict[str, object] = {"deck": NO_LOCOS, "discards": {}}
    return arrange(base, hands={0: hand}, **{**defaults, **parts})  # type: ignore[arg-type]


def claim_payments(state: State, route: str) -> set[mv.Payment]:
    return {m.cards for m in legal_moves(state, 0) if isinstance(m, mv.ClaimRoute) and m.route == route}


# C-CLM-1: cards equal in number and colour to the route; gray takes any one colour; locomotives are wild.


def test_c_clm_1_rule_book_example_1_a_blue_route_of_3() -> None:
    # Europe, example 1: 3 blue; 2 blue + 1 locomotive; 1 blue + 2 locomotives; 3 locomotives.
    route = load_board("europe").routes["constantinople--sofia"]
    assert (route.color, route.length, route.tunnel, route.ferry_locomotives) == ("blue", 3, False, 0)
    state = position("europe", {"blue": 3, LOCO: 3, "red": 3})
    examples = {pay(blue=3), pay(blue=2, locomotive=1), pay(blue=1, locomotive=2), pay(locomotive=3)}
    assert claim_payments(state, route.id) == examples
    for paid in examples:
        after, events = play(state, 0, mv.ClaimRoute(route.id, paid))
        assert of_type(events, ev.RouteClaimed)[0].cards == paid
        assert after.route_owner[route.id] == 0
    assert refused(state, 0, claim(route.id, red=3)).rule == "C-CLM-1"
    assert refused(state, 0, claim(route.id, red=1, locomotive=2)).rule == "C-CLM-1"


def test_c_clm_1_rule_book_example_2_a_gray_route_of_2() -> None:
    # Europe, example 2: 2 red; 1 yellow + 1 locomotive; 2 locomotives.
    route = load_board("europe").routes["kyiv--wilno"]
    assert (route.color, route.length, route.tunnel, route.ferry_locomotives) == ("gray", 2, False, 0)
    state = position("europe", {"red": 2, "yellow": 1, LOCO: 2})
    for paid in (pay(red=2), pay(yellow=1, locomotive=1), pay(locomotive=2)):
        after, _ = play(state, 0, mv.ClaimRoute(route.id, paid))
        assert after.route_owner[route.id] == 0
    assert refused(state, 0, claim(route.id, red=1, yellow=1)).rule == "C-CLM-1"
    assert claim_payments(state, route.id) == {
        pay(red=2), pay(red=1, locomotive=1), pay(yellow=1, locomotive=1), pay(locomotive=2)
    }


def test_c_clm_1_usa_rule_book_examples_montreal_new_york_and_montreal_toronto() -> None:
    board = load_board("usa")
    blue, gray = board.routes["montreal--new-york"], board.routes["montreal--toronto"]
    assert (blue.color, blue.length, gray.color, gray.length) == ("blue", 3, "gray", 3)
    state = position("usa", {"blue": 3, "green": 3, "red": 2})
    assert claim_payments(state, blue.id) == {pay(blue=3)}  # example 1: three blue cards
    assert claim_payments(state, gray.id) == {pay(blue=3), pay(green=3)}  # example 2: any three of one colour
    assert refused(state, 0, claim(gray.id, red=2, green=1)).rule == "C-CLM-1"
    assert refused(state, 0, claim(blue.id, green=3)).rule == "C-CLM-1"


@pytest.mark.parametrize("cards", [{"red": 1}, {"red": 3}, {"red": 2, LOCO: 1}])
def test_c_clm_1_the_number_of_cards_is_the_length_of_the_route(cards: dict[str, int]) -> None:
    state = position("europe", {"red": 3, LOCO: 1})
    assert refused(state, 0, mv.ClaimRoute("kyiv--wilno", mv.payment(cards))).rule == "C-CLM-1"


def test_c_clm_1_the_cards_must_be_in_the_hand() -> None:
    state = position("europe", {"red": 1, LOCO: 1})
    assert refused(state, 0, claim("kyiv--wilno", red=2)).rule == "C-CLM-1"
    assert refused(state, 0, claim("kyiv--wilno", locomotive=2)).rule == "C-CLM-1"


def test_c_clm_1_a_payment_names_real_cards_in_positive_numbers() -> None:
    state = position("europe", {"red": 3})
    assert refused(state, 0, mv.ClaimRoute("kyiv--wilno", (("gold", 2),))).rule == "C-CLM-1"
    assert refused(state, 0, mv.ClaimRoute("kyiv--wilno", (("red", 3), (LOCO, -1)))).rule == "C-CLM-1"
    assert refused(state, 0, claim("nowhere--atlantis", red=2)).rule == "C-CLM-1"


def test_c_clm_1_a_claimed_route_is_closed() -> None:
    state = position("europe", {"red": 2}, routes={"kyiv--wilno": 1})
    assert refused(state, 0, claim("kyiv--wilno", red=2)).rule == "C-CLM-1"
    assert not claim_payments(state, "kyiv--wilno")


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_c_clm_1_one_train_per_space_and_enough_trains_left(map_name: str) -> None:
    route = next(r for r in load_board(map_name).route_list if r.length == 4 and r.color != "gray" and not r.tunnel)
    hand = {route.color: 4}
    short = position(map_name, hand, trains={0: 3})
    assert refused(short, 0, claim(route.id, **hand)).rule == "C-CLM-1"
    assert not claim_payments(short, route.id)
    after, _ = play(position(map_name, hand, trains={0: 4}), 0, claim(route.id, **hand))
    assert after.players[0].trains == 0
    after, _ = play(position(map_name, hand), 0, claim(route.id, **hand))
    assert after.players[0].trains == 45 - 4


def test_c_clm_1_one_route_per_turn() -> None:
    state = position("europe", {"red": 4, "black": 1})
    after, events = play(state, 0, claim("kyiv--wilno", red=2))
    assert len(of_type(events, ev.RouteClaimed)) == 1
    assert of_type(events, ev.TurnEnded)[0].seat == 0 and after.current == 1


# C-CLM-2: route points by length.

POINTS = {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15, 8: 21}  # the table of C-CLM-2


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_c_clm_2_the_board_data_scores_routes_by_the_table(map_name: str) -> None:
    board = load_board(map_name)
    assert board.route_points == {n: POINTS[n] for n in {r.length for r in board.route_list}}


@pytest.mark.parametrize(
    ("map_name", "length"),
    [("europe", n) for n in (1, 2, 3, 4, 6, 8)] + [("usa", n) for n in (1, 2, 3, 4, 5, 6)],
)
def test_c_clm_2_a_claimed_route_scores_at_once_by_its_length(map_name: str, length: int) -> None:
    route = next(r for r in load_board(map_name).route_list if r.length == length)
    state = position(map_name, {LOCO: length})
    state.players[0].score = 5
    after, events = play(state, 0, claim(route.id, locomotive=length))
    assert of_type(events, ev.RouteClaimed)[0].points == POINTS[length]
    assert after.players[0].score == 5 + POINTS[length]


# C-CLM-3: the played cards are discarded.


def test_c_clm_3_played_cards_go_to_the_discard_pile() -> None:
    state = position("europe", {"purple": 4, LOCO: 2, "red": 1}, discards={"purple": 1, "white": 2})
    after, _ = play(state, 0, claim("athina--sofia", purple=2, locomotive=1))
    assert after.discards == {"purple": 3, "white": 2, LOCO: 1}
    assert after.players[0].hand == {"purple": 2, LOCO: 1, "red": 1}


# C-DBL-1 / C-DBL-2: double routes.


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_c_dbl_1_routes_between_the_same_two_cities_are_a_double_route(map_name: str) -> None:
    board = load_board(map_name)
    between = Counter(frozenset((r.a, r.b)) for r in board.route_list)
    for route in board.route_list:
        if between[frozenset((route.a, route.b))] == 2:
            assert route.twin is not None
            twin = board.routes[route.twin]
            assert {twin.a, twin.b} == {route.a, route.b} and twin.length == route.length
        else:
            assert route.twin is None


@pytest.mark.parametrize(("map_name", "double"), [("europe", "berlin--frankfurt"), ("usa", "boston--montreal")])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_c_dbl_1_one_player_never_claims_both_routes_of_a_double(map_name: str, double: str, players: int) -> None:
    state = position(map_name, {LOCO: 6}, players=players, routes={f"{double}--1": 0})
    length = state.board.routes[f"{double}--2"].length
    assert refused(state, 0, claim(f"{double}--2", locomotive=length)).rule == "C-DBL-1"
    assert not claim_payments(state, f"{double}--2")


@pytest.mark.parametrize(("map_name", "double"), [("europe", "berlin--frankfurt"), ("usa", "boston--montreal")])
@pytest.mark.parametrize("players", [2, 3])
def test_c_dbl_2_with_2_or_3_players_the_other_route_of_a_double_is_closed(
    map_name: str, double: str, players: int
) -> None:
    state = position(map_name, {LOCO: 6}, players=players, routes={f"{double}--2": players - 1})
    length = state.board.routes[f"{double}--1"].length
    assert refused(state, 0, claim(f"{double}--1", locomotive=length)).rule == "C-DBL-2"
    assert not claim_payments(state, f"{double}--1")


@pytest.mark.parametrize(("map_name", "double"), [("europe", "berlin--frankfurt"), ("usa", "boston--montreal")])
@pytest.mark.parametrize("players", [4, 5])
def test_c_dbl_2_with_4_or_5_players_another_player_may_claim_the_other_route(
    map_name: str, double: str, players: int
) -> None:
    state = position(map_name, {LOCO: 6}, players=players, routes={f"{double}--2": players - 1})
    length = state.board.routes[f"{double}--1"].length
    after, _ = play(state, 0, claim(f"{double}--1", locomotive=length))
    assert after.route_owner == {f"{double}--1": 0, f"{double}--2": players - 1}


def test_c_clm_1_gray_takes_any_one_colour() -> None:
    state = position("europe", {colour: 2 for colour in COLOURS})
    assert claim_payments(state, "kyiv--wilno") == {pay(**{colour: 2}) for colour in COLOURS}
