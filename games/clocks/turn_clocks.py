"""Turn clocks (docs/RULES.md X-TIME-1) and the sweep's questions, read from the log.

A decision starts with the event that gave the seat its decision: in the setup phase every seat chooses its
tickets at once from the moment the game started (event 1); later, the seat decides from the last event on,
leaving out what was appended beside the moves (a resignation, an operator's replacement or grant of time:
`time_banks.ASIDE`). In a live game the deadline is that event's time plus the game's `turn_seconds` and the time
granted to the seat since; in a daily game it is that event's time plus `days_per_move` and what is left of the
seat's bank (grants included), the clock standing still through its player's vacations (games/clocks/time_banks.py).
Either way it needs nothing but the log (and the vacations) and survives any restart. A day is TTR_DAY_SECONDS
long (86400; shorter only where a test or a demo wants it). The sweep runs every second: its questions are plain
SQL over active games and unscored finished ones (indexed by status), so it costs the same however many games
are over.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from games.clocks import time_banks
from games.clocks.models import Vacation
from games.engine import State
from games.engine.events import TimeGranted
from games.engine.state import SETUP_TICKETS
from games.store.models import Event, Game, GameId, Seat


def decision_seq(game: Game, state: State) -> int:
    """The seq of the event that opened the current decision(s)."""
    return 1 if state.phase == SETUP_TICKETS else _since_opening(game.pk, game.seq)[0].seq


def day() -> timedelta:
    return timedelta(seconds=settings.TTR_DAY_SECONDS)


def has_clock(game: Game) -> bool:
    return game.speed == "daily" or bool(game.turn_seconds)


def deadlines(game: Game, state: State, *, share: float = 1.0) -> dict[int, datetime]:
    """When each deciding seat's decision times out (`share` < 1: when that share of its time is spent); empty
    for a game without a clock or without a decision."""
    deciders = state.deciders()
    if not has_clock(game) or game.status != Game.Status.ACTIVE or not deciders:
        return {}
    if game.speed == "daily":
        return time_banks.deadlines(
            _rows(game), game.players, deciders, (game.days_per_move or 1) * day(), (game.bank_days or 0) * day(),
            _pauses(game), share,
        )
    rows = _rows(game) if state.phase == SETUP_TICKETS else _since_opening(game.pk, game.seq)  # from the opening on
    turn = timedelta(seconds=game.turn_seconds or 0)
    return {
        seat: rows[0].at + (turn + sum((row.granted for row in rows if row.seat == seat), time_banks.NO_TIME)) * share
        for seat in deciders
    }


def deadline(game: Game, state: State) -> datetime | None:
    """When the current decision times out (the first of them, in the setup phase); None without a clock."""
    times = deadlines(game, state)
    return min(times.values()) if times else None


def banks(game: Game) -> dict[int, int]:
    """A daily game's bank left per seat, in seconds ({} for a live game)."""
    if game.speed != "daily" or game.status == Game.Status.OPEN:
        return {}
    left, _ = time_banks.banks_left(
        _rows(game), game.players, (game.days_per_move or 1) * day(), (game.bank_days or 0) * day(), _pauses(game)
    )
    return {seat: int(bank.total_seconds()) for seat, bank in enumerate(left)}


def _rows(game: Game) -> tuple[time_banks.Row, ...]:
    return _rows_upto(game.pk, game.seq)


@lru_cache(maxsize=256)
def _rows_upto(game_id: GameId, seq: int) -> tuple[time_banks.Row, ...]:
    """The log's times up to `seq`. Kept per (game, seq): events are never changed, so neither is this; a daily
    game's /state, its socket pushes and the sweep ask it of the same seq several times."""
    rows = Event.objects.filter(game_id=game_id, seq__lte=seq).order_by("seq").values_list(*_ROW)
    return tuple(_row(*values) for values in rows)


