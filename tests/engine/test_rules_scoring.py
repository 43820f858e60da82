"""Final scoring and places: the longest path (C-LNG-1), the score (E-SCR-1, U-SCR-1), ties (E-WIN-1, U-WIN-1).

Tie scenarios are built so that the totals are equal by the scoring rules (each test first checks that the
tie is really there), leaving only the tie-break under test to decide.
"""

from __future__ import annotations

import random

import pytest

from games.engine import events as ev
from games.engine import evolve, random_legal_move, score_ended
from games.engine.scoring import FinalScore, SeatScore
from tests.engine.builders import of_type, opening, play, route_points, scored

STATION_POINTS = 4  # E-STA-4
BONUS = 10  # C-LNG-1


def completed(score: SeatScore) -> int:
    return sum(t.completed for t in score.tickets)


def places(result: FinalScore) -> list[int]:
    return [s.place for s in result.scores]


# C-LNG-1: the longest continuous path.


def test_c_lng_1_the_longest_path_counts_trains_not_routes() -> None:
    one_long = {"budapest--kyiv": 0}  # 1 route, 6 trains
    three_short = {"amsterdam--bruxelles": 1, "bruxelles--paris--1": 1, "dieppe--paris": 1}  # 3 routes, 4 trains
    result = scored("europe", {**one_long, **three_short})
    assert [s.longest_path for s in result.scores] == [6, 4]
    assert [s.longest_bonus for s in result.scores] == [BONUS, 0]


@pytest.mark.parametrize(
    ("map_name", "routes"),
    [("europe", {"petrograd--wilno": 0, "kyiv--warszawa": 1}), ("usa", {"calgary--helena": 0, "denver--oklahoma-city": 1})],
)
def test_c_lng_1_all_players_tied_for_the_longest_path_get_the_bonus(map_name: str, routes: dict[str, int]) -> None:
    result = scored(map_name, {**routes}, players=3)
    assert [s.longest_path for s in result.scores] == [4, 4, 0]
    assert [s.longest_bonus for s in result.scores] == [BONUS, BONUS, 0]


def test_c_lng_1_a_path_may_pass_a_city_twice_and_contain_a_loop() -> None:
    # The triangle kyiv-wilno-warszawa with a tail to smolensk: smolensk-kyiv-wilno-warszawa-kyiv uses all 12 trains.
    routes = {"kyiv--wilno": 0, "warszawa--wilno": 0, "kyiv--warszawa": 0, "kyiv--smolensk": 0}
    assert scored("europe", routes).scores[0].longest_path == 2 + 3 + 4 + 3


def test_c_lng_1_a_path_never_uses_a_route_twice() -> None:
    # A star at kyiv: the path takes the two longest arms (4 + 3); going back along an arm is not allowed.
    routes = {"kyiv--wilno": 0, "kyiv--warszawa": 0, "kyiv--smolensk": 0}
    assert scored("europe", routes).scores[0].longest_path == 4 + 3


def test_c_lng_1_only_the_players_own_routes_and_separate_pieces_do_not_add_up() -> None:
    routes = {"petrograd--wilno": 0, "kyiv--wilno": 1, "kyiv--warszawa": 0, "brest--pamplona": 0}
    result = scored("europe", routes)
    assert result.scores[0].longest_path == 4


def test_c_lng_1_usa_the_longest_path_of_each_player() -> None:
    routes = {"el-paso--houston": 0, "dallas--houston--1": 0, "atlanta--charleston": 0, "calgary--helena": 1}
    result = scored("usa", routes)
    assert [s.longest_path for s in result.scores] == [7, 4]
    assert [s.longest_bonus for s in result.scores] == [BONUS, 0]


def test_c_lng_1_nobody_gets_the_bonus_without_a_route() -> None:
    assert [s.longest_bonus for s in scored("usa", {}).scores] == [0, 0]


# E-SCR-1 / U-SCR-1: the final score.


