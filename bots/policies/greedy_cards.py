"""Train cards for the greedy bot: which cards its planned routes still need, which face-up card to take, and
which of the legal payments to make.

A plan's needs are counted by card kind: a coloured route needs its colour, a gray route (or a double route whose
two colours differ) the colour the hand and the other needs suit best, a ferry its locomotives (E-FER-1). A
payment is chosen to keep locomotives, and colours other planned routes still need.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from games.engine.board import Route
from games.engine.cards import COLOURS, GRAY, LOCOMOTIVE
from games.engine.moves import Payment

from .plan import Position, claimable

LOCOMOTIVE_COST = 3.0  # a locomotive pays for any colour and any ferry: spend one only when no colour will do
NEEDED_COST = 1.0  # a card some other planned route still needs
SPARE_COST = 0.1  # a card nothing needs: almost free, but fewer cards spent is still better
ANY = GRAY  # the need of a gray route no colour in hand is assigned to yet


def colour_options(pos: Position, route: Route) -> tuple[str, ...]:
    """The colours that can pay for the link `route` makes: either route of a double pair will do."""
    twin = pos.board.routes[route.twin] if route.twin else None
    colours = {route.color}
    if twin is not None and claimable(pos, twin):
        colours.add(twin.color)
    return COLOURS if GRAY in colours else tuple(c for c in COLOURS if c in colours)


def needs(pos: Position, routes: Iterable[str], hand: Mapping[str, int]) -> dict[str, int]:
    """Cards the given routes take, by kind. A flexible route takes the colour the hand has most to spare, or
    `ANY` colour when the hand has none to spare."""
    board = pos.board
    need: dict[str, int] = {}
    flexible: list[tuple[Route, tuple[str, ...]]] = []
    for route_id in routes:
        route = board.routes[route_id]
        if route.ferry_locomotives:
            need[LOCOMOTIVE] = need.get(LOCOMOTIVE, 0) + route.ferry_locomotives
        options = colour_options(pos, route)
        if len(options) == 1:
            need[options[0]] = need.get(options[0], 0) + route.length - route.ferry_locomotives
        else:
            flexible.append((route, options))
    for route, options in sorted(flexible, key=lambda item: -item[0].length):
        colour = max(options, key=lambda c: hand.get(c, 0) - need.get(c, 0))
        if len(options) == len(COLOURS) and hand.get(colour, 0) <= need.get(colour, 0):
            colour = ANY  # no colour in hand to build on yet: any set will do
        need[colour] = need.get(colour, 0) + route.length - route.ferry_locomotives
    return need


def shortfall(need: Mapping[str, int], hand: Mapping[str, int]) -> dict[str, int]:
    """Cards still to draw, by kind, before locomotives in hand are spent on any of them."""
    return {kind: n - hand.get(kind, 0) for kind, n in need.items() if n > hand.get(kind, 0)}


def cards_missing(pos: Position, routes: Iterable[str], hand: Mapping[str, int]) -> dict[str, int]:
    """Cards the routes still take beyond the hand, by kind (`needs`, then `shortfall`)."""
    return shortfall(needs(pos, routes, hand), hand)


def payment_cost(paid: Payment, hand: Mapping[str, int], other_needs: Mapping[str, int]) -> float:
    """What a payment costs the rest of the plan: locomotives dearly, needed colours more than spare ones."""
    cost = 0.0
    for kind, n in paid:
        if kind == LOCOMOTIVE:
            cost += LOCOMOTIVE_COST * n
            continue
        spare = max(0, hand.get(kind, 0) - other_needs.get(kind, 0))
        cost += SPARE_COST * n + NEEDED_COST * max(0, n - spare)
    return cost


def cheapest_payment(payments: Iterable[Payment], hand: Mapping[str, int], other_needs: Mapping[str, int]) -> Payment:
    return min(payments, key=lambda paid: payment_cost(paid, hand, other_needs))


def market_choice(market: Sequence[str | None], missing: Mapping[str, int], hand: Mapping[str, int]) -> int | None:
    """The face-up slot with the colour the plan misses most; failing that, when a gray route needs `ANY`
    colour, the colour the hand holds most of (sets grow); None when no face-up colour helps."""
    def value(card: str) -> tuple[int, int]:
        return missing.get(card, 0), hand.get(card, 0)

    useful = [
        slot
        for slot, card in enumerate(market)
        if card is not None and card != LOCOMOTIVE and (missing.get(card, 0) > 0 or missing.get(ANY, 0) > 0)
    ]
    return max(useful, key=lambda slot: value(market[slot] or ""), default=None)


def locomotive_slot(market: Sequence[str | None]) -> int | None:
    return next((slot for slot, card in enumerate(market) if card == LOCOMOTIVE), None)


def tunnel_spare(paid: Payment, hand: Mapping[str, int]) -> int:
    """Cards left in hand after `paid` that could pay a tunnel's extra cards (its colour and locomotives)."""
    colour = next((kind for kind, _ in paid if kind != LOCOMOTIVE), None)
    used = dict(paid)
    left = hand.get(LOCOMOTIVE, 0) - used.get(LOCOMOTIVE, 0)
    if colour is not None:
        left += hand.get(colour, 0) - used[colour]
    return left
