"""What a verification found: each problem names its month, its game (when it is one game's) and what failed; the
report keeps the first few to print, and counts them all, month by month."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

SHOWN = 20  # problems printed


@dataclass(frozen=True)
class Problem:
    month: str
    game: str | None  # None: the month's manifest or file, not one game
    text: str

    def __str__(self) -> str:
        return f"{self.month} game {self.game}: {self.text}" if self.game is not None else f"{self.month}: {self.text}"


@dataclass
class Report:
    first: list[Problem] = field(default_factory=list)  # the first SHOWN problems found
    by_month: Counter[str] = field(default_factory=Counter)
    games: int = 0
    events: int = 0

    @property
    def count(self) -> int:
        return sum(self.by_month.values())

    def add(self, problem: Problem) -> None:
        self.by_month[problem.month] += 1
        if len(self.first) < SHOWN:
            self.first.append(problem)

    def add_all(self, month: str, game: str | None, texts: Iterable[str]) -> None:
        for text in texts:
            self.add(Problem(month, game, text))
