"""What the engine draws its random outcomes from: a `random.Random` (tests, simulations, games before
provably fair ones) or `seeds.FairDraws` (a fair game's seeds). The engine asks for two things only."""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any, Protocol


class Draws(Protocol):
    def randrange(self, n: int, /) -> int:
        """An integer in [0, n): the first player."""
        ...

    def shuffle(self, x: MutableSequence[Any], /) -> None:
        """Shuffle in place: a pile."""
        ...
