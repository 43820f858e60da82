"""What post-game analysis and hints answer (docs/API.md, Analysis), each shape written once, as a frozen dataclass.

Their JSON and OpenAPI schema are read off the type hints (games/api/typed_json.py, games/api/typed_schema.py), with
the marks of games/store/shape_marks.py. An analysis's decisions and evaluation graph are stored as JSON on its row
(games/review/models.py): `stored` writes that JSON and `JudgedDecision.of_stored`, `LeadsPoint.of_stored` read it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

from games.engine.codec import move_from_dict, move_to_dict
from games.engine.moves import Move
from games.store.models import BOT_LEVELS
from games.store.shape_marks import Schema

Count = Annotated[int, Schema(minimum=0)]
MARKS = ["inaccuracy", "mistake", "blunder"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AnalysisNone:
    """No analysis of the game: nobody has asked for one (a player of a finished game may: POST)."""

    status: Annotated[str, Schema(enum=["none"])]


@dataclass(frozen=True, slots=True, kw_only=True)
class AnalysisProgress:
    """An analysis queued, or running: how far it is."""

    status: Annotated[str, Schema(enum=["queued", "running"])]
    progress: Annotated[float, Schema(minimum=0, maximum=1)]


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgedDecision:
    seq: Annotated[int, Schema("the position decided on: the last event before the move (the replay at this seq)",
                               minimum=0)]
    event: Annotated[int, Schema(
        "the move played: the seq of its event that names it (after any reshuffle the move caused), an event of "
        "this seat (the replay at this seq tells that move)", minimum=1,
    )]
    seat: Count
    played: Move
    best: Annotated[Move, Schema("the best candidate the search found (the move played when it is the best)")]
    lead: Annotated[float, Schema("the seat's estimated final lead over the best other seat after the move played")]
    loss: Annotated[float, Schema(
        "points the best candidate is estimated to gain over the move played, measured on sampled games other than "
        "those that chose it (an unbiased estimate: it may be below 0; 0 when the move played is the best)"
    )]
    stderr: Annotated[float, Schema("the standard error of that loss (paired samples)", minimum=0)]
    loss_low: Annotated[float, Schema("the loss's interval, two standard errors either side (about 95 %): its low "
                                      "end")] = math.nan  # (NaN: made from `loss` and `stderr`)
    loss_high: Annotated[float, Schema("and its high end")] = math.nan
    mark: Annotated[str | None, Schema(enum=MARKS)]
    reason: Annotated[str, Schema("why the best move, in the bot's words")]
    samples: Annotated[int, Schema("sampled games the move played was judged on", minimum=0)]

    def __post_init__(self) -> None:
        """The interval, when not given (a decision stored before it was kept): two standard errors either side."""
        if math.isnan(self.loss_low):
            object.__setattr__(self, "loss_low", round(self.loss - 2 * self.stderr, 2))
        if math.isnan(self.loss_high):
            object.__setattr__(self, "loss_high", round(self.loss + 2 * self.stderr, 2))

    @classmethod
    def of_stored(cls, data: Mapping[str, Any], *, event: int | None = None) -> JudgedDecision:
        """A stored decision; `event` for one stored before its row kept its move's event."""
        return cls(**{
            "event": event, **data, "played": move_from_dict(data["played"]), "best": move_from_dict(data["best"]),
        })


@dataclass(frozen=True, slots=True, kw_only=True)
class LeadsPoint:
    seq: Count
    leads: Annotated[Mapping[str, float], Schema("by seat: the estimated final lead")]

    @classmethod
    def of_stored(cls, data: Mapping[str, Any]) -> LeadsPoint:
        return cls(seq=data["seq"], leads=data["leads"])


def stored(value: JudgedDecision | LeadsPoint) -> dict[str, Any]:
    """A decision or a point of the graph as its analysis's row keeps it (JSON: a move as the codec writes it)."""
    if isinstance(value, LeadsPoint):
        return {"seq": value.seq, "leads": dict(value.leads)}
    return {
        **{f.name: getattr(value, f.name) for f in dataclasses.fields(value)},
        "played": move_to_dict(value.played), "best": move_to_dict(value.best),
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class AnalysedPlayer:
    seat: Count
    username: str | None
    bot: Annotated[str | None, Schema(enum=BOT_LEVELS)]
    decisions: Count
    mean_loss: Annotated[float, Schema("points lost a decision: the mean of its decisions' losses (each unbiased, "
                                       "so it may be below 0)")]
    inaccuracies: Count
    mistakes: Count
    blunders: Count


@dataclass(frozen=True, slots=True, kw_only=True)
class AnalysisDone:
    """A finished game's analysis, done."""

    status: Annotated[str, Schema(enum=["done"])]
    bot: Annotated[str, Schema("the analysing bot and its version")]
    budget: Annotated[Mapping[str, int], Schema("sampled games a decision")]
    seq: Annotated[int, Schema("the last seq of the log analysed", minimum=0)]
    head_hash: Annotated[str, Schema("the hash of that event")]
    altered: Annotated[bool, Schema("the log no longer holds what was analysed")]
    cpu_seconds: float | None
    finished_at: datetime | None
    decisions: tuple[JudgedDecision, ...]
    leads: Annotated[
        tuple[LeadsPoint, ...], Schema("the evaluation graph; the last point is the true final lead")
    ]
    players: tuple[AnalysedPlayer, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Hint:
    """The strong bot's move for your decision now, and why."""

    move: Move
    reason: str
    seq: Annotated[int, Schema("the game's seq once the hint is recorded", minimum=0)]
    hints: Annotated[int, Schema("hints this seat has used in the game", minimum=1)]


# A player's page (games/play/shapes.py PlayerPage): their analysed games by map.

PrivateGame = Annotated[UUID | None, Schema("null: a private game (a public page names none)")]


@dataclass(frozen=True, slots=True, kw_only=True)
class TrendPoint:
    game: PrivateGame
    at: datetime
    decisions: Annotated[int, Schema(minimum=0)]
    mean_loss: float


@dataclass(frozen=True, slots=True, kw_only=True)
class MapAnalysis:
    games: Annotated[int, Schema(minimum=1)]
    decisions: Annotated[int, Schema(minimum=0)]
    mean_loss: Annotated[float, Schema("points lost a decision (unbiased: it may be below 0)")]
    trend: Annotated[tuple[TrendPoint, ...], Schema("the last 20 analysed games, oldest first")]
