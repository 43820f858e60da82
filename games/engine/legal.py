"""`legal_moves`: every move a seat may make now, in a stable order; `decide` accepts exactly these.

Moves come in groups (one group per route, per kind of card draw, ...), each of which can say how many moves
it holds and build its i-th without building the others. `random_legal_move` uses that to pick uniformly
among all legal moves at the cost of a count, which keeps random play and bot rollouts fast.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache, lru_cache
from itertools import combinations
from typing import assert_never

from . import moves as mv
from .board import Route, load_board
from .cards import COLOURS, GRAY, LOCOMOTIVE, Cards
from .moves import cards_of
from .payment import Mixes, route_mixes, station_mixes, tunnel_mixes
from .rules import can_draw_second_card, claimable_routes
from .state import SECOND_CARD, TUNNEL_PAYMENT, TURN, Phase, State

Group = tuple[int, Callable[[int], mv.Move]]


def legal_moves(state: State, seat: int) -> list[mv.Move]:
    return [build(i) for size, build in _groups(state, seat) for i in range(size)]


def legal_move_count(state: State, seat: int) -> int:
    return sum(size for size, _ in _groups(state, seat))


def random_legal_move(state: State, seat: int, rng: random.Random) -> mv.Move | None:
    """A move drawn uniformly from `legal_moves(state, seat)`, or None when there is none: the very move
    `legal_moves(state, seat)[rng.randrange(legal_move_count(state, seat))]` is, with that one draw (none when
    there is no move). A turn or a second card, the commonest decisions, is counted without building its moves'
    groups, and only the chosen move is built."""
    if state.current == seat:  # (then the seat decides, unless the game waits for the setup or is over)
        phase = state.phase
        if phase == TURN:
            return _random_turn_move(state, seat, rng)
        if phase == SECOND_CARD:
            return _random_second_card(state, rng)
        if phase == TUNNEL_PAYMENT:
            return _random_tunnel_move(state, seat, rng)
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


def _random_turn_move(s: State, seat: int, rng: random.Random) -> mv.Move | None:
    """`random_legal_move` in the TURN phase: the groups of `_turn_groups`, in their order, counted."""
    deck = 1 if s.draw_pile or s.discards else 0
    market = s.market
    slots = range(len(market)) if None not in market else [i for i, card in enumerate(market) if card is not None]
    hand = s.players[seat].hand
    claims, claimable = _claims(s, seat)
    tickets = 1 if s.ticket_pile else 0
    per_city, free_count, cost = _station_counts(s, seat)
    total = deck + len(slots) + claims + tickets + per_city * free_count
    if not total:
        return None
    index = rng.randrange(total)
    if index < deck:
        return _FROM_DECK
    index -= deck
    if index < len(slots):
        return _FROM_MARKET[slots[index]]
    index -= len(slots)
    if index < claims:
        return _chosen_claim(hand, s.board.route_list, claimable, index)
    index -= claims
    if index < tickets:
        return _DRAW_TICKETS
    index -= tickets
    free = [city for city in s.board.cities if city not in s.station_owner]
    return mv.BuildStation(free[index // per_city], station_mixes(hand, cost)[index % per_city])


def _claims(s: State, seat: int) -> tuple[int, int]:
    """How many claims the seat may make now (`_claim_groups`' group sizes summed), and the mask of the routes it
    may claim (`rules.claimable_mask`), on bit masks without listing the routes. A route pays k cards of a colour
    and the rest in locomotives for every k the hand allows, or locomotives alone: the open routes of each such
    payment are counted at once (`_payment_masks`)."""
    player = s.players[seat]
    hand = player.hand
    longest, by_locomotives, fits = _payment_masks(s.board.name)
    routes = fits[min(player.trains, longest)] & ~(s.closed | player.barred)
    locos = hand.get(LOCOMOTIVE, 0)
    alone, by_colour = by_locomotives[locos if locos < longest else longest]
    claimable = routes & alone
    claims = claimable.bit_count()
    for kind, n in hand.items():
        if kind != LOCOMOTIVE and (ways := by_colour[kind][n if n < longest else longest]):
            claimable |= routes & ways[0]
            for payable in ways:
                claims += (routes & payable).bit_count()
    return claims, claimable


def _chosen_claim(hand: Cards, routes: tuple[Route, ...], claimable: int, index: int) -> mv.Move:
    """The `index`-th claim of `_claim_groups`' groups: over the routes of the mask `claimable`, in board order,
    each as many as its payments (`len(route_mixes(hand, route))`, worked out here: k cards of a colour and the rest
    in locomotives, or locomotives alone)."""
    locos = hand.get(LOCOMOTIVE, 0)
    held = [n for kind, n in hand.items() if kind != LOCOMOTIVE]  # what each colour held may pay for a gray route
    while claimable:
        low = claimable & -claimable
        route = routes[low.bit_length() - 1]
        length = route.length
        top = length - route.ferry_locomotives
        least = length - locos if length - locos > 1 else 1
        n = 1 if locos >= length else 0
        for most in held if route.color == GRAY else (hand.get(route.color, 0),):
            if most > top:
                most = top
            if most >= least:
                n += most - least + 1
        if index < n:
            return _claim_route(route.id, route_mixes(hand, route)[index])
        index -= n
        claimable ^= low
    raise AssertionError("fewer claims than counted")


PaymentMasks = tuple[int, tuple[tuple[int, dict[str, tuple[tuple[int, ...], ...]]], ...], tuple[int, ...]]


@cache
def _payment_masks(map_name: str) -> PaymentMasks:
    """For `_claim_count`, over the map's routes (bit i: `route_list[i]`), with counts up to the longest route's
    length: `[1][locos]`: the routes `locos` locomotives alone pay, and `[colour][n]`: masks m_1, m_2, ...: the routes
    of that colour (or gray) that n cards of it and those locomotives pay in j ways or more lie in m_j (k cards of
    the colour, k from 1 to n, and the rest in locomotives, a ferry's locomotives among them: `payment.mixes`);
    `[2][trains]`: the routes `trains` trains can fill."""
    routes = load_board(map_name).route_list
    longest = max(route.length for route in routes)

    def ways(route: Route, n: int, locos: int) -> int:
        least = max(1, route.length - locos)  # cards of the colour, the rest in locomotives
        most = min(n, route.length - route.ferry_locomotives)
        return max(0, most - least + 1)

    def masks(colour: str, n: int, locos: int) -> tuple[int, ...]:
        weight = {r.index: ways(r, n, locos) for r in routes if r.color in (colour, GRAY)}
        return tuple(
            sum(1 << i for i, w in weight.items() if w >= j) for j in range(1, max(weight.values(), default=0) + 1)
        )

    by_locomotives = tuple(
        (
            sum(1 << r.index for r in routes if r.length <= locos),
            {colour: tuple(masks(colour, n, locos) for n in range(longest + 1)) for colour in COLOURS},
        )
        for locos in range(longest + 1)
    )
    fits = tuple(sum(1 << r.index for r in routes if r.length <= trains) for trains in range(longest + 1))
    return longest, by_locomotives, fits


def _random_second_card(s: State, rng: random.Random) -> mv.Move | None:
    """`random_legal_move` in the SECOND_CARD phase: the groups of `_card_groups(second=True)`, counted."""
    deck = 1 if s.draw_pile or s.discards else 0
    market = s.market
    if None not in market and LOCOMOTIVE not in market:
        slots: range | list[int] = range(len(market))
    else:
        slots = [i for i, card in enumerate(market) if card is not None and card != LOCOMOTIVE]
    total = deck + len(slots)
    if not total:
        return None
    index = rng.randrange(total)
    return _FROM_DECK if index < deck else _FROM_MARKET[slots[index - deck]]


def _random_tunnel_move(s: State, seat: int, rng: random.Random) -> mv.Move:
    """`random_legal_move` in the TUNNEL_PAYMENT phase: the groups of `_tunnel_groups`, counted."""
    pay = _tunnel_payments(s, seat)
    index = rng.randrange(len(pay) + 1)
    return mv.PayTunnel(pay[index]) if index < len(pay) else _DECLINE_TUNNEL


# Moves are immutable values: the card draws, the ticket draw and a tunnel's decline are made once.
_FROM_DECK = mv.DrawCard("deck")
_FROM_MARKET = tuple(mv.DrawCard("market", i) for i in range(5))
_DRAW_TICKETS = mv.DrawTickets()
_DECLINE_TUNNEL = mv.DeclineTunnel()
# Claims drawn recur across the games a process plays (a route and its payment): made once while remembered.
_claim_route = lru_cache(maxsize=4096, typed=True)(mv.ClaimRoute)


def _station_counts(s: State, seat: int) -> tuple[int, int, int]:
    """The station group of `_station_groups`, counted: payments per city (`len(station_mixes(hand, cost))`), free
    cities, and the cost."""
    player = s.players[seat]
    if player.stations >= s.board.stations_per_player:
        return 0, 0, 0
    cost = player.stations + 1
    locos = player.hand.get(LOCOMOTIVE, 0)
    least = cost - locos if cost - locos > 1 else 1
    per_city = 1 if locos >= cost else 0
    for kind, n in player.hand.items():  # (the colours held: those not held pay nothing)
        if kind != LOCOMOTIVE:
            most = n if n < cost else cost
            if most >= least:
                per_city += most - least + 1
    return per_city, len(s.board.cities) - len(s.station_owner), cost


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
    pay = _tunnel_payments(s, seat)
    return [(len(pay), lambda i: mv.PayTunnel(pay[i])), (1, lambda i: _DECLINE_TUNNEL)]


def _tunnel_payments(s: State, seat: int) -> Mixes:
    tunnel = s.tunnel
    assert tunnel is not None
    return tunnel_mixes(s.players[seat].hand, cards_of(tunnel.played), tunnel.extra)


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
