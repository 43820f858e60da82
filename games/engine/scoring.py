"""Final scoring: route points, tickets, stations, the longest path and places (C-TKT-3, C-LNG-1,
E-STA-3..5, E-WIN-1, U-WIN-1).

Pure and exact. Each station's borrowed route (E-STA-3) is chosen by trying every combination of the
owner's stations' candidate routes and keeping the best for that owner; candidates that join the same two
pieces of the owner's network are interchangeable, so only one of them is tried.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING

from .paths import components, joined, longest_trail

if TYPE_CHECKING:
    from .board import Board

STATION_POINTS = 4  # E-STA-4


@dataclass(frozen=True, slots=True)
class TicketResult:
    ticket: str
    points: int  # signed: + when completed, - when not (C-TKT-3)
    completed: bool


@dataclass(frozen=True, slots=True)
class StationUse:
    city: str
    route: str | None  # the opponent route the station lends its owner, None when none helps (E-STA-3)


@dataclass(frozen=True, slots=True)
class SeatScore:
    seat: int
    total: int
    route_points: int
    ticket_points: int
    tickets: tuple[TicketResult, ...]
    stations_built: int
    stations_unbuilt: int
    station_points: int
    station_routes: tuple[StationUse, ...]
    longest_path: int  # in trains
    longest_bonus: int  # points
    place: int  # 1 = winner; tied players share a place (E-WIN-1, U-WIN-1)


@dataclass(frozen=True, slots=True)
class FinalScore:
    scores: tuple[SeatScore, ...]
    winner_seats: tuple[int, ...]


def final_score(
    board: Board,
    players: int,
    route_owner: Mapping[str, int],
    station_owner: Mapping[str, int],
    tickets: Sequence[Sequence[str]],
) -> FinalScore:
    """Every seat's final score and place."""
    owned, stations = _holdings(players, route_owner, station_owner)
    longest = [
        longest_trail((r.a, r.b, r.length) for r in (board.routes[i] for i in owned[seat]))
        for seat in range(players)
    ]
    top = max(longest, default=0)
    fields = []  # each seat's SeatScore fields but its place
    keys = []  # what places the seats (E-WIN-1, U-WIN-1)
    for seat in range(players):
        route_points = sum(board.route_points[board.routes[r].length] for r in owned[seat])
        results, uses = score_tickets(board, seat, owned[seat], stations[seat], route_owner, tickets[seat])
        built = len(stations[seat])
        unbuilt = board.stations_per_player - built
        bonus = board.longest_path_bonus if top > 0 and longest[seat] == top else 0
        ticket_points = sum(t.points for t in results)
        total = route_points + ticket_points + unbuilt * STATION_POINTS + bonus
        fields.append((
            seat, total, route_points, ticket_points, results, built, unbuilt, unbuilt * STATION_POINTS, uses,
            longest[seat], bonus,
        ))
        completed = sum(1 for t in results if t.completed)
        keys.append((total, completed, -built, bonus > 0) if board.has_stations else (total, completed, bonus > 0))
    places = [1 + sum(1 for other in keys if other > key) for key in keys]  # tied players share a place
    scores = tuple(SeatScore(*seat_fields, place=place) for seat_fields, place in zip(fields, places, strict=True))
    return FinalScore(scores, tuple(score.seat for score in scores if score.place == 1))


def final_totals(
    board: Board,
    players: int,
    route_owner: Mapping[str, int],
    station_owner: Mapping[str, int],
    tickets: Sequence[Sequence[str]],
) -> list[int]:
    """Every seat's final total (`final_score`'s `SeatScore.total`) and nothing else: for bots that score many
    sampled games. A seat whose routes weigh less than a longest path already found cannot have the longest,
    so its own is not searched."""
    owned, stations = _holdings(players, route_owner, station_owner)
    routes, points = board.routes, board.route_points
    weight = [sum(routes[r].length for r in owned[seat]) for seat in range(players)]
    longest = [0] * players
    top = 0
    for seat in sorted(range(players), key=lambda i: -weight[i]):
        if weight[seat] >= top:  # (a path is never longer than the routes it runs on)
            # as long as the longest so far or longer: exact (shorter: below the top, all that counts)
            edges = ((r.a, r.b, r.length) for r in (routes[i] for i in owned[seat]))
            longest[seat] = longest_trail(edges, max(top - 1, 0))
            top = max(top, longest[seat])
    totals = []
    for seat in range(players):
        route_points = sum(points[routes[r].length] for r in owned[seat])
        results, _ = score_tickets(board, seat, owned[seat], stations[seat], route_owner, tickets[seat])
        unbuilt = board.stations_per_player - len(stations[seat])
        bonus = board.longest_path_bonus if top > 0 and longest[seat] == top else 0
        totals.append(route_points + sum(t.points for t in results) + unbuilt * STATION_POINTS + bonus)
    return totals


