"""Response bodies of the API, for the OpenAPI schema.

Most reads answer a frozen dataclass (games/play/shapes.py), whose JSON and schema are read off its type hints
(games/api/typed_json.py, games/api/typed_schema.py); the pages of lists are here. The serializers below describe,
field by field, the answers still built as plain data. The schemathesis run in the tests checks every response
against the schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.api.fields import ObjectSerializer
from games.api.moves_schema import MOVE_SCHEMA
from games.api.typed_schema import DataclassSchema  # noqa: F401  # (imported, it describes the dataclasses views name)
from games.people.models import NOTIFICATION_KINDS
from games.play.shapes import GameSummary, LeaderboardEntry
from games.store.models import BOT_LEVELS
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


@extend_schema_field(MOVE_SCHEMA)
class MoveOutField(serializers.JSONField):
    pass


class VerifySerializer(ObjectSerializer):
    ok = serializers.BooleanField()
    events = serializers.IntegerField(min_value=0)
    head_hash = serializers.CharField()
    problems = serializers.ListField(child=serializers.CharField())
    fair = serializers.BooleanField(
        allow_null=True,
        help_text="every random outcome recomputed from the seeds the log reveals (docs/FAIRNESS.md): null for a game "
        "from before provably fair chance, or one not over yet",
    )


class ErrorSerializer(ObjectSerializer):
    code = serializers.CharField(help_text="machine-readable: see the README's table of error codes")
    detail = serializers.CharField(help_text="a human sentence")
    rule = serializers.CharField(required=False, help_text="the docs/RULES.md rule ID that refuses a move")
    seq = serializers.IntegerField(required=False, help_text="the game's current seq (stale_seq)")
    field = serializers.CharField(required=False, allow_null=True, help_text="the request field at fault")
    fields = serializers.DictField(  # type: ignore[assignment]  # a declared field (see EventSerializer.data)
        child=serializers.CharField(), required=False, help_text="field -> problem"
    )


class QueueStatusSerializer(ObjectSerializer):
    status = serializers.ChoiceField(choices=["waiting", "matched"])
    since = serializers.DateTimeField()
    map = serializers.ChoiceField(choices=["europe", "usa"])
    players = serializers.ListField(child=serializers.IntegerField(min_value=2, max_value=5))
    ranked = serializers.BooleanField()
    speed = serializers.ChoiceField(choices=["live", "daily"])
    bots_after = serializers.IntegerField(allow_null=True)
    game = serializers.UUIDField(allow_null=True, help_text="the game a table formed for you")
    waiting = serializers.IntegerField(required=False, help_text="compatible players waiting besides you")
    rating_gap = serializers.FloatField(required=False, help_text="the rating gap you accept now (it widens)")


class VacationStatusSerializer(ObjectSerializer):
    until = serializers.DateTimeField(allow_null=True, help_text="your daily clocks stand still until then")
    days_left = serializers.IntegerField(help_text="vacation days left in the last 365 days")


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


class SigningKeySerializer(ObjectSerializer):
    id = serializers.CharField()
    algorithm = serializers.ChoiceField(choices=["ed25519"])
    public_key = serializers.CharField(help_text="base64 of the 32-byte Ed25519 public key")
    valid_from = serializers.DateTimeField()
    valid_to = serializers.DateTimeField(allow_null=True, help_text="null: still signing")


class KeysSerializer(ObjectSerializer):
    keys = SigningKeySerializer(many=True)


class CheckpointSerializer(ObjectSerializer):
    game = serializers.UUIDField()
    seq = serializers.IntegerField(min_value=1)
    head_hash = serializers.CharField(min_length=64, max_length=64)
    key_id = serializers.CharField()
    signature = serializers.CharField(
        help_text="base64 Ed25519 signature of the UTF-8 text 'ttr-checkpoint-v1', the game id, the seq and the head "
        "hash, one to a line (docs/CHECKPOINTS.md)"
    )


class AnalysisProgressSerializer(ObjectSerializer):
    status = serializers.ChoiceField(["queued", "running"])
    progress = serializers.FloatField(min_value=0, max_value=1)


class JudgedDecisionSerializer(ObjectSerializer):
    seq = serializers.IntegerField(min_value=0, help_text="the position decided on (the replay at this seq)")
    seat = serializers.IntegerField(min_value=0)
    played = MoveOutField()
    best = MoveOutField(help_text="the best candidate the search found (the move played when it is the best)")
    lead = serializers.FloatField(help_text="the seat's estimated final lead over the best other seat after the move played")
    loss = serializers.FloatField(min_value=0, help_text="points the best candidate is estimated to gain over it")
    stderr = serializers.FloatField(min_value=0, help_text="the standard error of that loss (paired samples)")
    mark = serializers.ChoiceField(["inaccuracy", "mistake", "blunder"], allow_null=True)
    reason = serializers.CharField(allow_blank=True, help_text="why the best move, in the bot's words")
    samples = serializers.IntegerField(min_value=0, help_text="sampled games the move played was judged on")


class LeadsPointSerializer(ObjectSerializer):
    seq = serializers.IntegerField(min_value=0)
    leads = serializers.DictField(child=serializers.FloatField(), help_text="by seat: the estimated final lead")


class AnalysedPlayerSerializer(ObjectSerializer):
    seat = serializers.IntegerField(min_value=0)
    username = serializers.CharField(allow_null=True)
    bot = serializers.ChoiceField(choices=BOT_LEVELS, allow_null=True)
    decisions = serializers.IntegerField(min_value=0)
    mean_loss = serializers.FloatField(min_value=0)
    inaccuracies = serializers.IntegerField(min_value=0)
    mistakes = serializers.IntegerField(min_value=0)
    blunders = serializers.IntegerField(min_value=0)


class AnalysisSerializer(ObjectSerializer):
    status = serializers.ChoiceField(["done"])
    bot = serializers.CharField(help_text="the analysing bot and its version")
    budget = serializers.DictField(child=serializers.IntegerField(), help_text="sampled games a decision")
    seq = serializers.IntegerField(min_value=0, help_text="the last seq of the log analysed")
    head_hash = serializers.CharField(help_text="the hash of that event")
    altered = serializers.BooleanField(help_text="the log no longer holds what was analysed")
    cpu_seconds = serializers.FloatField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    decisions = JudgedDecisionSerializer(many=True)
    leads = LeadsPointSerializer(many=True, help_text="the evaluation graph; the last point is the true final lead")
    players = AnalysedPlayerSerializer(many=True)


class HintSerializer(ObjectSerializer):
    move = MoveOutField()
    reason = serializers.CharField()
    seq = serializers.IntegerField(min_value=0, help_text="the game's seq once the hint is recorded")
    hints = serializers.IntegerField(min_value=1, help_text="hints this seat has used in the game")

