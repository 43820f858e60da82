"""Train cards for the greedy bot: which cards its planned routes still need, which face-up card to take, and
which of the legal payments to make.

A plan's needs are counted by card kind: a coloured route needs its colour, a gray route (or a double route whose
two colours differ) the colour the hand and the other needs suit best, a ferry its locomotives (E-FER-1). A
payment is chosen to keep locomotives, and colours other planned routes still need.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache

from games.engine.board import Route, load_board
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
    fixed, flexible = need_parts(pos, routes)
    return needs_of(fixed, flexible, hand)


Flexible = tuple[tuple[int, tuple[str, ...]], ...]  # (cards, the colours that may pay them) of flexible routes


def need_parts(pos: Position, routes: Iterable[str]) -> tuple[dict[str, int], Flexible]:
    """What `needs` finds of the routes without the hand: the cards of those only one kind pays for, by kind,
    and the flexible ones (cards and colours), longest first."""
    return need_parts_of(pos.map_name, routes, lambda twin: claimable(pos, twin))


def need_parts_of(map_name: str, routes: Iterable[str], open_twin: Callable[[Route], bool]) -> tuple[dict[str, int],
                                                                                                   Flexible]:
    """`need_parts`, told by `open_twin` whether the twin of a route still to claim is open to the seat
    (`claimable`: the twin's own twin being that route, nobody's, it is when nobody has it and the seat has the
    trains for it)."""
    board = load_board(map_name)
    table = _colour_table(map_name)
    need: dict[str, int] = {}
    flexible: list[tuple[int, int, tuple[str, ...]]] = []
    for route_id in routes:
        route = board.routes[route_id]
        ferry = route.ferry_locomotives
        if ferry:
            need[LOCOMOTIVE] = need.get(LOCOMOTIVE, 0) + ferry
        alone, paired, twin = table[route.index]  # `colour_options`, read from the table
        options = paired if twin is not None and open_twin(twin) else alone
        if len(options) == 1:
            need[options[0]] = need.get(options[0], 0) + route.length - ferry
        else:
            flexible.append((route.length, route.length - ferry, options))
    flexible.sort(key=lambda item: -item[0])
    return need, tuple((cards, options) for _, cards, options in flexible)


@cache
def _colour_table(map_name: str) -> tuple[tuple[tuple[str, ...], tuple[str, ...], Route | None], ...]:
    """By route index, `colour_options` when its twin is closed to the seat (or it has none), when its twin is
    open, and the twin."""
    board = load_board(map_name)

    def options(colours: set[str]) -> tuple[str, ...]:
        return COLOURS if GRAY in colours else tuple(c for c in COLOURS if c in colours)

    return tuple(
        (options({r.color}), options({r.color, twin.color}) if twin is not None else options({r.color}), twin)
        for r, twin in ((r, board.routes[r.twin] if r.twin else None) for r in board.route_list)
    )


def needs_of(fixed: Mapping[str, int], flexible: Flexible, hand: Mapping[str, int]) -> dict[str, int]:
    """`needs` from its `need_parts` and the hand."""
    need = dict(fixed)
    held, needed = hand.get, need.get
    for cards, options in flexible:
        if options is COLOURS:  # a gray route: only a colour held can have cards to spare
            colour, spare = ANY, 0  # no colour in hand to build on yet: any set will do
            for kind, n in hand.items():
                if kind != LOCOMOTIVE and ((left := n - needed(kind, 0)) > spare
                                           or (left == spare > 0 and _RANK[kind] < _RANK[colour])):
                    colour, spare = kind, left
        else:
            colour, spare = "", 0
            for option in options:  # the first colour with most to spare
                left = held(option, 0) - needed(option, 0)
                if not colour or left > spare:
                    colour, spare = option, left
            if spare <= 0 and len(options) == len(COLOURS):
                colour = ANY
        need[colour] = needed(colour, 0) + cards
    return need


_RANK = {colour: i for i, colour in enumerate(COLOURS)}  # `COLOURS`' order: the first of equals is taken


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