def _holdings(
    players: int, route_owner: Mapping[str, int], station_owner: Mapping[str, int]
) -> tuple[list[list[str]], list[list[str]]]:
    """Each seat's routes (in the order owned) and its stations' cities (in name order)."""
    owned: list[list[str]] = [[] for _ in range(players)]
    for route_id, seat in route_owner.items():
        owned[seat].append(route_id)
    stations: list[list[str]] = [[] for _ in range(players)]
    for city, seat in sorted(station_owner.items()):
        stations[seat].append(city)
    return owned, stations


def score_tickets(
    board: Board,
    seat: int,
    own_routes: Sequence[str],
    station_cities: Sequence[str],
    route_owner: Mapping[str, int],
    tickets: Sequence[str],
) -> tuple[tuple[TicketResult, ...], tuple[StationUse, ...]]:
    """The seat's ticket results with the best choice of route for each of its stations (E-STA-3)."""
    piece = components((board.routes[r].a, board.routes[r].b) for r in own_routes)
    wanted = [board.tickets[t] for t in tickets]
    ends = [(piece.get(t.a, t.a), piece.get(t.b, t.b)) for t in wanted]
    options = [_station_options(board, seat, city, route_owner, piece) for city in station_cities]
    choice: tuple[str | None, ...] = tuple(None for _ in station_cities)
    done = [a == b for a, b in ends]
    open_ends = [pair for pair, ok in zip(ends, done, strict=True) if not ok]
    if open_ends and any(len(o) > 1 for o in options):
        # Only the tickets the seat's own routes leave open can change; score each choice on those.
        # Best for the owner: most ticket points, then most tickets completed (E-WIN-1's first tie-break).
        joins = {  # the two pieces of the network each candidate route joins
            r: (piece.get(board.routes[r].a, board.routes[r].a), piece.get(board.routes[r].b, board.routes[r].b))
            for o in options for r in o if r is not None
        }
        # A ticket only joins when both its ends' pieces are among those the candidates join: the others can
        # change no choice's score, and leave it out.
        touched = {end for pair in joins.values() for end in pair}
        still_open = [
            (t.points, a, b)
            for t, (a, b) in zip(wanted, ends, strict=True)
            if a != b and a in touched and b in touched
        ]
        best = (0, 0)
        most = (sum(p for p, _, _ in still_open), len(still_open))  # no choice scores more: the first to score so ends it
        for candidate in product(*options) if still_open else ():
            lifted = components(joins[r] for r in candidate if r is not None)
            points = completed = 0
            for ticket_points, a, b in still_open:
                lifted_a = lifted.get(a)
                if lifted_a is not None and lifted_a == lifted.get(b):  # (`joined`: a and b differ)
                    points += ticket_points
                    completed += 1
            if (points, completed) > best:
                best, choice = (points, completed), candidate
                if best == most:
                    break
        if best[1]:
            lifted = components(joins[r] for r in choice if r is not None)
            done = [joined(lifted, a, b) for a, b in ends]
    results = tuple(
        TicketResult(t.id, t.points if ok else -t.points, ok) for t, ok in zip(wanted, done, strict=True)
    )
    uses = tuple(StationUse(city, route) for city, route in zip(station_cities, choice, strict=True))
    return results, uses


def _station_options(
    board: Board, seat: int, city: str, route_owner: Mapping[str, int], piece: Mapping[Hashable, Hashable]
) -> list[str | None]:
    """None, then one opponent route per distinct pair of pieces it could join at `city`."""
    options: list[str | None] = [None]
    seen: set[tuple[object, object]] = set()
    for route in board.city_routes[city]:
        owner = route_owner.get(route.id)
        if owner is None or owner == seat:
            continue
        key = (piece.get(route.a, route.a), piece.get(route.b, route.b))
        if key[0] == key[1] or key in seen or key[::-1] in seen:
            continue  # joins nothing new
        seen.add(key)
        options.append(route.id)
    return options
