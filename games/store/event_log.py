"""The event log: appending engine events as hash-chained rows, and reading them back.

Each row's hash covers the previous row's hash and the row's canonical JSON, so any edit, insertion or
removal of history breaks the chain (`verify`). Events with a hidden random outcome also carry a commitment:
the SHA-256 of a random salt and the hidden fields, published at once; the salt stays private until the game
is over, when the audit log shows it and anyone can check that the outcome was fixed when it was announced.
"""

from __future__ import annotations

import functools
import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db import IntegrityError, connection
from django.db.models import Field
from django.utils import timezone

from games.engine import Event as EngineEvent
from games.engine import hash_chain, redact
from games.engine.codec import event_from_dict, event_to_dict
from games.engine.hash_chain import commitment_of, hidden_fields
from games.store.models import Event, Game, GameId


class StaleSeq(Exception):
    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at seq {current}")
        self.current = current


def row_hash(
    prev_hash: str, seq: int, type_: str, seat: int | None, data: dict[str, Any], commitment: str, salt: str,
    at: datetime, reason: str = "",
) -> str:
    return hash_chain.row_hash(prev_hash, seq, type_, seat, data, commitment, salt, at.isoformat(), reason)


def _commit(event: EngineEvent, data: dict[str, Any]) -> tuple[str, str]:
    hidden = hidden_fields(data, event_to_dict(redact(event, None)))
    if not hidden:
        return "", ""
    salt = secrets.token_hex(16)
    return commitment_of(salt, hidden), salt


def _seat_of(event: EngineEvent) -> int | None:
    seat = getattr(event, "seat", None)
    return seat if isinstance(seat, int) else None


def append(
    game: Game, expected_seq: int, events: Sequence[EngineEvent], reasons: Mapping[int, str] | None = None
) -> list[Event]:
    """Append `events` after `expected_seq`, in the caller's transaction; `StaleSeq` if another won. One statement
    on PostgreSQL (the head's move and the rows' insert: one round trip), two on SQLite (no UPDATE in a WITH).
    `reasons`: a bot's reason for its move, by the index in `events` of the move's first event."""
    now = timezone.now()
    prev, rows = game.head_hash, []
    for index, event in enumerate(events):
        seq = expected_seq + 1 + index
        data = event_to_dict(event)
        commitment, salt = _commit(event, data)
        reason = (reasons or {}).get(index, "")
        digest = row_hash(prev, seq, event.type, _seat_of(event), data, commitment, salt, now, reason)
        rows.append(
            Event(
                game=game, seq=seq, type=event.type, seat=_seat_of(event), data=data, commitment=commitment,
                salt=salt, created_at=now, prev_hash=prev, hash=digest, reason=reason,
            )
        )
        prev = digest
    new_seq = expected_seq + len(events)
    values = [field.get_db_prep_save(getattr(row, field.attname), connection) for row in rows for field in _INSERTED]
    key = game_key(game.pk)
    with connection.cursor() as cursor:
        try:
            if connection.vendor == "postgresql":
                cursor.execute(_append_sql(len(rows)), [new_seq, prev, key, expected_seq, *values])
                if cursor.rowcount != len(rows):
                    raise StaleSeq(_seq_now(game))
            else:
                cursor.execute(_MOVE_HEAD, [new_seq, prev, key, expected_seq])
                if cursor.rowcount != 1:
                    raise StaleSeq(_seq_now(game))
                cursor.execute(_insert_sql(len(rows)), _with_game(key, values))
        except IntegrityError as error:
            raise StaleSeq(_seq_now(game)) from error
    game.seq, game.head_hash = new_seq, prev
    return rows


def _seq_now(game: Game) -> int:
    return Game.objects.values_list("seq", flat=True).get(pk=game.pk)


# The conditional UPDATE takes the game row's lock: of two writers at the same seq one waits, then finds seq moved
# and updates nothing. The unique (game, seq) constraint is the second guard. Plain SQL: this is the server's
# hottest write, and the ORM's query building cost more than the database's work.
_MOVE_HEAD = f"UPDATE {Game._meta.db_table} SET seq = %s, head_hash = %s WHERE id = %s AND seq = %s"
_EVENT_FIELDS = {field.name: field for field in Event._meta.concrete_fields}
_INSERTED = [
    _EVENT_FIELDS[name]
    for name in ("seq", "type", "seat", "data", "commitment", "salt", "created_at", "prev_hash", "hash", "reason")
]
_COLUMNS = ", ".join(["game_id", *(field.column for field in _INSERTED)])
_ROW = ", ".join(["%s"] * len(_INSERTED))


def _with_game(key: UUID | str, values: list[Any]) -> list[Any]:
    per_row = len(_INSERTED)
    return [value for at in range(0, len(values), per_row) for value in (key, *values[at:at + per_row])]


@functools.cache
def _insert_sql(count: int) -> str:
    return f"INSERT INTO {Event._meta.db_table} ({_COLUMNS}) VALUES " + ", ".join([f"(%s, {_ROW})"] * count)


def _cast_type(field: Field[Any, Any]) -> str:
    # text, not varchar(n): a cast to varchar(n) cuts a longer string short, where the insert must refuse it
    if field.get_internal_type() == "CharField":
        return "text"
    cast: str = field.cast_db_type(connection)  # type: ignore[attr-defined]  # Django's Field has it; django-stubs lacks it
    return cast


