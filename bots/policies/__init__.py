"""Bot policies: pure functions `(view, legal_moves, rng) -> move` over the engine, one per level.

A policy sees only what its seat may see (the engine's `view`) and only chooses among `legal_moves`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from games.engine.moves import Move

from .greedy import choose as choose_greedy
from .random_policy import choose as choose_random

Policy = Callable[[dict[str, Any], Sequence[Move], random.Random], Move]

# The strong level plays the greedy policy until a search bot arrives.
POLICIES: dict[str, Policy] = {"random": choose_random, "greedy": choose_greedy, "strong": choose_greedy}


def policy_for(level: str) -> Policy:
    return POLICIES[level]