def test_e_scr_1_final_score_is_routes_tickets_unbuilt_stations_and_the_european_express() -> None:
    routes = {"petrograd--wilno": 0, "kyiv--smolensk": 0, "kyiv--wilno": 1, "budapest--kyiv": 1}
    tickets = {0: ["kyiv--petrograd", "sofia--smyrna"], 1: []}
    result = scored("europe", routes, stations={"wilno": 0}, tickets=tickets)
    zero, one = result.scores
    assert zero.route_points == route_points("europe", "petrograd--wilno", "kyiv--smolensk") == 7 + 4
    assert zero.ticket_points == 6 - 5  # kyiv--petrograd through the station (E-STA-3), sofia--smyrna missed
    assert zero.station_points == 2 * STATION_POINTS and zero.longest_bonus == 0
    assert zero.total == 11 + 1 + 8 + 0
    assert one.route_points == 2 + 15 and one.station_points == 3 * STATION_POINTS and one.longest_bonus == BONUS
    assert one.total == 17 + 0 + 12 + 10


def test_u_scr_1_final_score_is_routes_tickets_and_the_longest_path() -> None:
    routes = {"calgary--helena": 0, "helena--salt-lake-city": 0, "el-paso--houston": 1}
    result = scored("usa", routes, tickets={0: ["calgary--salt-lake-city", "denver--el-paso"], 1: ["denver--el-paso"]})
    zero, one = result.scores
    assert (zero.route_points, zero.ticket_points, zero.longest_bonus) == (7 + 4, 7 - 4, BONUS)  # 7 trains
    assert (one.route_points, one.ticket_points, one.longest_bonus) == (15, -4, 0)  # 6 trains
    assert zero.station_points == one.station_points == 0  # no stations on this map
    assert [s.total for s in result.scores] == [11 + 3 + 10, 15 - 4]


@pytest.mark.parametrize(("map_name", "rule"), [("europe", "E-SCR-1"), ("usa", "U-SCR-1")])
@pytest.mark.parametrize("seed", range(3))
def test_e_scr_1_and_u_scr_1_every_finished_game_adds_up(map_name: str, rule: str, seed: int) -> None:
    rng = random.Random(seed)
    state, _ = opening(map_name, 4, seed)
    claimed = [0] * 4
    while not state.finished:
        seat = state.deciders()[0]
        move = random_legal_move(state, seat, rng)
        assert move is not None
        state, events = play(state, seat, move, seed=rng.randrange(1 << 30))
        for event in of_type(events, ev.RouteClaimed):
            claimed[event.seat] += event.points
    for score, player in zip(score_ended(state).scores, state.players, strict=True):
        assert score.route_points == claimed[score.seat] == player.score  # C-CLM-2: scored as claimed
        assert score.total == score.route_points + score.ticket_points + score.station_points + score.longest_bonus, rule
        assert score.station_points == STATION_POINTS * (state.board.stations_per_player - player.stations)


# E-WIN-1: ties on the score.


def test_e_win_1_the_highest_score_wins_whatever_the_tickets() -> None:
    routes = {"petrograd--wilno": 0, "kyiv--wilno": 0, "budapest--kyiv": 1, "rostov--sochi": 1}
    result = scored("europe", routes, tickets={0: ["kyiv--petrograd"]})
    assert result.scores[1].total > result.scores[0].total and completed(result.scores[0]) == 1
    assert result.winner_seats == (1,) and places(result) == [2, 1]


def test_e_win_1_a_tie_goes_to_the_most_completed_tickets() -> None:
    # Seat 0: 7 + 2 route points, +6 ticket, 12 for stations, 10 bonus (6 trains). Seat 1: 15, 12, 10 (6 trains).
    routes = {"petrograd--wilno": 0, "kyiv--wilno": 0, "budapest--kyiv": 1}
    result = scored("europe", routes, tickets={0: ["kyiv--petrograd"]})
    assert result.scores[0].total == result.scores[1].total == 37
    assert result.winner_seats == (0,) and places(result) == [1, 2]


def test_e_win_1_then_the_fewest_stations_built() -> None:
    # Seat 0: 7 + 4 route points, one station (8), bonus. Seat 1: 7 route points, no station (12), bonus.
    routes = {"petrograd--wilno": 0, "kyiv--smolensk": 0, "kyiv--warszawa": 1}
    result = scored("europe", routes, stations={"paris": 0})
    assert result.scores[0].total == result.scores[1].total == 29
    assert completed(result.scores[0]) == completed(result.scores[1]) == 0
    assert result.winner_seats == (1,) and places(result) == [2, 1]


def test_e_win_1_completed_tickets_come_before_stations() -> None:
    # Seat 0: 9 route points, +6 ticket, one station (8), bonus (6 trains). Seat 1: 7 + 2 + 2, no station, bonus.
    routes = {"petrograd--wilno": 0, "kyiv--wilno": 0, "kyiv--warszawa": 1, "danzig--warszawa": 1, "rostov--sochi": 1}
    result = scored("europe", routes, stations={"paris": 0}, tickets={0: ["kyiv--petrograd"]})
    assert result.scores[0].total == result.scores[1].total == 33
    assert result.winner_seats == (0,)


