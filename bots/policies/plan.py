"""Route planning for bots: the board as one seat sees it, cheapest paths, and a network for its tickets.

Everything here reads a seat's view (claimed routes, stations, its own trains and tickets) and the board data,
never a State. `position(view)` is what the planner needs from a view; `plan_network(position, tickets)` joins
the tickets' cities with few new trains: a greedy Steiner tree (the tickets in turn, each by its cheapest path,
routes already owned or planned costing nothing). On Europe a path may borrow one opponent route through a
station (E-STA-3) when that beats every free detour, which is how a cut ticket gets reconnected. Plans are
cached: a position and a ticket set always give the same plan, and draws leave the board unchanged.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from games.engine.board import Board, Route, load_board
from games.engine.paths import components, joined

TUNNEL_PENALTY = 1.0  # a tunnel may ask for up to 3 more cards (E-TUN-2)
FERRY_PENALTY = 1.0  # per locomotive a ferry demands: the scarcest card
STATION_PENALTY = 8.0  # a built station loses its 4 points (E-STA-4) and costs cards: worth it for a cut or a long detour
OWN_STATION_PENALTY = 0.5  # a station already built lends its route for free, but only one route (E-STA-3)
SMALL_GAME = 3  # C-DBL-2: with 2 or 3 players a double route closes once one of its pair is claimed

Step = tuple[str, str | None]  # (route id, city of the station that borrows it, or None for a route to own)


@dataclass(frozen=True)
class Position:
    """What planning needs from one seat's view. Hashable (the frozensets) so plans can be cached."""

    map_name: str
    seat: int
    players: int
    trains: int
    stations_left: int
    claimed: frozenset[tuple[str, int]]
    built: frozenset[tuple[str, int]]
    owner: dict[str, int] = field(compare=False, hash=False)
    station_owner: dict[str, int] = field(compare=False, hash=False)

    @property
    def board(self) -> Board:
        return load_board(self.map_name)


def position(view: Mapping[str, Any]) -> Position:
    seat = view["your_seat"]
    me = view["players"][seat]
    owner = dict(view["routes"])
    stations = dict(view["stations"])
    return Position(
        map_name=view["map"],
        seat=seat,
        players=len(view["players"]),
        trains=me["trains"],
        stations_left=me["stations_left"],
        claimed=frozenset(owner.items()),
        built=frozenset(stations.items()),
        owner=owner,
        station_owner=stations,
    )


@dataclass(frozen=True)
class Plan:
    """A network for a set of tickets: routes still to claim, stations to build, and what cannot be done."""

    routes: tuple[str, ...]  # routes to claim, cheapest path order
    stations: tuple[tuple[str, str], ...]  # (city, opponent route it borrows) for stations to build
    trains: int  # trains the routes to claim take
    kept: tuple[str, ...]  # tickets the plan completes (done already or to be done)
    lost: tuple[str, ...]  # tickets it gives up: cut off, or beyond the trains


@cache
def _adjacency(map_name: str) -> dict[str, tuple[tuple[str, Route], ...]]:
    board = load_board(map_name)
    return {city: tuple((r.b if r.a == city else r.a, r) for r in routes) for city, routes in board.city_routes.items()}


def claimable(pos: Position, route: Route) -> bool:
    """Whether the seat may still claim `route` some day (free, not barred by a double, within its trains)."""
    if route.id in pos.owner or route.length > pos.trains:
        return False
    twin_owner = pos.owner.get(route.twin) if route.twin else None
    return twin_owner is None or (twin_owner != pos.seat and pos.players > SMALL_GAME)


def route_cost(route: Route) -> float:
    return route.length + TUNNEL_PENALTY * route.tunnel + FERRY_PENALTY * route.ferry_locomotives


@lru_cache(maxsize=512)
def _weights(pos: Position) -> dict[str, float]:
    """Cost of every route the seat can use for itself: 0 when owned, its penalised length when claimable."""
    weights: dict[str, float] = {}
    for route in pos.board.route_list:
        if pos.owner.get(route.id) == pos.seat:
            weights[route.id] = 0.0
        elif claimable(pos, route):
            weights[route.id] = route_cost(route)
    return weights


def _borrow(pos: Position, route: Route, lenders: Mapping[str, str | None], can_build: bool) -> tuple[float, str] | None:
    """The cheapest station to borrow an opponent's `route` through, or None. `lenders` maps cities whose
    station (built or planned) is already spoken for to the route it lends (None: a built one, still free)."""
    best: tuple[float, str] | None = None
    for city in (route.a, route.b):
        if city in lenders:
            lent = lenders[city]
            if lent == route.id or (lent is None and pos.station_owner.get(city) == pos.seat):
                return (0.0 if lent == route.id else OWN_STATION_PENALTY), city
        elif can_build and city not in pos.station_owner and best is None:
            best = STATION_PENALTY, city
    return best


