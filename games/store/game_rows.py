"""A game's row and its seats, and with them the requesting token and its user, in one plain SQL statement.

The game endpoints a move goes through (`/moves`, `/legal-moves`, `/state`, `/events`) each need the caller's token
checked and the game read: two ORM queries, a quarter of a move's time at 32 clients (bench/profile_moves.py), half
of it Django building SQL and model rows. Here both come from one statement, and the rows become model instances
the way the ORM makes them (`Model.from_db`, with the database's converters: a uuid or a date from SQLite's text).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model
from django.db.models.expressions import Col
from rest_framework.authtoken.models import Token

from games.store.models import Game, GameId, Seat

USER_FIELDS = ("id", "username", "is_active", "is_staff", "is_superuser")  # the rest loads if read (deferred)


@dataclass(frozen=True)
class Caller:
    """The owner of the token a request presented, as read with the game."""

    user: User
    token: Token


@dataclass(frozen=True)
class GameRead:
    game: Game | None  # None: no such game
    caller: Caller | None  # None: no token of that key (or none asked)


def read(game_id: GameId, *, token_key: str | None = None) -> GameRead:
    """The game with its seats in order (`game.seat_list` filled), and the owner of `token_key` if it exists."""
    table = _columns()
    with connection.cursor() as cursor:
        cursor.execute(table.sql, [token_key or "", Game._meta.pk.get_db_prep_value(game_id, connection)])
        rows = cursor.fetchall()
    if not rows:
        return GameRead(None, _caller_alone(token_key) if token_key else None)
    seats_at, game_at, token_at, user_at = table.slices
    game = _instance(Game, table.game, rows[0][game_at])
    seats = []
    for row in rows:
        seat = _instance(Seat, table.seat, row[seats_at])
        seat.game = game
        seats.append(seat)
    game.seat_list = seats  # fills the cached property
    first = rows[0]
    caller = None
    if token_key and first[token_at][0] is not None:
        caller = Caller(_instance(User, table.user, first[user_at]), _instance(Token, table.token, first[token_at]))
    return GameRead(game, caller)


def _caller_alone(token_key: str) -> Caller | None:
    token = Token.objects.select_related("user").filter(key=token_key).first()
    return Caller(token.user, token) if token is not None else None


Converter = Callable[[Any, Col, BaseDatabaseWrapper], Any]  # a value as read -> as the field holds it
_M = TypeVar("_M", bound=Model)


@dataclass(frozen=True)
class _Part:
    fields: tuple[Field[Any, Any], ...]
    converters: tuple[tuple[tuple[Converter, ...], Col], ...]  # per field: the converters and the column they take


@dataclass(frozen=True)
class _Statement:
    sql: str
    seat: _Part
    game: _Part
    token: _Part
    user: _Part
    slices: tuple[slice, slice, slice, slice]


_statements: dict[str, _Statement] = {}


def _columns() -> _Statement:
    """The statement and how to read its columns, once per database vendor."""
    found = _statements.get(connection.vendor)
    if found is not None:
        return found
    seat = _part(Seat, [f.name for f in Seat._meta.concrete_fields])
    game = _part(Game, [f.name for f in Game._meta.concrete_fields])
    token = _part(Token, ["key", "user", "created"])
    user = _part(User, [f.name for f in User._meta.concrete_fields if f.name in USER_FIELDS])  # in the model's order
    names = [
        *(f"s.{f.column}" for f in seat.fields), *(f"g.{f.column}" for f in game.fields),
        *(f"t.{f.column}" for f in token.fields), *(f"u.{f.column}" for f in user.fields),
    ]
    sql = (
        f"SELECT {', '.join(names)} FROM {Seat._meta.db_table} s JOIN {Game._meta.db_table} g ON g.id = s.game_id "
        f"LEFT JOIN {Token._meta.db_table} t ON t.key = %s LEFT JOIN {User._meta.db_table} u ON u.id = t.user_id "
        "WHERE s.game_id = %s ORDER BY s.number"
    )
    ends = list(accumulate([len(seat.fields), len(game.fields), len(token.fields), len(user.fields)]))
    seats_at, game_at, token_at, user_at = (slice(a, b) for a, b in zip([0, *ends[:-1]], ends, strict=True))
    statement = _Statement(sql, seat, game, token, user, (seats_at, game_at, token_at, user_at))
    _statements[connection.vendor] = statement
    return statement


def _part(model: type[Model], names: list[str]) -> _Part:
    by_name = {field.name: field for field in model._meta.concrete_fields}
    fields = tuple(by_name[name] for name in names)
    converters = []
    for field in fields:
        column = field.get_col(model._meta.db_table)
        found = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        converters.append((tuple(found), column))
    return _Part(fields, tuple(converters))


def _instance(model: type[_M], part: _Part, values: Sequence[Any]) -> _M:
    converted = []
    for value, (converters, column) in zip(values, part.converters, strict=True):
        for convert in converters:
            value = convert(value, column, connection)
        converted.append(value)
    return model.from_db(connection.alias, [f.attname for f in part.fields], converted)