@lru_cache(maxsize=1024)
def _since_opening(game_id: GameId, seq: int) -> tuple[time_banks.Row, ...]:
    """The rows from the one that opened the decision in progress (after the setup) to `seq`: the last few, read
    backwards to the first that is not beside the moves (all of them in the rare case that is further back)."""
    latest = Event.objects.filter(game_id=game_id, seq__lte=seq).order_by("-seq").values_list(*_ROW)
    for values in (latest[:8], latest):
        rows = [_row(*row) for row in values]
        if (opened := time_banks.opening(rows[::-1])) is not None:
            return tuple(row for row in reversed(rows) if row.seq >= opened.seq)
    raise LookupError(f"game {game_id} has no event that opens a decision")


_ROW = ("seq", "seat", "type", "created_at", "data")


def _row(seq: int, seat: int | None, type_: str, at: datetime, data: dict[str, Any]) -> time_banks.Row:
    granted = timedelta(seconds=data["seconds"]) if type_ == TimeGranted.type else time_banks.NO_TIME
    return time_banks.Row(seq, seat, type_, at, granted)


def _pauses(game: Game) -> dict[int, list[time_banks.Interval]]:
    """Each seat's player's vacations (a seat a bot plays has none)."""
    seats = {seat.user_id: seat.number for seat in game.seat_list if seat.user_id and not seat.played_by_bot}
    pauses: dict[int, list[time_banks.Interval]] = {}
    for user_id, start, end in Vacation.objects.filter(user_id__in=seats).values_list("user_id", "starts_at", "ends_at"):
        pauses.setdefault(seats[user_id], []).append((start, end))
    return pauses


@dataclass(frozen=True)
class ActiveGame:
    id: uuid.UUID
    seq: int
    turn_seconds: int | None
    days_per_move: int | None  # a daily game's (None: a live game)
    first_at: datetime
    last_at: datetime
    has_bots: bool  # a seat played by a bot (a bot seat, or a player who resigned)


_G, _E, _S = Game._meta.db_table, Event._meta.db_table, Seat._meta.db_table
_ACTIVE = (
    f"SELECT g.id, g.seq, g.turn_seconds, g.days_per_move, f.created_at, l.created_at, EXISTS (SELECT 1 FROM {_S} s "
    f"WHERE s.game_id = g.id AND (s.bot IS NOT NULL OR s.stand_in IS NOT NULL)) FROM {_G} g "
    f"JOIN {_E} f ON f.game_id = g.id AND f.seq = 1 JOIN {_E} l ON l.game_id = g.id AND l.seq = g.seq "
    "WHERE g.status = %s"
)
_UNSCORED = f"SELECT id FROM {_G} WHERE status = %s AND scored_at IS NULL AND finished_at < %s"


def active_games() -> list[ActiveGame]:
    with connection.cursor() as cursor:
        cursor.execute(_ACTIVE, [Game.Status.ACTIVE])
        rows = cursor.fetchall()
    return [ActiveGame(_uuid(r[0]), r[1], r[2], r[3], _aware(r[4]), _aware(r[5]), bool(r[6])) for r in rows]


WARN_SHARE = 0.8  # a person is told their clock is running out when this share of a daily decision's time is spent


def may_be_overdue(game: ActiveGame, *, now: datetime) -> bool:
    """Whether a decision of `game` can be past its deadline, or (daily) past the warning: every decision opens
    at event 1 or later, and has at least its move's time."""
    if game.days_per_move:
        return game.first_at + WARN_SHARE * game.days_per_move * day() <= now
    return game.turn_seconds is not None and game.first_at + timedelta(seconds=game.turn_seconds) <= now


def unscored_games(ended_before: datetime) -> list[uuid.UUID]:
    """Ids of games that ended before `ended_before` and whose score nobody has found in the log yet."""
    with connection.cursor() as cursor:
        cursor.execute(_UNSCORED, [Game.Status.FINISHED, connection.ops.adapt_datetimefield_value(ended_before)])
        return [_uuid(row[0]) for row in cursor.fetchall()]


def _uuid(value: uuid.UUID | str) -> uuid.UUID:
    """A game id as the raw cursor gives it (SQLite: 32 hex digits) as a UUID."""
    return value if isinstance(value, uuid.UUID) else uuid.UUID(value)


def _aware(value: datetime | str) -> datetime:
    """A timestamp as the raw cursor gives it (SQLite: a naive UTC string) as an aware datetime."""
    moment = parse_datetime(value) if isinstance(value, str) else value
    assert moment is not None
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment, UTC)
