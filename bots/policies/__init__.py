"""Bot policies: pure functions `(view, legal_moves, rng) -> move` over the engine, one per level.

A policy sees only what its seat may see (the engine's `view`) and only chooses among `legal_moves`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from games.engine.moves import Move

from .random_policy import choose as choose_random

Policy = Callable[[dict[str, Any], Sequence[Move], random.Random], Move]

# The greedy and strong levels arrive with the bots issue; until then they play the random policy.
POLICIES: dict[str, Policy] = {"random": choose_random, "greedy": choose_random, "strong": choose_random}


def policy_for(level: str) -> Policy:
    return POLICIES[level]
