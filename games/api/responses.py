"""Response bodies of the API, for the OpenAPI schema.

Most reads answer a frozen dataclass (games/play/shapes.py), whose JSON and schema are read off its type hints
(games/api/typed_json.py, games/api/typed_schema.py); the pages of lists are here. The serializers below describe,
field by field, the answers still built as plain data. The schemathesis run in the tests checks every response
against the schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from rest_framework import serializers

from games.api.fields import ObjectSerializer
from games.api.typed_schema import DataclassSchema  # noqa: F401  # (imported, it describes the dataclasses views name)
from games.people.models import NOTIFICATION_KINDS
from games.play.shapes import GameSummary, LeaderboardEntry
from games.store.shape_marks import Schema
from games.table.chat import Line


@dataclass(frozen=True, slots=True, kw_only=True)
class Page:
    """A page of a paginated list: how many in all and the links around it; a page of each list adds `results`."""

    count: int
    next: Annotated[str | None, Schema(format="uri")]
    previous: Annotated[str | None, Schema(format="uri")]


@dataclass(frozen=True, slots=True, kw_only=True)
class GameList(Page):
    results: tuple[GameSummary, ...]


@dataclass(frozen=True, kw_only=True)
class Leaderboard(Page):
    results: tuple[LeaderboardEntry, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Registered:
    username: str
    token: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Token:
    token: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LoggedIn:
    username: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Ok:
    ok: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Invitation:
    username: str
    token: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatLines:
    results: tuple[Line, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Muted:
    username: str
    muted: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Reported:
    reported: bool


class ErrorSerializer(ObjectSerializer):
    code = serializers.CharField(help_text="machine-readable: see the README's table of error codes")
    detail = serializers.CharField(help_text="a human sentence")
    rule = serializers.CharField(required=False, help_text="the docs/RULES.md rule ID that refuses a move")
    seq = serializers.IntegerField(required=False, help_text="the game's current seq (stale_seq)")
    field = serializers.CharField(required=False, allow_null=True, help_text="the request field at fault")
    fields = serializers.DictField(  # type: ignore[assignment]  # a declared field (see EventSerializer.data)
        child=serializers.CharField(), required=False, help_text="field -> problem"
    )


class NotificationSerializer(ObjectSerializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=NOTIFICATION_KINDS)
    game = serializers.UUIDField(allow_null=True)
    at = serializers.DateTimeField()
    read = serializers.BooleanField()
    text = serializers.CharField()
    data = serializers.DictField(required=False)  # type: ignore[assignment]  # a declared field (see EventSerializer.data)


class NotificationListSerializer(ObjectSerializer):
    results = NotificationSerializer(many=True)
