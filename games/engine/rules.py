"""Questions about a state that `decide` and `legal_moves` both ask: can this seat still act, is a route open."""

from __future__ import annotations

import functools
import operator
from functools import cache

from .board import Route, load_board
from .cards import COLOURS, GRAY, LOCOMOTIVE
from .errors import IllegalMove, quoted
from .state import State

SMALL_GAME = 3  # C-DBL-2: with 2 or 3 players only one route of a double pair is used


def setup_rule(s: State) -> tuple[str, str]:
    rule = "E-SET-2" if s.board.has_stations else "U-SET-1"
    return rule, "every player first keeps at least 2 of the destination tickets dealt at setup"


def route_closed_reason(s: State, seat: int, route: Route) -> tuple[str, str] | None:
    """Why `seat` may not claim `route` whatever it pays, or None when it may."""
    if route.id in s.route_owner:
        return "C-CLM-1", f"route {route.id} is already claimed"
    if route.twin is not None and (twin_owner := s.route_owner.get(route.twin)) is not None:
        if twin_owner == seat:
            return "C-DBL-1", "a player may not claim both routes of a double route"
        if s.player_count <= SMALL_GAME:
            return "C-DBL-2", "with 2 or 3 players only one route of a double route may be claimed"
    if s.players[seat].trains < route.length:
        return "C-CLM-1", f"route {route.id} needs {route.length} trains"
    return None


def check_route_open(s: State, seat: int, route_id: str) -> Route:
    route = s.board.routes.get(route_id)
    if route is None:
        raise IllegalMove("C-CLM-1", f"there is no route {quoted(route_id)}")
    reason = route_closed_reason(s, seat, route)
    if reason is not None:
        raise IllegalMove(*reason)
    return route


def can_draw_card(s: State) -> bool:
    return bool(s.draw_pile or s.discards or any(card is not None for card in s.market))


def can_draw_second_card(s: State) -> bool:
    """C-DRW-2, C-DRW-5: a second card exists that may be taken (blind, or a face-up non-locomotive)."""
    return bool(s.draw_pile or s.discards) or any(c is not None and c != LOCOMOTIVE for c in s.market)


def claimable_routes(s: State, seat: int) -> list[Route]:
    """The routes `seat` may claim now and can pay for, in board order: the tests of `route_closed_reason`
    and `can_pay_route` for every route at once, on bit masks (the hot loop of `legal_moves`)."""
    payable = claimable_mask(s, seat)
    found: list[Route] = []
    for routes in _routes_by_byte(s.board.name):  # the mask read a byte at a time: a hand of many cards pays most routes
        if not payable:
            break
        if byte := payable & 255:
            found += routes[byte]
        payable >>= 8
    return found


def claimable_mask(s: State, seat: int) -> int:
    """`claimable_routes` as a bit mask over route indexes (bit i: `board.route_list[i]`)."""
    player = s.players[seat]
    hand = player.hand
    board = s.board
    locos = hand.get(LOCOMOTIVE, 0)
    any_colour = _any_colour(board.name)
    cap = min(player.trains, len(any_colour) - 1)
    masks = board.colour_masks
    # What locomotives alone pay of every colour, then what each colour held pays (a colour not held pays no more)
    payable = any_colour[min(locos, cap)]
    most = 0
    for kind, n in hand.items():
        if kind != LOCOMOTIVE:
            if n > most:
                most = n
            k = n + locos
            payable |= masks[kind][k if k < cap else cap]
    k = most + locos
    payable |= masks[GRAY][k if k < cap else cap]
    ferry = board.ferry_masks
    return payable & ferry[min(locos, len(ferry) - 1)] & ~(s.closed | player.barred)


@cache
def _any_colour(map_name: str) -> tuple[int, ...]:
    """By length n (up to the longest route), the routes of length n or less of any one colour (gray aside)."""
    masks = load_board(map_name).colour_masks
    return tuple(
        functools.reduce(operator.or_, (masks[colour][n] for colour in COLOURS)) for n in range(len(masks[GRAY]))
    )


@cache
def _routes_by_byte(map_name: str) -> tuple[tuple[tuple[Route, ...], ...], ...]:
    """For each byte of a mask over route indexes (routes 0-7, 8-15, ...), and each value of that byte, the
    routes its bits stand for, in board order."""
    routes = load_board(map_name).route_list
    return tuple(
        tuple(tuple(routes[i] for i in range(start, min(start + 8, len(routes))) if value >> (i - start) & 1)
              for value in range(256))
        for start in range(0, len(routes), 8)
    )


def can_claim_any(s: State, seat: int) -> bool:
    return bool(claimable_routes(s, seat))


def can_build_station(s: State, seat: int) -> bool:
    player = s.players[seat]
    if player.stations >= s.board.stations_per_player or len(s.station_owner) >= len(s.board.cities):
        return False
    cost = player.stations + 1
    locos = player.hand.get(LOCOMOTIVE, 0)
    return any(n + (locos if kind != LOCOMOTIVE else 0) >= cost for kind, n in player.hand.items())


def can_act(s: State, seat: int) -> bool:
    """C-END-2: whether the seat has any legal action at the start of its turn."""
    return (
        can_draw_card(s)
        or bool(s.ticket_pile)
        or can_build_station(s, seat)
        or can_claim_any(s, seat)
    )