def cheapest_path(pos: Position, a: str, b: str, planned: frozenset[str], lenders: Mapping[str, str | None],
                  can_build: bool) -> tuple[float, list[Step]] | None:
    """Dijkstra from `a` to `b` over routes the seat owns or can claim (planned ones free), borrowing at most
    one opponent route through a station; None when `b` cannot be reached."""
    weights = _weights(pos)
    adjacency = _adjacency(pos.map_name)
    start = (a, 0)
    best: dict[tuple[str, int], float] = {start: 0.0}
    came: dict[tuple[str, int], tuple[tuple[str, int], Step]] = {}
    heap = [(0.0, a, 0)]
    while heap:
        cost, city, layer = heapq.heappop(heap)
        if city == b:
            return cost, _walk_back(came, (city, layer), start)
        if cost > best[(city, layer)]:
            continue
        for other, route in adjacency[city]:
            step = _step_cost(pos, route, weights, planned, lenders, layer == 0, can_build)
            if step is None:
                continue
            extra, station_city = step
            node = (other, layer + (station_city is not None))
            if cost + extra < best.get(node, float("inf")):
                best[node] = cost + extra
                came[node] = ((city, layer), (route.id, station_city))
                heapq.heappush(heap, (cost + extra, other, node[1]))
    return None


def _step_cost(pos: Position, route: Route, weights: Mapping[str, float], planned: frozenset[str],
               lenders: Mapping[str, str | None], can_borrow: bool, can_build: bool) -> tuple[float, str | None] | None:
    weight = weights.get(route.id)
    if weight is not None:
        return (0.0 if route.id in planned else weight), None
    if not can_borrow or route.id not in pos.owner:
        return None
    return _borrow(pos, route, lenders, can_build)


def _walk_back(came: Mapping[tuple[str, int], tuple[tuple[str, int], Step]], node: tuple[str, int],
               start: tuple[str, int]) -> list[Step]:
    steps = []
    while node != start:
        node, step = came[node]
        steps.append(step)
    return steps[::-1]


@lru_cache(maxsize=4096)
def plan_network(pos: Position, tickets: tuple[str, ...], budget: int | None = None) -> Plan:
    """A network completing as many of `tickets` as fit in `budget` trains (the seat's trains by default):
    the greedy Steiner tree, giving up the ticket worth least per train while the plan is too long."""
    budget = pos.trains if budget is None else budget
    board = pos.board
    # Long tickets first lay a backbone the short ones join; short ones first sometimes share more: try both.
    orders = [sorted(tickets, key=lambda t: (sign * board.tickets[t].points, t)) for sign in (-1, 1)]
    lost: list[str] = []
    while True:
        plan = min((_steiner(pos, order, lost) for order in orders), key=lambda p: (len(p.lost), p.trains))
        if plan.trains <= budget or not plan.kept:
            return plan
        worst = _least_worth(pos, plan.kept)
        if worst is None:  # every kept ticket is done already (a budget below zero): nothing to give up
            return plan
        lost.append(worst)


def _least_worth(pos: Position, tickets: tuple[str, ...]) -> str | None:
    """The unfinished ticket paying least per train of its own cheapest path: the first to give up. A finished
    ticket costs nothing and is never given up."""
    board = pos.board
    done = set(completed(pos, tickets))

    def worth(ticket_id: str) -> float:
        ticket = board.tickets[ticket_id]
        found = cheapest_path(pos, ticket.a, ticket.b, frozenset(), {}, can_build=False)
        return ticket.points / max(1.0, found[0] if found else 1.0)

    return min((t for t in tickets if t not in done), key=lambda t: (worth(t), t), default=None)


def _steiner(pos: Position, order: Iterable[str], dropped: list[str]) -> Plan:
    board = pos.board
    routes: list[str] = []
    lenders: dict[str, str | None] = {city: None for city, seat in pos.station_owner.items() if seat == pos.seat}
    stations: list[tuple[str, str]] = []
    kept: list[str] = []
    lost = list(dropped)
    for ticket_id in order:
        if ticket_id in dropped:
            continue
        ticket = board.tickets[ticket_id]
        can_build = pos.stations_left > len(stations)
        found = cheapest_path(pos, ticket.a, ticket.b, frozenset(routes), lenders, can_build)
        if found is None:
            lost.append(ticket_id)
            continue
        kept.append(ticket_id)
        for route_id, city in found[1]:
            if city is None:
                if pos.owner.get(route_id) != pos.seat and route_id not in routes:
                    routes.append(route_id)
            elif lenders.get(city) != route_id:
                if city not in pos.station_owner:
                    stations.append((city, route_id))
                lenders[city] = route_id
    trains = sum(board.routes[r].length for r in routes)
    return Plan(tuple(routes), tuple(stations), trains, tuple(kept), tuple(lost))


def completed(pos: Position, tickets: Iterable[str], extra: str | None = None) -> list[str]:
    """The tickets the seat's own routes (and `extra`) already join; stations are left out (a lower bound)."""
    board = pos.board
    mine = [board.routes[r] for r, seat in pos.owner.items() if seat == pos.seat]
    if extra is not None:
        mine.append(board.routes[extra])
    pieces = components((r.a, r.b) for r in mine)
    return [t for t in tickets if joined(pieces, board.tickets[t].a, board.tickets[t].b)]
