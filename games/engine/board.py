"""The board: cities, routes and destination tickets of one map, loaded once from `maps/<name>.json`.

A `Board` is immutable and shared by every game on that map. Routes and cities keep the ids of the
board data files (`games/engine/maps`, checked against public sources: docs/RULES.md); each route also gets a
dense integer index so the hot paths (legal moves, longest path, ticket connectivity) can work on small lists
instead of dictionaries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .cards import COLOURS, GRAY

MAPS_DIR = Path(__file__).with_name("maps")
MAP_NAMES = ("europe", "usa")


@dataclass(frozen=True, slots=True)
class City:
    id: str
    name: str
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Route:
    index: int
    id: str
    a: str
    b: str
    length: int
    color: str  # one of the eight colours, or "gray"
    tunnel: bool
    ferry_locomotives: int
    twin: str | None  # the other route of a double pair, if any


@dataclass(frozen=True, slots=True)
class Ticket:
    id: str
    a: str
    b: str
    points: int
    long: bool


@dataclass(frozen=True)
class Board:
    name: str
    cities: dict[str, City]
    routes: dict[str, Route]
    route_list: tuple[Route, ...]
    tickets: dict[str, Ticket]
    route_points: dict[int, int]
    longest_path_bonus: int
    trains_per_player: int
    stations_per_player: int
    city_routes: dict[str, tuple[Route, ...]]  # every route touching a city
    # Bit masks over route indexes, for the hot loop of legal moves (bit i is route_list[i]):
    colour_masks: dict[str, tuple[int, ...]]  # [colour][n]: routes of that colour ("gray" too) of length <= n
    ferry_masks: tuple[int, ...]  # [k]: routes that need at most k locomotives
    twin_masks: tuple[int, ...]  # [i]: the bit of route i's twin, 0 when it has none

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # A pickled state (a snapshot) names its board instead of carrying a copy of it.
        return (load_board, (self.name,))

    @property
    def has_stations(self) -> bool:
        return self.stations_per_player > 0

    @property
    def long_tickets(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.tickets.values() if t.long)

    @property
    def regular_tickets(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.tickets.values() if not t.long)


def _twin_of(route_id: str) -> str | None:
    base, sep, number = route_id.rpartition("--")
    if number not in ("1", "2") or not sep or "--" not in base:
        return None
    return f"{base}--{'2' if number == '1' else '1'}"


@cache
def load_board(name: str) -> Board:
    """The board called `name` ("europe" or "usa"); raises KeyError for any other name."""
    if name not in MAP_NAMES:
        raise KeyError(name)
    raw = json.loads((MAPS_DIR / f"{name}.json").read_text())
    cities = {c["id"]: City(c["id"], c["name"], c["x"], c["y"]) for c in raw["cities"]}
    ids = {r["id"] for r in raw["routes"]}
    routes = tuple(
        Route(
            index=i,
            id=r["id"],
            a=r["a"],
            b=r["b"],
            length=r["length"],
            color=r["color"],
            tunnel=bool(r["tunnel"]),
            ferry_locomotives=int(r["ferry_locomotives"]),
            twin=twin if (twin := _twin_of(r["id"])) in ids else None,
        )
        for i, r in enumerate(raw["routes"])
    )
    tickets = {t["id"]: Ticket(t["id"], t["a"], t["b"], t["points"], bool(t["long"])) for t in raw["tickets"]}
    ids_index = {r.id: r.index for r in routes}
    touching: dict[str, list[Route]] = {c: [] for c in cities}
    for route in routes:
        touching[route.a].append(route)
        touching[route.b].append(route)
    return Board(
        name=name,
        cities=cities,
        routes={r.id: r for r in routes},
        route_list=routes,
        tickets=tickets,
        route_points={int(k): v for k, v in raw["route_points"].items()},
        longest_path_bonus=raw["longest_path_bonus"],
        trains_per_player=raw["trains_per_player"],
        stations_per_player=raw["stations_per_player"],
        city_routes={c: tuple(rs) for c, rs in touching.items()},
        colour_masks=_colour_masks(routes),
        ferry_masks=tuple(
            sum(1 << r.index for r in routes if r.ferry_locomotives <= k)
            for k in range(max(r.ferry_locomotives for r in routes) + 1)
        ),
        twin_masks=tuple(1 << ids_index[r.twin] if r.twin else 0 for r in routes),
    )


def _colour_masks(routes: tuple[Route, ...]) -> dict[str, tuple[int, ...]]:
    longest = max(r.length for r in routes)
    return {
        colour: tuple(
            sum(1 << r.index for r in routes if r.color == colour and r.length <= n) for n in range(longest + 1)
        )
        for colour in (*COLOURS, GRAY)
    }
