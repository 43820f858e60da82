"""The table while a move is being decided: a scratch state that records the events applied to it.

`decide` never changes its input: it copies the state into a `Table`, and every fact it finds is emitted,
which appends the event and applies it to the scratch state, so the next decision sees the table as it now
is. The shared card-handling steps (reshuffles, market refills, the three-locomotive rule) live here.
"""

from __future__ import annotations

import random

from . import events as ev
from .cards import CARD_KINDS, LOCOMOTIVE
from .evolve import evolve_in_place
from .state import State

MAX_MARKET_WIPES = 20


class Table:
    def __init__(self, state: State, rng: random.Random) -> None:
        self.state = state
        self.rng = rng
        self.events: list[ev.Event] = []

    def emit(self, event: ev.Event) -> None:
        self.events.append(event)
        evolve_in_place(self.state, event)

    def top_cards(self, n: int) -> list[str]:
        """The top `n` cards of the draw pile (fewer if it holds fewer), top first."""
        pile = self.state.draw_pile
        # Slice from the end: a stop of `len(pile) - n - 1` would turn negative (and wrap) when n >= len(pile).
        return pile[-1 : -n - 1 : -1]

    def reshuffle(self, reason: str) -> None:
        """Shuffle the discard pile under the draw pile (C-DRW-5, E-TUN-1)."""
        discards = self.state.discards
        cards = [kind for kind in CARD_KINDS for _ in range(discards.get(kind, 0))]
        if cards:
            self.rng.shuffle(cards)
            self.emit(ev.DeckShuffled(size=len(cards), reason=reason, cards=tuple(cards)))

    def ensure_pile(self, n: int, reason: str = "reshuffle") -> None:
        """Reshuffle the discards in when the draw pile holds fewer than `n` cards and discards exist."""
        if len(self.state.draw_pile) < n and self.state.discards:
            self.reshuffle(reason)

    def fill_market(self) -> None:
        """Turn up cards into every empty market slot while cards remain, then apply C-DRW-4."""
        self.fill_market_slots()
        self._three_locomotives()

    def _three_locomotives(self) -> None:
        s = self.state
        for _ in range(MAX_MARKET_WIPES):
            if s.market.count(LOCOMOTIVE) < 3:
                return
            if self._non_locomotives_available() < 3:
                self.emit(ev.MarketWipeSkipped("the piles cannot supply a market without three locomotives"))
                return
            self.emit(ev.MarketDiscarded(cards=tuple(c for c in s.market if c is not None)))
            self.fill_market_slots()
        self.emit(ev.MarketWipeSkipped(f"three locomotives came up {MAX_MARKET_WIPES} times in a row"))

    def fill_market_slots(self) -> None:
        """Fill empty slots without applying C-DRW-4 (the caller does)."""
        s = self.state
        while (empty := [i for i, card in enumerate(s.market) if card is None]):
            self.ensure_pile(1)
            if not s.draw_pile:
                return
            slots = tuple(empty[: len(s.draw_pile)])
            self.emit(ev.MarketRevealed(slots=slots, cards=tuple(self.top_cards(len(slots)))))

    def _non_locomotives_available(self) -> int:
        s = self.state
        in_pile = len(s.draw_pile) - s.draw_pile.count(LOCOMOTIVE)
        in_discards = sum(n for kind, n in s.discards.items() if kind != LOCOMOTIVE)
        in_market = sum(1 for card in s.market if card is not None and card != LOCOMOTIVE)
        return in_pile + in_discards + in_market
