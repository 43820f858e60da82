"""Bot policies: pure functions `(Decision) -> Choice` over the engine, one per level.

A policy sees only what its seat may see: the engine's `view` of the state for that seat, the seat's legal moves,
and the game's events so far as `redact` shows them to that seat (what the seat saw happen: cards taken face up,
tickets kept by count, tunnel reveals). It chooses one of the legal moves and says why in a few words.
"""

from __future__ import annotations

from .decision import DEFAULT_STRONG_SECONDS, Choice, Decision, Policy
from .greedy import choose as choose_greedy
from .random_policy import choose as choose_random
from .strong import choose as choose_strong

POLICIES: dict[str, Policy] = {"random": choose_random, "greedy": choose_greedy, "strong": choose_strong}
# Levels that read the seat's history (the others decide from the view alone, so their callers may skip it).
NEEDS_HISTORY = frozenset({"strong"})

__all__ = ["DEFAULT_STRONG_SECONDS", "NEEDS_HISTORY", "POLICIES", "Choice", "Decision", "Policy", "policy_for"]


def policy_for(level: str) -> Policy:
    return POLICIES[level]
