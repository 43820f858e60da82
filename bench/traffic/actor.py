"""What a driver thread of `bench.traffic.play` runs: actors (a game's table, the people at it, a spectator).
Each `step()` returns the seconds until it wants to run again, or None when it is done."""

from __future__ import annotations


class Actor:
    failures = 0

    def step(self) -> float | None:
        raise NotImplementedError

    def close(self) -> None:
        pass
