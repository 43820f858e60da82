"""Station assignment (E-STA-3) and ticket scoring (C-TKT-3) against brute force on random boards."""

from __future__ import annotations

import random
from itertools import product

import pytest

from games.engine.board import load_board
from games.engine.scoring import final_score, final_totals, score_tickets


def ticket_outcome(board, routes, tickets) -> tuple[int, int]:
    """(ticket points, tickets completed) when exactly `routes` may be used."""
    neighbours: dict[str, set[str]] = {}
    for r in routes:
        route = board.routes[r]
        neighbours.setdefault(route.a, set()).add(route.b)
        neighbours.setdefault(route.b, set()).add(route.a)
    total = completed = 0
    for t in tickets:
        ticket = board.tickets[t]
        seen, frontier = {ticket.a}, [ticket.a]
        while frontier:
            city = frontier.pop()
            for other in neighbours.get(city, ()):
                if other not in seen:
                    seen.add(other)
                    frontier.append(other)
        total += ticket.points if ticket.b in seen else -ticket.points
        completed += ticket.b in seen
    return total, completed


def random_position(seed: int):
    rng = random.Random(seed)
    board = load_board("europe")
    players = rng.randint(2, 4)
    routes = rng.sample(list(board.routes), rng.randint(10, 60))
    owner = {r: rng.randrange(players) for r in routes}
    cities = rng.sample(list(board.cities), rng.randint(0, 3 * players))
    stations: dict[str, int] = {}
    for city in cities:
        seat = rng.randrange(players)
        if sum(1 for s in stations.values() if s == seat) < 3:
            stations[city] = seat
    tickets = [rng.sample(list(board.tickets), rng.randint(1, 5)) for _ in range(players)]
    return board, players, owner, stations, tickets


@pytest.mark.parametrize("seed", range(150))
def test_e_sta_3_station_choice_maximises_owner_score(seed: int) -> None:
    board, players, owner, stations, tickets = random_position(seed)
    for seat in range(players):
        own = [r for r, s in owner.items() if s == seat]
        cities = sorted(c for c, s in stations.items() if s == seat)
        choices = [
            [None, *(r.id for r in board.city_routes[c] if owner.get(r.id) not in (None, seat))] for c in cities
        ]
        # Most points, then most tickets completed (the first tie-break of E-WIN-1).
        brute = max(ticket_outcome(board, own + [r for r in choice if r], tickets[seat]) for choice in product(*choices))
        results, uses = score_tickets(board, seat, own, cities, owner, tickets[seat])
        assert (sum(t.points for t in results), sum(t.completed for t in results)) == brute
        # The recorded choice is a legal one and really scores that much.
        assert [u.city for u in uses] == cities
        for use, options in zip(uses, choices, strict=True):
            assert use.route in options
        chosen = [u.route for u in uses if u.route]
        assert ticket_outcome(board, own + chosen, tickets[seat]) == brute


@pytest.mark.parametrize("seed", range(40))
def test_c_tkt_3_e_sta_4_c_lng_1_totals_add_up(seed: int) -> None:
    board, players, owner, stations, tickets = random_position(seed)
    result = final_score(board, players, owner, stations, tickets)
    best_path = max(s.longest_path for s in result.scores)
    for s in result.scores:
        own = [r for r, o in owner.items() if o == s.seat]
        assert s.route_points == sum(board.route_points[board.routes[r].length] for r in own)
        assert s.stations_unbuilt == 3 - sum(1 for o in stations.values() if o == s.seat)
        assert s.longest_bonus == (10 if s.longest_path == best_path and best_path > 0 else 0)
        assert s.total == s.route_points + sum(t.points for t in s.tickets) + 4 * s.stations_unbuilt + s.longest_bonus
    assert set(result.winner_seats) == {s.seat for s in result.scores if s.place == 1}


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_c_lng_1_the_bots_totals_are_the_final_scores_totals(map_name: str) -> None:
    """`final_totals` (what sampled games are scored by) skips the longest path of a seat that cannot reach the
    top and remembers pieces it searched: every total is still `final_score`'s, asked twice (the second time from
    what it remembered)."""
    board = load_board(map_name)
    for seed in range(150):
        rng = random.Random(f"{map_name}:{seed}")
        players = rng.randint(2, 5)
        routes = rng.sample(list(board.routes), rng.randint(5, 90))
        owner = {r: rng.randrange(players) for r in routes}
        stations = {}
        if board.has_stations:
            for city in rng.sample(list(board.cities), rng.randint(0, 3 * players)):
                seat = rng.randrange(players)
                if sum(1 for s in stations.values() if s == seat) < 3:
                    stations[city] = seat
        tickets = [rng.sample(list(board.tickets), rng.randint(1, 5)) for _ in range(players)]
        expected = [s.total for s in final_score(board, players, owner, stations, tickets).scores]
        assert final_totals(board, players, owner, stations, tickets) == expected, seed
        assert final_totals(board, players, owner, stations, tickets) == expected, seed
