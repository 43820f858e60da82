"""Moves: what a seat asks to do (commands, imperative names).

A move is a small frozen value; `decide` turns it into events or refuses it with `IllegalMove`. Card
payments are `Payment`s: (kind, count) pairs in the canonical card order, so equal payments compare equal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal, get_args

from .cards import CARD_KINDS, Cards

Payment = tuple[tuple[str, int], ...]


def payment(cards: Mapping[str, int]) -> Payment:
    """The canonical `Payment` of a card multiset (zero counts dropped)."""
    return tuple((kind, cards[kind]) for kind in CARD_KINDS if cards.get(kind, 0))


def cards_of(paid: Payment) -> Cards:
    return dict(paid)


@dataclass(frozen=True, slots=True)
class KeepTickets:
    type: ClassVar[str] = "keep_tickets"
    tickets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DrawCard:
    type: ClassVar[str] = "draw_card"
    source: Literal["deck", "market"]
    index: int | None = None


@dataclass(frozen=True, slots=True)
class ClaimRoute:
    type: ClassVar[str] = "claim_route"
    route: str
    cards: Payment


@dataclass(frozen=True, slots=True)
class PayTunnel:
    type: ClassVar[str] = "pay_tunnel"
    cards: Payment


@dataclass(frozen=True, slots=True)
class DeclineTunnel:
    type: ClassVar[str] = "decline_tunnel"


@dataclass(frozen=True, slots=True)
class DrawTickets:
    type: ClassVar[str] = "draw_tickets"


@dataclass(frozen=True, slots=True)
class BuildStation:
    type: ClassVar[str] = "build_station"
    city: str
    cards: Payment


Move = KeepTickets | DrawCard | ClaimRoute | PayTunnel | DeclineTunnel | DrawTickets | BuildStation
MOVE_TYPES: dict[str, type[Move]] = {cls.type: cls for cls in get_args(Move)}  # read off `Move`, the one list
