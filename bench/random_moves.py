"""A random legal move in engine terms, for whoever plays games through the services in-process
(bench/socket_flood.py, the server tests): a helper, not a benchmark."""

from __future__ import annotations

import random
from typing import Any


def random_engine_move(state: Any, rng: random.Random) -> tuple[int, Any]:
    """A deciding seat and one of its legal moves (engine objects), leaning towards claims so games end sooner."""
    from games.engine import legal_moves

    seat = rng.choice(state.deciders())
    moves = legal_moves(state, seat)
    claims = [m for m in moves if m.type in ("claim_route", "pay_tunnel")]
    return seat, rng.choice(claims) if claims and rng.random() < 0.8 else rng.choice(moves)
