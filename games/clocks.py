"""Turn clocks (RULES.md X-TIME-1) and the sweep's questions, read from the log.

A decision starts with the event that gave the seat its decision: in the setup phase every seat chooses its
tickets at once from the moment the game started (event 1); later, the seat decides from the last event on.
The deadline is that event's time plus the game's `turn_seconds`, so it needs nothing but the log and
survives any restart. The sweep runs every second: its questions are plain SQL over active games and
unscored finished ones (indexed by status), so it costs the same however many games are over.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from games.engine import State
from games.engine.state import SETUP_TICKETS
from games.models import Event, Game, Seat


def decision_seq(game: Game, state: State) -> int:
    """The seq of the event that opened the current decision(s)."""
    return 1 if state.phase == SETUP_TICKETS else game.seq


def deadline(game: Game, state: State) -> datetime | None:
    """When the current decision times out; None for a game without a clock or without a decision."""
    if not game.turn_seconds or game.status != Game.Status.ACTIVE or not state.deciders():
        return None
    opened = Event.objects.filter(game_id=game.pk, seq=decision_seq(game, state)).values_list("created_at", flat=True)
    started = opened.first()
    return None if started is None else started + timedelta(seconds=game.turn_seconds)


@dataclass(frozen=True)
class ActiveGame:
    id: Any
    seq: int
    turn_seconds: int | None
    first_at: datetime
    last_at: datetime
    has_bots: bool  # a seat played by a bot (a bot seat, or a player who resigned)


_G, _E, _S = Game._meta.db_table, Event._meta.db_table, Seat._meta.db_table
_ACTIVE = (
    f"SELECT g.id, g.seq, g.turn_seconds, f.created_at, l.created_at, EXISTS (SELECT 1 FROM {_S} s "
    f"WHERE s.game_id = g.id AND (s.bot IS NOT NULL OR s.stand_in IS NOT NULL)) FROM {_G} g "
    f"JOIN {_E} f ON f.game_id = g.id AND f.seq = 1 JOIN {_E} l ON l.game_id = g.id AND l.seq = g.seq "
    "WHERE g.status = %s"
)
_UNSCORED = f"SELECT id FROM {_G} WHERE status = %s AND scored_at IS NULL AND finished_at < %s"


def active_games() -> list[ActiveGame]:
    with connection.cursor() as cursor:
        cursor.execute(_ACTIVE, [Game.Status.ACTIVE])
        rows = cursor.fetchall()
    return [ActiveGame(_uuid(r[0]), r[1], r[2], _aware(r[3]), _aware(r[4]), bool(r[5])) for r in rows]


def may_be_overdue(game: ActiveGame, now: datetime) -> bool:
    """Whether a decision of `game` can be past its deadline (every decision opens at event 1 or later)."""
    return game.turn_seconds is not None and game.first_at + timedelta(seconds=game.turn_seconds) <= now


def unscored_games(ended_before: datetime) -> list[Any]:
    """Ids of games that ended before `ended_before` and whose score nobody has found in the log yet."""
    with connection.cursor() as cursor:
        cursor.execute(_UNSCORED, [Game.Status.FINISHED, connection.ops.adapt_datetimefield_value(ended_before)])
        return [_uuid(row[0]) for row in cursor.fetchall()]


def _uuid(value: Any) -> Any:
    return Game._meta.pk.to_python(value)  # type: ignore[union-attr]


def _aware(value: Any) -> datetime:
    """A timestamp as the raw cursor gives it (SQLite: a naive UTC string) as an aware datetime."""
    moment = parse_datetime(value) if isinstance(value, str) else value
    assert moment is not None
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment, UTC)
