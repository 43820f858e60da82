"""The problems a check of recorded traffic finds (bench.traffic.checks, bench.traffic.received)."""

from __future__ import annotations

from collections import Counter


class Findings:
    """Problems found, grouped by (game, kind) with a count and the first few examples; and what was checked."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str], list[str]] = {}
        self.counts: Counter[tuple[str, str]] = Counter()
        self.checked: Counter[str] = Counter()

    def add(self, game: str, kind: str, detail: str) -> None:
        key = (game, kind)
        self.counts[key] += 1
        examples = self.found.setdefault(key, [])
        if len(examples) < 3:
            examples.append(detail[:600])

    def lines(self) -> list[str]:
        return [
            f"game {game}: {kind} ({self.counts[(game, kind)]}x): " + " | ".join(examples)
            for (game, kind), examples in self.found.items()
        ]
