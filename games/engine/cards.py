"""Train cards (docs/RULES.md C-CMP-1): eight colours and the locomotive, and card multisets.

A hand, a payment or a discard pile is a `Cards` mapping from card kind to a positive count. Kinds are
plain strings ("red", "locomotive") so they read the same in the engine, the log and the API.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

LOCOMOTIVE = "locomotive"
GRAY = "gray"
COLOURS: tuple[str, ...] = ("purple", "blue", "orange", "white", "green", "yellow", "black", "red")
CARD_KINDS: tuple[str, ...] = (*COLOURS, LOCOMOTIVE)
CARDS_PER_COLOUR = 12
LOCOMOTIVES = 14
TOTAL_CARDS = len(COLOURS) * CARDS_PER_COLOUR + LOCOMOTIVES  # 110

Cards = dict[str, int]


def full_deck() -> list[str]:
    """All 110 train cards in a fixed order (shuffle before use)."""
    deck = [colour for colour in COLOURS for _ in range(CARDS_PER_COLOUR)]
    deck.extend([LOCOMOTIVE] * LOCOMOTIVES)
    return deck


def count(cards: Iterable[str]) -> Cards:
    """The multiset of a sequence of cards."""
    counts: Cards = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    return counts


def total(cards: Mapping[str, int]) -> int:
    return sum(cards.values())


def add(hand: Cards, cards: Mapping[str, int]) -> None:
    """Add `cards` to `hand` in place."""
    for kind, n in cards.items():
        hand[kind] = hand.get(kind, 0) + n


def remove(hand: Cards, cards: Mapping[str, int]) -> None:
    """Take `cards` out of `hand` in place (the caller has checked that the hand holds them)."""
    for kind, n in cards.items():
        left = hand[kind] - n
        if left:
            hand[kind] = left
        else:
            del hand[kind]


def holds(hand: Mapping[str, int], cards: Mapping[str, int]) -> bool:
    for kind, n in cards.items():  # noqa: SIM110 (a loop: all() over a generator costs twice as much on every claim)
        if hand.get(kind, 0) < n:
            return False
    return True


def normalised(cards: Mapping[str, int]) -> Cards:
    """`cards` without zero counts, in the canonical kind order."""
    return {kind: cards[kind] for kind in CARD_KINDS if cards.get(kind, 0)}