@functools.cache
def _append_sql(count: int) -> str:
    """One statement: the head moves only from `expected_seq`, and the rows are inserted once for each head moved
    (the rows' values joined to the UPDATE's RETURNING), so a stale append moves nothing and inserts nothing."""
    typed = ", ".join(f"CAST(%s AS {_cast_type(field)})" for field in _INSERTED)
    names = ", ".join(field.column for field in _INSERTED)
    return (
        f"WITH head AS ({_MOVE_HEAD} RETURNING id) INSERT INTO {Event._meta.db_table} ({_COLUMNS}) "
        f"SELECT head.id, rows.* FROM head, (VALUES " + ", ".join([f"({typed})"] * count) + f") AS rows ({names})"
    )


def rows_between(game_id: GameId, after: int, upto: int | None = None) -> Iterable[Event]:
    rows = Event.objects.filter(game_id=game_id, seq__gt=after).order_by("seq")
    return rows.filter(seq__lte=upto) if upto is not None else rows


def events_between(game_id: GameId, after: int, upto: int) -> list[EngineEvent]:
    """The engine events after `after` up to `upto`: what replay needs.

    The hottest read of the server (every state rebuild), so one plain SQL statement: building the ORM query
    and model rows cost several times more than the database's answer.
    """
    with connection.cursor() as cursor:
        cursor.execute(_EVENTS_BETWEEN, [game_key(game_id), after, upto])
        return [event_from_dict(json.loads(data) if isinstance(data, str) else data) for (data,) in cursor]


def appended_at(game_id: GameId, seq: int) -> datetime | None:
    """When the game's event `seq` was appended (None: no such event)."""
    found: datetime | None = Event.objects.filter(game_id=game_id, seq=seq).values_list("created_at", flat=True).first()
    return found


def game_key(game_id: GameId) -> UUID | str:
    """A game id as the database stores it, for plain SQL (a uuid on PostgreSQL, 32 hex digits on SQLite)."""
    key: UUID | str = Game._meta.pk.get_db_prep_value(game_id, connection)
    return key


_EVENTS_BETWEEN = f"SELECT data FROM {Event._meta.db_table} WHERE game_id = %s AND seq > %s AND seq <= %s ORDER BY seq"


def engine_event(row: Event) -> EngineEvent:
    """The row's engine event, decoded once per row object (a web process's sockets of a game share its rows)."""
    memo = vars(row)
    event: EngineEvent | None = memo.get("_engine_event")
    if event is None:
        event = memo["_engine_event"] = event_from_dict(row.data)
    return event


def project(row: Event, viewer: int | None, finished: bool) -> dict[str, Any]:
    """The API shape of one event as `viewer` may see it (docs/API.md: seq, type, at, seat, data).

    Each distinct view of a row (whole, or with its hidden fields removed) is shaped once per row object and shared
    by every viewer who sees that view (the sockets of a game in one web process). Callers only read it."""
    view = _view(row, viewer, finished)
    return {**view.shape, "reason": row.reason} if _reason_shown(row, viewer, finished) else view.shape


def project_text(row: Event, viewer: int | None, finished: bool) -> str:
    """`project` as compact JSON text (what a socket sends), encoded once per distinct view of the row too."""
    view = _view(row, viewer, finished)
    if _reason_shown(row, viewer, finished):
        return compact_json({**view.shape, "reason": row.reason})
    if view.text is None:
        view.text = compact_json(view.shape)
    return view.text


def compact_json(value: Any) -> str:
    """JSON as the sockets send it: no spaces, ASCII (the key order as given)."""
    return json.dumps(value, separators=(",", ":"))


@dataclass
class _View:
    event: EngineEvent  # the row's event as some viewers may see it
    shape: dict[str, Any]
    text: str | None = None


def _view(row: Event, viewer: int | None, finished: bool) -> _View:
    """The row as `viewer` may see it; made once per distinct view and kept on the row object (a card drawn from
    the deck has two: its drawer's, and everyone else's)."""
    shown = redact(engine_event(row), viewer, finished=finished)
    views: list[_View] = vars(row).setdefault("_views", [])
    for view in views:
        if view.event is shown or view.event == shown:
            return view
    view = _View(shown, _shape(row, shown))
    views.append(view)
    return view


def _reason_shown(row: Event, viewer: int | None, finished: bool) -> bool:
    """A bot's move: why it made it. Its words name the seat's tickets ("keeps tickets Berlin-Roma", "ticket
    Berlin-Roma needs it"), so only that seat's viewer reads them before the game ends; then everyone does."""
    return bool(row.reason) and (finished or (viewer is not None and viewer == row.seat))


def _shape(row: Event, event: EngineEvent) -> dict[str, Any]:
    visible = event_to_dict(event)
    visible.pop("type")
    if row.commitment:
        visible["commitment"] = row.commitment
    return {"seq": row.seq, "type": row.type, "at": row.created_at.isoformat(), "seat": row.seat, "data": visible}


def audit_line(row: Event) -> dict[str, Any]:
    """The complete, unprojected row with its chain fields (audit log, once the game is over)."""
    return {
        "seq": row.seq, "type": row.type, "at": row.created_at.isoformat(), "seat": row.seat, "data": row.data,
        "commitment": row.commitment, "salt": row.salt, "prev_hash": row.prev_hash, "hash": row.hash,
        **({"reason": row.reason} if row.reason else {}),
    }
