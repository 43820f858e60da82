"""`legal_moves`: every move a seat may make now, in a stable order; `decide` accepts exactly these.

Moves come in groups (one group per route, per kind of card draw, ...), each of which can say how many moves
it holds and build its i-th without building the others. `random_legal_move` uses that to pick uniformly
among all legal moves at the cost of a count, which keeps random play and bot rollouts fast.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import combinations
from typing import assert_never

from . import moves as mv
from .cards import LOCOMOTIVE
from .moves import cards_of
from .payment import Mixes, route_mixes, station_mixes, tunnel_mixes
from .rules import can_draw_second_card, claimable_routes
from .state import Phase, State

Group = tuple[int, Callable[[int], mv.Move]]


def legal_moves(state: State, seat: int) -> list[mv.Move]:
    return [build(i) for size, build in _groups(state, seat) for i in range(size)]


def legal_move_count(state: State, seat: int) -> int:
    return sum(size for size, _ in _groups(state, seat))


def random_legal_move(state: State, seat: int, rng: random.Random) -> mv.Move | None:
    """A move drawn uniformly from `legal_moves(state, seat)`, or None when there is none."""
    groups = _groups(state, seat)
    total = sum(size for size, _ in groups)
    if not total:
        return None
    index = rng.randrange(total)
    for size, build in groups:
        if index < size:
            return build(index)
        index -= size
    raise AssertionError("unreachable")


def _groups(s: State, seat: int) -> list[Group]:
    if seat not in s.deciders():
        return []
    phase = s.phase
    match phase:
        case Phase.TURN:
            return _turn_groups(s, seat)
        case Phase.SECOND_CARD:
            return _card_groups(s, second=True)
        case Phase.SETUP_TICKETS:
            return [_keep_group(s.offered[seat], least=2)]
        case Phase.KEEP_TICKETS:
            return [_keep_group(s.offered[seat], least=1)]
        case Phase.TUNNEL_PAYMENT:
            return _tunnel_groups(s, seat)
        case Phase.FINISHED:
            return []
        case _:
            assert_never(phase)


def _keep_group(offered: tuple[str, ...], least: int) -> Group:
    least = min(least, len(offered))
    choices = [c for k in range(len(offered), least - 1, -1) for c in combinations(offered, k)]
    return len(choices), lambda i: mv.KeepTickets(choices[i])


def _card_groups(s: State, second: bool) -> list[Group]:
    groups: list[Group] = []
    if s.draw_pile or s.discards:
        groups.append((1, lambda i: mv.DrawCard("deck")))
    slots = [
        i for i, card in enumerate(s.market) if card is not None and not (second and card == LOCOMOTIVE)
    ]
    if slots:
        groups.append((len(slots), lambda i: mv.DrawCard("market", slots[i])))
    return groups


def _tunnel_groups(s: State, seat: int) -> list[Group]:
    tunnel = s.tunnel
    assert tunnel is not None
    pay = tunnel_mixes(s.players[seat].hand, cards_of(tunnel.played), tunnel.extra)
    return [(len(pay), lambda i: mv.PayTunnel(pay[i])), (1, lambda i: mv.DeclineTunnel())]


def _turn_groups(s: State, seat: int) -> list[Group]:
    groups = _card_groups(s, second=False)
    groups.extend(_claim_groups(s, seat))
    if s.ticket_pile:
        groups.append((1, lambda i: mv.DrawTickets()))
    groups.extend(_station_groups(s, seat))
    return groups


def _claim_groups(s: State, seat: int) -> list[Group]:
    hand = s.players[seat].hand
    same_cost: dict[tuple[str, int, int], Mixes] = {}  # routes alike in cost pay alike
    groups: list[Group] = []
    for route in claimable_routes(s, seat):
        key = (route.color, route.length, route.ferry_locomotives)
        pay = same_cost.get(key)
        if pay is None:
            pay = same_cost[key] = route_mixes(hand, route)
        groups.append((len(pay), _claim_builder(route.id, pay)))
    return groups


def _claim_builder(route_id: str, pay: Mixes) -> Callable[[int], mv.Move]:
    return lambda i: mv.ClaimRoute(route_id, pay[i])


def _station_groups(s: State, seat: int) -> list[Group]:
    player = s.players[seat]
    if player.stations >= s.board.stations_per_player:
        return []
    pay = station_mixes(player.hand, player.stations + 1)
    per_city = len(pay)
    cities = s.board.cities
    free_count = len(cities) - len(s.station_owner)
    if not per_city or not free_count:
        return []

    def build(i: int) -> mv.Move:
        free = [city for city in cities if city not in s.station_owner]
        return mv.BuildStation(free[i // per_city], pay[i % per_city])

    return [(per_city * free_count, build)]


__all__ = ["can_draw_second_card", "legal_move_count", "legal_moves", "random_legal_move"]
