"""The random bot: a uniformly random legal move."""

from __future__ import annotations

from .decision import Choice, Decision


def choose(decision: Decision) -> Choice:
    return Choice(decision.moves[decision.rng.randrange(len(decision.moves))], "a random legal move")
