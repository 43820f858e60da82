"""What a policy is given (`Decision`) and what it answers (`Choice`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from games.engine.events import Event
from games.engine.moves import Move

DEFAULT_STRONG_SECONDS = 1.5  # the strong bot's thinking time per decision (TTR_STRONG_SECONDS)


@dataclass(frozen=True)
class Decision:
    """What a policy is given: the seat's view, its legal moves, its history, a random generator and a budget.

    `seconds` bounds a search bot's thinking time; `iterations`, when set, fixes its number of samples instead
    (no clock: the same decision every time, for tests and for replaying a bug)."""

    view: Mapping[str, Any]
    moves: Sequence[Move]
    rng: random.Random
    history: Sequence[Event] = field(default=())
    seconds: float = DEFAULT_STRONG_SECONDS
    iterations: int | None = None


class Choice(NamedTuple):
    move: Move
    reason: str  # a short sentence: "claims Berlin-Wien: ticket Berlin-Roma needs it"


Policy = Callable[[Decision], Choice]
