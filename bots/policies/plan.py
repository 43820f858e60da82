"""Route planning for bots: the board as one seat sees it, cheapest paths, and a network for its tickets.

Everything here reads a seat's view (claimed routes, stations, its own trains and tickets) and the board data,
never a State. `position(view)` is what the planner needs from a `PlayerView` (greedy-lite builds the same from a
State: rollout.position_of); `plan_network(position, tickets)` joins the tickets' cities with few new trains: a
greedy Steiner tree (the tickets in turn, each by its cheapest path, routes already owned or planned costing
nothing). On Europe a path may borrow one opponent route through a station (E-STA-3) when that beats every free
detour, which is how a cut ticket gets reconnected. Plans are cached: a position and a ticket set always give the
same plan, and draws leave the board unchanged.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache

from games.engine.board import Board, Route, load_board
from games.engine.paths import components, joined
from games.engine.view import PlayerView

from .decision import own_seat

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
    owner: Mapping[str, int] = field(compare=False, hash=False)  # route -> seat: `claimed` as a mapping
    station_owner: Mapping[str, int] = field(compare=False, hash=False)  # city -> seat: `built` as a mapping

    def __hash__(self) -> int:
        """The hash of the compared fields, as the dataclass would make it, worked out once: the planner's caches
        ask it of the same position many times."""
        known: int | None = self.__dict__.get("_hash")
        if known is None:
            known = hash((self.map_name, self.seat, self.players, self.trains, self.stations_left, self.claimed,
                          self.built))
            object.__setattr__(self, "_hash", known)
        return known

    @property
    def board(self) -> Board:
        return load_board(self.map_name)


def position(view: PlayerView) -> Position:
    """The seat's position in its view (the view's mappings are its own and never change: no copy needed)."""
    seat = own_seat(view)
    me = view.players[seat]
    return Position(
        map_name=view.map,
        seat=seat,
        players=len(view.players),
        trains=me.trains,
        stations_left=me.stations_left,
        claimed=frozenset(view.routes.items()),
        built=frozenset(view.stations.items()),
        owner=view.routes,
        station_owner=view.stations,
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


BORROWED = -1.0  # `_route_costs`' mark of an opponent's route: the seat may only borrow it through a station
CLOSED = math.inf  # `_route_costs`' mark of a route the seat can neither claim nor borrow: no path ever takes it


@dataclass(frozen=True)
class _Graph:
    """A map's cities as numbers in the order of their names (so a number breaks a tie in the search's heap
    as the name would) and, by city number, its routes (other city's number, route index)."""

    names: tuple[str, ...]
    number: Mapping[str, int]
    links: tuple[tuple[tuple[int, int], ...], ...]
    ids: tuple[str, ...]  # by route index: its id
    index: Mapping[str, int]  # by route id: its index
    claim_costs: tuple[tuple[float, ...], ...]  # [trains]: by route index, `route_cost` or CLOSED if longer
    twins: tuple[int | None, ...]  # by route index: its twin's index


@cache
def _graph(map_name: str) -> _Graph:
    board = load_board(map_name)
    names = tuple(sorted(board.cities))
    number = {city: i for i, city in enumerate(names)}
    adjacency = _adjacency(map_name)
    links = tuple(tuple((number[other], r.index) for other, r in adjacency[city]) for city in names)
    ids = tuple(r.id for r in board.route_list)
    claim_costs = tuple(tuple(route_cost(r) if r.length <= trains else CLOSED for r in board.route_list)
                        for trains in range(board.trains_per_player + 1))
    twins = tuple(board.routes[r.twin].index if r.twin else None for r in board.route_list)
    return _Graph(names, number, links, ids, {r: i for i, r in enumerate(ids)}, claim_costs, twins)


@lru_cache(maxsize=512)
def _route_costs(pos: Position) -> list[float]:
    """By route index, what using the route costs the seat: 0 when owned, its penalised length when it can
    claim it (`claimable`), BORROWED when an opponent owns it, CLOSED when it can do neither."""
    graph = _graph(pos.map_name)
    board, owner, seat = pos.board, pos.owner, pos.seat
    shared = pos.players > SMALL_GAME
    cost = list(graph.claim_costs[min(max(pos.trains, 0), len(graph.claim_costs) - 1)])
    for route_id, held in owner.items():
        i = board.routes[route_id].index
        cost[i] = 0.0 if held == seat else BORROWED
        twin = graph.twins[i]
        if twin is not None and board.route_list[twin].id not in owner and not (shared and held != seat):
            cost[twin] = CLOSED  # a double route's other half, barred (C-DBL-1, C-DBL-2)
    return cost


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


@lru_cache(maxsize=512)
def _found(pos: Position) -> dict[tuple[str, str, frozenset[str], tuple[tuple[str, str | None], ...], bool],
                                  tuple[float, tuple[Step, ...]] | None]:
    """The paths already searched on `pos`: a plan searches the same ones again (both ticket orders begin
    alike, a ticket given up replans the ones before it, and `_least_worth` asks each ticket's own path)."""
    return {}


def cheapest_path(pos: Position, a: str, b: str, planned: frozenset[str], lenders: Mapping[str, str | None],
                  can_build: bool) -> tuple[float, tuple[Step, ...]] | None:
    """Dijkstra from `a` to `b` over routes the seat owns or can claim (planned ones free), borrowing at most
    one opponent route through a station; None when `b` cannot be reached."""
    found = _found(pos)
    key = (a, b, planned, tuple(lenders.items()), can_build)
    if key in found:
        return found[key]
    path = found[key] = _dijkstra(pos, a, b, planned, lenders, can_build)
    return path


def _dijkstra(pos: Position, a: str, b: str, planned: frozenset[str], lenders: Mapping[str, str | None],
              can_build: bool) -> tuple[float, tuple[Step, ...]] | None:
    """`cheapest_path`'s search over nodes (city, layer), layer 1 once a route is borrowed. The heap's entries
    (cost, city number, layer) order the search, so its ties (equal costs) always break the same way. A
    CLOSED route's cost is infinite: no path improves by it, so it needs no test of its own."""
    graph = _graph(pos.map_name)
    links, costs, ids = graph.links, _route_costs(pos), graph.ids
    if planned:  # planned routes the seat can claim cost nothing (a plan's are all such)
        costs = costs.copy()
        numbered = graph.index
        for route_id in planned:
            i = numbered.get(route_id)
            if i is not None and costs[i] != BORROWED and costs[i] != CLOSED:
                costs[i] = 0.0
    start, goal, inf = graph.number[a], graph.number[b], math.inf
    if not (can_build or lenders):  # no route can be borrowed: layer 1 is never reached
        return _dijkstra_unborrowed(links, costs, ids, start, goal)
    routes = pos.board.route_list
    best = ([inf] * len(links), [inf] * len(links))
    came: tuple[list[tuple[int, int, int, str | None] | None], ...] = ([None] * len(links), [None] * len(links))
    best[0][start] = 0.0
    heap = [(0.0, start, 0)]
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        cost, city, layer = pop(heap)
        if city == goal:
            return cost, _walk_back(came, ids, city, layer, start)
        reached = best[layer]
        if cost > reached[city]:
            continue
        arrived = came[layer]
        for other, index in links[city]:
            weight = costs[index]
            if weight != BORROWED:
                total = cost + weight
                if total < reached[other]:
                    reached[other] = total
                    arrived[other] = (city, layer, index, None)
                    push(heap, (total, other, layer))
            elif layer == 0:
                borrowed = _borrow(pos, routes[index], lenders, can_build)
                if borrowed is not None and (total := cost + borrowed[0]) < best[1][other]:
                    best[1][other] = total
                    came[1][other] = (city, 0, index, borrowed[1])
                    push(heap, (total, other, 1))
    return None


def _dijkstra_unborrowed(links: tuple[tuple[tuple[int, int], ...], ...], costs: list[float], ids: tuple[str, ...],
                         start: int, goal: int) -> tuple[float, tuple[Step, ...]] | None:
    """`_dijkstra` when no route can be borrowed: layer 0 alone, so the heap's entries are (cost, city number),
    which order as (cost, city number, 0) would. A BORROWED route is as closed as a CLOSED one here."""
    inf = math.inf
    best = [inf] * len(links)
    came = [-1] * len(links)  # by city: the city it was reached from
    via = [-1] * len(links)  # ... and the route's index
    best[start] = 0.0
    heap = [(0.0, start)]
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        cost, city = pop(heap)
        if city == goal:
            steps: list[Step] = []
            while city != start:
                steps.append((ids[via[city]], None))
                city = came[city]
            return cost, tuple(steps[::-1])
        if cost > best[city]:
            continue
        for other, index in links[city]:
            weight = costs[index]
            if weight >= 0.0 and (total := cost + weight) < best[other]:
                best[other] = total
                came[other] = city
                via[other] = index
                push(heap, (total, other))
    return None


def _walk_back(came: tuple[list[tuple[int, int, int, str | None] | None], ...], ids: tuple[str, ...], city: int,
               layer: int, start: int) -> tuple[Step, ...]:
    """The steps of the path `_dijkstra` found to (city, layer): by each (city, layer) the one it was reached
    from, the route's index and the city of the station that borrows it (None: a route to own)."""
    steps: list[Step] = []
    while layer or city != start:
        back = came[layer][city]
        assert back is not None
        city, layer, index, station = back
        steps.append((ids[index], station))
    return tuple(steps[::-1])


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
