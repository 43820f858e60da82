"""Ratings chained from game to game: an account's (mu, sigma) before a game on a map is its (mu, sigma) after its
previous game on that map, "previous" in the order the games were rated (`order`, the RatingChange id). The first
change of an account in what is verified is taken as given.

The dumps leave private games out (docs/AUDIT.md), and a ranked private game moves its players' ratings too: where
an account's two changes have an `order` between them that no verified change holds (a private game's change, or
an id the database never used), the account may have played in between, and its before is taken as given there
(counted in `across_gaps`). Where every order between them is verified, the before must be the previous after.

The dumps hold games in the order they finished, and games are rated a moment after they finish, so the two
orders differ only a little. The chain holds the last WINDOW changes it was given, smallest `order` first out (a
heap), and links each change that leaves it to the account's previous one: memory stays bounded however many
games are verified. A change that comes more than WINDOW changes after its successor in rating order cannot be
linked, and is reported as such.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from games.audit.game_line import RatingStep
from games.audit.report import Problem

WINDOW = 200_000  # rating changes held back (at 4 a game: the last 50,000 games)


@dataclass(frozen=True)
class _Last:
    order: int
    mu_after: float
    sigma_after: float
    month: str
    game: str


class RatingChain:
    def __init__(self, window: int = WINDOW) -> None:
        self.window = window
        self._held: list[tuple[int, int, str, str, RatingStep]] = []  # (order, arrival, month, game, change)
        self._arrivals = itertools.count()
        self._last: dict[tuple[int, str], _Last] = {}  # (account, map) -> its last change linked
        self._last_order: int | None = None  # the order of the last change linked
        self._gap_starts: list[int] = []  # the runs of orders no change given holds, in order: (start, end) each
        self._gap_ends: list[int] = []
        self.linked = 0  # changes linked to the account's previous one
        self.across_gaps = 0  # of them, those whose before was taken as given: orders not verified lie between

    def add(self, month: str, game: str, steps: Iterable[RatingStep]) -> list[Problem]:
        """One game's changes; what is found wrong about the changes that leave the window meanwhile."""
        for step in steps:
            heapq.heappush(self._held, (step.order, next(self._arrivals), month, game, step))
        problems: list[Problem] = []
        while len(self._held) > self.window:
            problems += self._linked(*heapq.heappop(self._held))
        return problems

    def finish(self) -> list[Problem]:
        """Every change still held, linked in order."""
        problems: list[Problem] = []
        while self._held:
            problems += self._linked(*heapq.heappop(self._held))
        return problems

    def _gap_between(self, low: int, high: int) -> bool:
        """Whether an order strictly between `low` and `high` is held by no change given."""
        index = bisect.bisect_right(self._gap_ends, low)
        return index < len(self._gap_starts) and self._gap_starts[index] < high

    def _linked(self, order: int, _: int, month: str, game: str, step: RatingStep) -> list[Problem]:
        problems = []
        if self._last_order is not None and order == self._last_order:
            problems.append(Problem(month, game, f"ratings: order {order} is another rating change's too"))
        if self._last_order is not None and order > self._last_order + 1:
            self._gap_starts.append(self._last_order + 1)
            self._gap_ends.append(order - 1)
        key = (step.user, step.map)
        last = self._last.get(key)
        if last is not None and last.order > order:
            problems.append(Problem(month, game, (
                f"ratings: account {step.user}'s change (order {order}) on {step.map} comes more than {self.window} "
                f"changes after its later change (order {last.order}, game {last.game}): it cannot be chained"
            )))
            return problems
        if last is not None and (step.mu_before, step.sigma_before) != (last.mu_after, last.sigma_after):
            if self._gap_between(last.order, order):
                self.across_gaps += 1
            else:
                problems.append(Problem(month, game, (
                    f"ratings: account {step.user}'s (mu, sigma) before on {step.map} is "
                    f"{(step.mu_before, step.sigma_before)}, its after in its previous game {last.game} ({last.month}, "
                    f"order {last.order}) is {(last.mu_after, last.sigma_after)}"
                )))
        if last is not None:
            self.linked += 1
        self._last[key] = _Last(order, step.mu_after, step.sigma_after, month, game)
        self._last_order = order if self._last_order is None else max(order, self._last_order)
        return problems
