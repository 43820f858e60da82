"""Stations (E-STA-1..5): building them, their cost, the route each lends at the end, and their points."""

from __future__ import annotations

import pytest

from games.engine import events as ev
from games.engine import legal_moves, score_ended
from games.engine import moves as mv
from games.engine.cards import COLOURS
from games.engine.scoring import StationUse
from games.engine.state import State
from tests.engine.builders import LOCO, arrange, of_type, pay, play, refused, route_points, scored, started, station


def position(hand: dict[str, int], stations: dict[str, int] | None = None, players: int = 2) -> State:
    return arrange(started("europe", players), hands={0: hand}, stations=stations or {})


def station_moves(state: State) -> list[mv.BuildStation]:
    return [m for m in legal_moves(state, 0) if isinstance(m, mv.BuildStation)]


# E-STA-1: where, and how many.


def test_e_sta_1_a_station_may_be_built_on_a_city_no_route_reaches_yet() -> None:
    state = position({"red": 1})
    assert not state.route_owner
    after, events = play(state, 0, station("edinburgh", red=1))
    assert of_type(events, ev.StationBuilt)[0].city == "edinburgh"
    assert after.station_owner == {"edinburgh": 0} and after.players[0].stations == 1


@pytest.mark.parametrize("owner", [0, 1])
def test_e_sta_1_at_most_one_station_per_city_for_all_players(owner: int) -> None:
    state = position({"red": 3}, stations={"wien": owner})
    cost = state.players[0].stations + 1
    assert refused(state, 0, station("wien", red=cost)).rule == "E-STA-1"
    assert not any(m.city == "wien" for m in station_moves(state))
    assert {m.city for m in station_moves(state)} == set(state.board.cities) - {"wien"}


def test_e_sta_1_at_most_3_stations_per_player() -> None:
    state = position({"red": 5, LOCO: 5}, stations={"wien": 0, "roma": 0, "paris": 0})
    assert refused(state, 0, station("berlin", red=4)).rule == "E-STA-1"
    assert refused(state, 0, station("berlin", red=3)).rule == "E-STA-1"
    assert station_moves(state) == []


def test_e_sta_1_at_most_one_station_per_turn() -> None:
    state = position({"red": 3})
    after, events = play(state, 0, station("wien", red=1))
    assert of_type(events, ev.TurnEnded)[0].seat == 0 and after.current == 1
    assert refused(after, 0, station("roma", red=2)).rule == "C-TRN-1"


def test_e_sta_1_only_cities_of_the_map() -> None:
    assert refused(position({"red": 1}), 0, station("atlantis", red=1)).rule == "E-STA-1"


# E-STA-2: 1, then 2, then 3 cards of one colour.


@pytest.mark.parametrize("card", [*COLOURS, LOCO])
def test_e_sta_2_the_first_station_costs_1_card_of_any_colour(card: str) -> None:
    state = position({card: 2})
    after, _ = play(state, 0, station("wien", **{card: 1}))
    assert after.players[0].hand == {card: 1}
    assert refused(state, 0, station("wien", **{card: 2})).rule == "E-STA-2"


def test_e_sta_2_the_second_station_costs_2_cards_of_one_colour() -> None:
    state = position({"red": 2, "blue": 1, LOCO: 1}, stations={"wien": 0})
    assert {m.cards for m in station_moves(state)} == {
        pay(red=2), pay(red=1, locomotive=1), pay(blue=1, locomotive=1)
    }
    assert refused(state, 0, station("roma", red=1)).rule == "E-STA-2"
    assert refused(state, 0, station("roma", red=1, blue=1)).rule == "E-STA-2"
    after, _ = play(state, 0, station("roma", red=2))
    assert after.players[0].stations == 2 and after.players[0].hand == {"blue": 1, LOCO: 1}


def test_e_sta_2_the_third_station_costs_3_cards_of_one_colour_locomotives_standing_in() -> None:
    state = position({"green": 2, LOCO: 3}, stations={"wien": 0, "roma": 0})
    assert refused(state, 0, station("paris", green=2)).rule == "E-STA-2"
    assert refused(state, 0, station("paris", green=2, locomotive=2)).rule == "E-STA-2"
    for paid in ({"green": 2, LOCO: 1}, {"green": 1, LOCO: 2}, {LOCO: 3}):
        after, events = play(state, 0, mv.BuildStation("paris", mv.payment(paid)))
        assert of_type(events, ev.StationBuilt)[0].cards == mv.payment(paid)
        assert after.players[0].stations == 3
        assert after.discards.get(LOCO, 0) - state.discards.get(LOCO, 0) == paid.get(LOCO, 0)


def test_e_sta_2_the_cards_must_be_in_the_hand() -> None:
    state = position({"red": 1}, stations={"wien": 0})
    assert refused(state, 0, station("roma", red=2)).rule == "E-STA-2"
    assert station_moves(state) == []


def test_e_sta_2_each_players_cost_counts_its_own_stations() -> None:
    state = position({"red": 1}, stations={"wien": 1, "roma": 1})
    after, _ = play(state, 0, station("paris", red=1))  # seat 1 built two; seat 0's first still costs 1
    assert after.station_owner["paris"] == 0


