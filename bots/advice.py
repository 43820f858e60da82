"""The strong bot's advice for a hint (games/review/hints.py): its move for the seat's decision, and why, in a short
search from what the seat may see."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bots.policies import Decision, policy_for
from games.engine import Event, Move, PlayerView


def advise(seen: PlayerView, moves: Sequence[Move], history: Sequence[Event], seconds: float, seed: str) -> tuple[Move, str]:
    choice = policy_for("strong")(Decision(seen, moves, random.Random(seed), tuple(history), seconds))
    return choice.move, choice.reason