def test_e_win_1_then_the_holder_of_the_longest_path_bonus() -> None:
    # Seat 0: 15 route points and the bonus (6 trains). Seat 1: 7 + 7 + 7 + 4 in four separate routes (4 trains).
    routes = {"budapest--kyiv": 0, "petrograd--wilno": 1, "brest--pamplona": 1, "marseille--roma": 1, "kyiv--smolensk": 1}
    result = scored("europe", routes)
    assert result.scores[0].total == result.scores[1].total == 37
    assert [s.longest_bonus for s in result.scores] == [BONUS, 0]
    assert result.winner_seats == (0,) and places(result) == [1, 2]


def test_e_win_1_fewest_stations_come_before_the_longest_path_bonus() -> None:
    # Seat 0: 7 + 7 + 7, no station, no bonus. Seat 1: 15, one station (8), the bonus.
    routes = {"petrograd--wilno": 0, "brest--pamplona": 0, "marseille--roma": 0, "budapest--kyiv": 1}
    result = scored("europe", routes, stations={"paris": 1})
    assert result.scores[0].total == result.scores[1].total == 33
    assert result.winner_seats == (0,)


def test_e_win_1_players_still_tied_share_the_place() -> None:
    routes = {"petrograd--wilno": 0, "kyiv--warszawa": 1, "danzig--warszawa": 2}
    result = scored("europe", routes, players=3)
    assert result.scores[0].total == result.scores[1].total > result.scores[2].total
    assert result.winner_seats == (0, 1) and places(result) == [1, 1, 3]


def test_e_win_1_the_game_score_names_the_winners() -> None:
    state, _ = opening("europe", 2, seed=4)
    rng = random.Random(4)
    while not state.finished:
        seat = state.deciders()[0]
        move = random_legal_move(state, seat, rng)
        assert move is not None
        state, _ = play(state, seat, move, seed=rng.randrange(1 << 30))
    assert not state.scores  # ended, not yet scored: the workers score it
    state = evolve(state, score_ended(state))
    best = max(s.total for s in state.scores)
    assert set(state.winner_seats) <= {s.seat for s in state.scores if s.total == best}
    assert all(state.scores[w].place == 1 for w in state.winner_seats)


# U-WIN-1: ties on the original map.


def test_u_win_1_a_tie_goes_to_the_most_completed_tickets() -> None:
    # Seat 0: 7 + 4 route points, +7 ticket, bonus (7 trains). Seat 1: 15 + 1 + 2 route points, bonus (7 trains).
    routes = {"calgary--helena": 0, "helena--salt-lake-city": 0,
              "el-paso--houston": 1, "dallas--houston--1": 1, "atlanta--charleston": 1}
    result = scored("usa", routes, tickets={0: ["calgary--salt-lake-city"]})
    assert result.scores[0].total == result.scores[1].total == 28
    assert result.winner_seats == (0,) and places(result) == [1, 2]


def test_u_win_1_then_the_holder_of_the_longest_path_bonus() -> None:
    # Seat 0: 15 and the bonus (6 trains). Seat 1: 7 + 7 + 7 + 4 in four separate routes (4 trains).
    routes = {"el-paso--houston": 0, "atlanta--new-orleans--1": 1, "calgary--helena": 1, "denver--oklahoma-city": 1,
              "chicago--duluth": 1}
    result = scored("usa", routes)
    assert result.scores[0].total == result.scores[1].total == 25
    assert result.winner_seats == (0,) and places(result) == [1, 2]


def test_u_win_1_players_still_tied_share_the_place() -> None:
    routes = {"calgary--helena": 0, "denver--oklahoma-city": 1, "atlanta--charleston": 2}
    result = scored("usa", routes, players=3)
    assert result.scores[0].total == result.scores[1].total > result.scores[2].total
    assert result.winner_seats == (0, 1) and places(result) == [1, 1, 3]


def test_u_win_1_the_highest_score_wins() -> None:
    result = scored("usa", {"calgary--helena": 0, "el-paso--houston": 1}, tickets={0: ["denver--el-paso"]})
    assert result.winner_seats == (1,) and places(result) == [2, 1]