# E-STA-3: at the end, each station lends its owner one route of another player at its city.


def test_e_sta_3_a_station_lends_an_opponents_route_that_completes_a_ticket() -> None:
    routes = {"petrograd--wilno": 0, "kyiv--wilno": 1}
    without = scored("europe", routes, tickets={0: ["kyiv--petrograd"]})
    assert without.scores[0].ticket_points == -6
    for city in ("wilno", "kyiv"):  # the borrowed route touches the station's city at either end
        result = scored("europe", routes, stations={city: 0}, tickets={0: ["kyiv--petrograd"]})
        assert result.scores[0].ticket_points == 6
        assert result.scores[0].station_routes == (StationUse(city, "kyiv--wilno"),)


def test_e_sta_3_the_route_must_touch_the_stations_city() -> None:
    routes = {"petrograd--wilno": 0, "kyiv--wilno": 1}
    result = scored("europe", routes, stations={"riga": 0}, tickets={0: ["kyiv--petrograd"]})
    assert result.scores[0].ticket_points == -6
    assert result.scores[0].station_routes == (StationUse("riga", None),)


def test_e_sta_3_the_route_must_belong_to_another_player() -> None:
    result = scored("europe", {"petrograd--wilno": 0}, stations={"wilno": 0}, tickets={0: ["kyiv--petrograd"]})
    assert result.scores[0].ticket_points == -6  # kyiv--wilno is unclaimed: nothing to borrow


def test_e_sta_3_one_route_per_station_the_same_for_all_tickets_chosen_for_the_best_score() -> None:
    # Smyrna: seat 1 holds athina--smyrna (for athina--angora, 5) and palermo--smyrna (for roma--smyrna, 8).
    routes = {"angora--smyrna": 0, "palermo--roma": 0, "athina--smyrna": 1, "palermo--smyrna": 1}
    tickets = {0: ["athina--angora", "roma--smyrna"]}
    result = scored("europe", routes, stations={"smyrna": 0}, tickets=tickets)
    score = result.scores[0]
    assert [(t.ticket, t.completed) for t in score.tickets] == [("athina--angora", False), ("roma--smyrna", True)]
    assert score.ticket_points == 8 - 5  # not 5 + 8: one station, one route
    assert score.station_routes == (StationUse("smyrna", "palermo--smyrna"),)


def test_e_sta_3_two_stations_lend_two_routes() -> None:
    routes = {"angora--smyrna": 0, "palermo--roma": 0, "athina--smyrna": 1, "palermo--smyrna": 1}
    tickets = {0: ["athina--angora", "roma--smyrna"]}
    result = scored("europe", routes, stations={"smyrna": 0, "athina": 0}, tickets=tickets)
    score = result.scores[0]
    assert score.ticket_points == 5 + 8
    assert set(score.station_routes) == {StationUse("athina", "athina--smyrna"), StationUse("smyrna", "palermo--smyrna")}


def test_e_sta_3_the_game_end_records_the_route_each_station_used() -> None:
    state = arrange(started("europe", 2), routes={"petrograd--wilno": 0, "kyiv--wilno": 1},
                    stations={"kyiv": 0}, tickets={0: ["kyiv--petrograd"], 1: []}, trains={0: 3},
                    hands={0: {"black": 1}})
    state, _ = play(state, 0, mv.ClaimRoute("amsterdam--bruxelles", pay(black=1)))
    for seat in (1, 0):
        state, _ = play(state, seat, mv.DrawCard("deck"))
        state, events = play(state, seat, mv.DrawCard("deck"))
    assert of_type(events, ev.GameEnded)
    ended = score_ended(state)  # the workers score an ended game with this pure step
    assert ended.scores[0].station_routes == (StationUse("kyiv", "kyiv--wilno"),)
    assert ended.scores[0].ticket_points == 6


# E-STA-4: 4 points per station not built.


@pytest.mark.parametrize("built", [0, 1, 2, 3])
def test_e_sta_4_each_station_not_built_is_worth_4_points(built: int) -> None:
    stations = dict.fromkeys(["wien", "roma", "paris"][:built], 0)
    score = scored("europe", {"kyiv--wilno": 0}, stations=stations).scores[0]
    assert score.stations_built == built and score.stations_unbuilt == 3 - built
    assert score.station_points == 4 * (3 - built)
    assert score.total == route_points("europe", "kyiv--wilno") + 10 + 4 * (3 - built)


# E-STA-5: stations and borrowed routes never make the longest path longer.


def test_e_sta_5_stations_and_opponents_routes_never_count_for_the_longest_path() -> None:
    routes = {"petrograd--wilno": 0, "kyiv--warszawa": 0, "kyiv--wilno": 1}
    result = scored("europe", routes, stations={"wilno": 0, "kyiv": 0}, tickets={0: ["kyiv--petrograd"]})
    score = result.scores[0]
    assert score.ticket_points == 6  # the station does lend kyiv--wilno for the ticket...
    assert score.longest_path == 4  # ...but the path stays 4, not 4 + 2 + 4
    assert result.scores[1].longest_path == 2
    assert score.longest_bonus == 10 and result.scores[1].longest_bonus == 0
