"""Paying with train cards: which payments a route, a station or a tunnel's extra cards accept.

Validation (`check_*`) raises `IllegalMove` with the rule a payment breaks. Enumeration builds `Mixes`: every
distinct colour/locomotive mix a hand can afford, countable and indexable without building them all, so
that `legal_moves` and uniform random play stay cheap even with hundreds of possible payments.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from .board import Route
from .cards import COLOURS, GRAY, LOCOMOTIVE, Cards, total
from .errors import IllegalMove, quoted
from .moves import Payment


class Mixes:
    """Payments of `size` cards: k cards of one colour (lo <= k <= hi) plus locomotives, or all locomotives.

    Built once per distinct cost on every legal-move query, so it is a plain slotted class that counts
    itself on construction rather than a dataclass."""

    __slots__ = ("_count", "all_locomotives", "ranges", "size")

    def __init__(self, size: int, ranges: tuple[tuple[str, int, int], ...], all_locomotives: bool) -> None:
        self.size = size
        self.ranges = ranges
        self.all_locomotives = all_locomotives
        count = 1 if all_locomotives else 0
        for _, lo, hi in ranges:
            count += hi - lo + 1
        self._count = count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> Payment:
        for colour, lo, hi in self.ranges:
            width = hi - lo + 1
            if index < width:
                k = hi - index
                return ((colour, k), (LOCOMOTIVE, self.size - k)) if k < self.size else ((colour, k),)
            index -= width
        return ((LOCOMOTIVE, self.size),)

    def __iter__(self) -> Iterator[Payment]:
        return (self[i] for i in range(len(self)))


def mixes(hand: Mapping[str, int], size: int, colours: tuple[str, ...], min_locomotives: int = 0) -> Mixes:
    """Every affordable payment of `size` cards in one of `colours` (plus locomotives)."""
    locos = hand.get(LOCOMOTIVE, 0)
    lo = max(1, size - locos)
    top = size - min_locomotives
    ranges = []
    for colour in colours:
        hi = hand.get(colour, 0)
        if hi > top:
            hi = top
        if hi >= lo:
            ranges.append((colour, lo, hi))
    return Mixes(size, tuple(ranges), locos >= size > 0)


def route_colours(route: Route) -> tuple[str, ...]:
    return COLOURS if route.color == GRAY else (route.color,)


def route_mixes(hand: Mapping[str, int], route: Route) -> Mixes:
    return mixes(hand, route.length, route_colours(route), route.ferry_locomotives)


def can_pay_route(hand: Mapping[str, int], route: Route) -> bool:
    locos = hand.get(LOCOMOTIVE, 0)
    if locos < route.ferry_locomotives:
        return False
    best = max(hand.get(c, 0) for c in COLOURS) if route.color == GRAY else hand.get(route.color, 0)
    return best + locos >= route.length


def station_mixes(hand: Mapping[str, int], cost: int) -> Mixes:
    return mixes(hand, cost, COLOURS)


def colour_of(paid: Mapping[str, int]) -> str | None:
    """The one colour of a payment, or None when it is locomotives only."""
    for kind in paid:
        if kind != LOCOMOTIVE:
            return kind
    return None


def check_cards(paid: Mapping[str, int], rule: str) -> None:
    """A payment names real card kinds with positive counts, and no more than one colour."""
    colours = 0
    for kind, n in paid.items():
        if kind != LOCOMOTIVE:
            if kind not in _COLOURS:
                raise IllegalMove(rule, f"{quoted(kind)} is not a train card")
            colours += 1
        if n <= 0:
            raise IllegalMove(rule, "card counts must be positive")
    if colours > 1:
        raise IllegalMove(rule, "all cards must be of one colour (locomotives stand in for any colour)")


_COLOURS = frozenset(COLOURS)


def check_route_payment(paid: Mapping[str, int], route: Route) -> None:
    check_cards(paid, "C-CLM-1")
    if total(paid) != route.length:
        raise IllegalMove("C-CLM-1", f"route {route.id} takes exactly {route.length} cards")
    colour = colour_of(paid)
    if colour is not None and route.color != GRAY and colour != route.color:
        raise IllegalMove("C-CLM-1", f"route {route.id} is {route.color}: {colour} cards cannot pay for it")
    if paid.get(LOCOMOTIVE, 0) < route.ferry_locomotives:
        raise IllegalMove(
            "E-FER-1", f"ferry {route.id} needs at least {route.ferry_locomotives} locomotive(s)"
        )


def check_station_payment(paid: Mapping[str, int], cost: int) -> None:
    check_cards(paid, "E-STA-2")
    if total(paid) != cost:
        raise IllegalMove("E-STA-2", f"this station costs exactly {cost} card(s) of one colour")


def tunnel_extra(played: Mapping[str, int], revealed: tuple[str, ...]) -> int:
    """Extra cards a tunnel asks for after the reveal (E-TUN-2)."""
    colour = colour_of(played)
    return sum(1 for card in revealed if card in (LOCOMOTIVE, colour))


def tunnel_mixes(hand: Mapping[str, int], played: Mapping[str, int], extra: int) -> Mixes:
    """The ways to pay a tunnel's extra cards from what the hand holds beyond the cards already played."""
    free: Cards = {kind: n - played.get(kind, 0) for kind, n in hand.items()}
    colour = colour_of(played)
    return mixes(free, extra, (colour,) if colour else ())


def check_tunnel_payment(paid: Mapping[str, int], played: Mapping[str, int], extra: int) -> None:
    check_cards(paid, "E-TUN-2")
    if total(paid) != extra:
        raise IllegalMove("E-TUN-2", f"the tunnel asks for exactly {extra} more card(s)")
    colour = colour_of(played)
    for kind in paid:
        if kind != LOCOMOTIVE and kind != colour:
            raise IllegalMove(
                "E-TUN-2",
                f"extra cards must be {colour} or locomotives" if colour else "extra cards must be locomotives",
            )
