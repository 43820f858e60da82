"""The table while a move is being decided: a scratch state that records the events applied to it.

`decide` never changes its input: it copies the state into a `Table`, and every fact it finds is emitted,
which appends the event and applies it to the scratch state, so the next decision sees the table as it now
is. The shared card-handling steps (reshuffles, market refills, the three-locomotive rule) live here.

The three-locomotive rule (C-DRW-4) wipes the market for as long as a better one can come up, with no cap:
it stops at once when the draw pile, discard pile and market hold fewer than 3 other cards (no market of 5
can then show at most 2 locomotives), and otherwise every reshuffle of the discards gives the next markets a
fresh chance, above zero within two reshuffles from any position, so the wipes end with probability 1 (at
worst, 14 locomotives and 3 other cards, after about 70 wipes on average). Each reshuffle's order is in its
`DeckShuffled` event (X-RNG-1): a replay folds the wipes without repeating them.
"""

from __future__ import annotations

from functools import lru_cache

from . import events as ev
from .cards import CARD_KINDS, LOCOMOTIVE
from .draws import Draws
from .evolve import evolve_in_place
from .state import State

NO_BETTER_MARKET = "the piles cannot supply a market without three locomotives"

# Market refills recur (one slot, one of nine kinds, most of the time): each is an immutable value, made once.
_market_revealed = lru_cache(maxsize=4096)(ev.MarketRevealed)
_ONE_REVEALED = tuple({kind: ev.MarketRevealed((slot,), (kind,)) for kind in CARD_KINDS} for slot in range(5))


class Table:
    __slots__ = ("events", "rng", "state")

    def __init__(self, state: State, rng: Draws) -> None:
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
        market = self.state.market
        if None in market:  # (most turns find the market full and fine)
            self.fill_market_slots()
            if self.state.market.count(LOCOMOTIVE) >= 3:
                self._three_locomotives()
        elif market.count(LOCOMOTIVE) >= 3:
            self._three_locomotives()

    def market_would_change(self) -> bool:
        """Whether `fill_market` would now turn up a card or wipe the market (and not merely record a skip again)."""
        s = self.state
        fillable = None in s.market and bool(s.draw_pile or s.discards)
        return fillable or (s.market.count(LOCOMOTIVE) >= 3 and self._non_locomotives_available() >= 3)

    def _three_locomotives(self) -> None:
        """C-DRW-4: wipe while 3 locomotives show; record a skip only when no better market can come up."""
        s = self.state
        while s.market.count(LOCOMOTIVE) >= 3:
            if self._non_locomotives_available() < 3:
                self.emit(ev.MarketWipeSkipped(NO_BETTER_MARKET))
                return
            self.emit(ev.MarketDiscarded(cards=tuple(c for c in s.market if c is not None)))
            self.fill_market_slots()

    def fill_market_slots(self) -> None:
        """Fill empty slots without applying C-DRW-4 (the caller does)."""
        s = self.state
        while None in s.market:  # (most refills find the market full)
            if not s.draw_pile:
                self.ensure_pile(1)
                if not s.draw_pile:
                    return
            market = s.market
            pile = s.draw_pile
            if market.count(None) == 1:  # (the commonest refill: the slot a card was just taken from)
                self.emit(_ONE_REVEALED[market.index(None)][pile[-1]])
                continue
            slots = tuple([i for i, card in enumerate(market) if card is None][: len(pile)])
            self.emit(_market_revealed(slots, tuple(pile[-1 : -len(slots) - 1 : -1])))

    def _non_locomotives_available(self) -> int:
        s = self.state
        in_pile = len(s.draw_pile) - s.draw_pile.count(LOCOMOTIVE)
        in_discards = sum(n for kind, n in s.discards.items() if kind != LOCOMOTIVE)
        in_market = sum(1 for card in s.market if card is not None and card != LOCOMOTIVE)
        return in_pile + in_discards + in_market
