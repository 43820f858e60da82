"""What a policy is given (`Decision`) and what it answers (`Choice`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from games.engine.events import Event
from games.engine.moves import Move
from games.engine.view import PlayerView

DEFAULT_STRONG_SECONDS = 1.5  # the strong bot's thinking time per decision (TTR_STRONG_SECONDS)


@dataclass(frozen=True)
class Decision:
    """What a policy is given: the seat's view, its legal moves, its history, a random generator and a budget.

    `seconds` bounds a search bot's thinking time; `iterations`, when set, fixes its number of samples instead
    (no clock: the same decision every time, for tests and for replaying a bug)."""

    view: PlayerView
    moves: Sequence[Move]
    rng: random.Random
    history: Sequence[Event] = field(default=())
    seconds: float = DEFAULT_STRONG_SECONDS
    iterations: int | None = None


class Choice(NamedTuple):
    move: Move
    reason: str  # a short sentence: "claims Berlin-Wien: ticket Berlin-Roma needs it"


Policy = Callable[[Decision], Choice]


def own_seat(view: PlayerView) -> int:
    """The seat whose view this is: a policy decides for a seat, and is never given a spectator's view."""
    if view.your_seat is None:
        raise ValueError("a spectator's view has no seat to decide for")
    return view.your_seat
