"""The random bot: a uniformly random legal move."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.engine.moves import Move


def choose(view: dict[str, Any], moves: Sequence[Move], rng: random.Random) -> Move:
    return moves[rng.randrange(len(moves))]
