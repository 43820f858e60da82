"""Request bodies of the API: strict (games.api.fields) and described exactly in the OpenAPI schema.

What is valid for a given game (which seat exists, which move is legal) is the services' and the engine's to
say; everything that can be said of the request alone is said here, and the schema says the same.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.api.fields import (
    INT64_MAX,
    ObjectSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
)
from games.api.moves_schema import MOVE_SCHEMA
from games.people import accounts
from games.store.models import BOT_LEVELS, MAP_CHOICES, SPEED_CHOICES

MAX_DAYS_PER_MOVE, MAX_BANK_DAYS = 14, 30


def valid_body(serializer_class: type[ObjectSerializer], data: Any) -> dict[str, Any]:
    """The request body as `serializer_class` validates it, or the 400 `invalid` naming the field at fault."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
DEFAULT_DAYS_PER_MOVE, DEFAULT_BANK_DAYS = 1, 3

MAX_SEATS = 5


@extend_schema_field(
    {
        "type": "string",
        "pattern": accounts.USERNAME_PATTERN,
        "minLength": accounts.USERNAME_MIN,
        "maxLength": accounts.USERNAME_MAX,
        "description": accounts.USERNAME_RULE + " (compared in any case, after Unicode NFKC normalisation)",
    }
)
class UsernameField(StrictCharField):
    pass


class CredentialsSerializer(ObjectSerializer):
    username = StrictCharField(max_length=150, trim_whitespace=False)
    password = StrictCharField(max_length=128, trim_whitespace=False, write_only=True)


class RegisterSerializer(ObjectSerializer):
    username = UsernameField(max_length=150, trim_whitespace=False)
    password = StrictCharField(
        min_length=8, max_length=128, trim_whitespace=False, write_only=True,
        help_text="at least 8 characters, not a common password",
    )


CLIENT_SEED_HELP = (
    "your own seed for the game's chance, hex (an even number of digits, at most 64): mixed with the server's "
    "secret seed, it makes the deck one the server could not choose (docs/FAIRNESS.md)"
)


@extend_schema_field({"type": "string", "pattern": "^([0-9a-fA-F]{2}){0,32}$", "description": CLIENT_SEED_HELP})
class ClientSeedField(StrictCharField):
    """Read as a string here; games/trust/chance.py checks it is hex (and the schema says so)."""


def client_seed_field() -> ClientSeedField:
    return ClientSeedField(required=False, allow_blank=True, max_length=64, trim_whitespace=False)


class GameCreateSerializer(ObjectSerializer):
    map = StrictChoiceField([m for m, _ in MAP_CHOICES])
    players = StrictIntegerField(min_value=2, max_value=MAX_SEATS)
    ranked = StrictBooleanField(default=False)
    turn_seconds = StrictIntegerField(min_value=10, max_value=7 * 24 * 3600, allow_null=True, default=None)
    fallback_bot = StrictChoiceField(
        BOT_LEVELS, default="greedy", help_text="plays a seat whose time ran out or whose player resigned"
    )
    speed = StrictChoiceField(
        [s for s, _ in SPEED_CHOICES], default="live",
        help_text="live: `turn_seconds` a decision; daily: `days_per_move` a decision and a bank of `bank_days`",
    )
    days_per_move = StrictIntegerField(min_value=1, max_value=MAX_DAYS_PER_MOVE, required=False, allow_null=True)
    bank_days = StrictIntegerField(min_value=0, max_value=MAX_BANK_DAYS, required=False, allow_null=True)
    private = StrictBooleanField(default=False, help_text="not listed in the lobby; seats by invitation")
    spectators_at_table = StrictBooleanField(
        default=False, help_text="spectators may write in the table's chat (otherwise only in their own channel)"
    )
    client_seed = client_seed_field()  # the creator's seat's, as `join` takes a joiner's

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:  # the schema says the same: GAME_CREATE_RULES
        if data["speed"] == "daily":
            if data.get("turn_seconds") is not None:
                raise serializers.ValidationError({"turn_seconds": "a daily game's clock is in days: leave it null"})
            data["days_per_move"] = data.get("days_per_move") or DEFAULT_DAYS_PER_MOVE
            data["bank_days"] = DEFAULT_BANK_DAYS if data.get("bank_days") is None else data["bank_days"]
        elif data.get("days_per_move") is not None or data.get("bank_days") is not None:
            raise serializers.ValidationError({"speed": "days_per_move and bank_days are for a daily game"})
        else:
            data["days_per_move"] = data["bank_days"] = None
        return data


MUST_BE_NULL = {"enum": [None], "nullable": True}  # left out or null (OpenAPI 3.0 has no "type": "null")
# The rules between fields that GameCreateSerializer.validate holds, in the schema (written into its component by
# games/api/schema_hooks.py): a live game (`speed` left out or "live") has no days, a daily one no `turn_seconds`.
GAME_CREATE_RULES: dict[str, Any] = {
    "oneOf": [
        {
            "title": "live",
            "properties": {"speed": {"enum": ["live"]}, "days_per_move": MUST_BE_NULL, "bank_days": MUST_BE_NULL},
        },
        {
            "title": "daily",
            "required": ["speed"],
            "properties": {"speed": {"enum": ["daily"]}, "turn_seconds": MUST_BE_NULL},
        },
    ]
}


class JoinSerializer(ObjectSerializer):
    seat = StrictIntegerField(
        min_value=0, max_value=MAX_SEATS - 1, required=False, allow_null=True,
        help_text="a free seat of this game; omitted or null: the first free seat",
    )
    invite = StrictCharField(
        min_length=1, max_length=64, required=False, trim_whitespace=False,
        help_text="the token of an invitation (a private game seats only with one)",
    )
    client_seed = client_seed_field()


class InviteSerializer(ObjectSerializer):
    username = UsernameField(max_length=150)


class QueueSerializer(ObjectSerializer):
    map = StrictChoiceField([m for m, _ in MAP_CHOICES])
    players = serializers.ListField(
        child=StrictIntegerField(min_value=2, max_value=MAX_SEATS), min_length=1, max_length=4,
        help_text="the table sizes you accept",
    )
    ranked = StrictBooleanField(default=False)
    speed = StrictChoiceField([s for s, _ in SPEED_CHOICES], default="live")
    bots_after = StrictIntegerField(
        min_value=0, max_value=24 * 3600, required=False, allow_null=True, default=None,
        help_text="seconds of waiting after which bots may fill the empty seats; null: never",
    )

    def validate_players(self, value: list[int]) -> list[int]:  # the schema says the same: QUEUE_RULES
        if len(set(value)) != len(value):
            raise serializers.ValidationError("each table size once")
        return sorted(value)


QUEUE_RULES: dict[str, Any] = {"properties": {"players": {"uniqueItems": True}}}


class VacationSerializer(ObjectSerializer):
    days = StrictIntegerField(min_value=1, max_value=30)


class ReadSerializer(ObjectSerializer):
    ids = serializers.ListField(child=StrictIntegerField(min_value=1), required=False, max_length=1000)
    all = StrictBooleanField(required=False)

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:  # the schema says the same: READ_RULES
        if ("ids" in data) == bool(data.get("all")):
            raise serializers.ValidationError({"ids": "give the ids to mark read, or all: true"})
        return data


READ_RULES: dict[str, Any] = {
    "oneOf": [
        {"title": "these", "required": ["ids"], "properties": {"all": {"enum": [False]}}},
        {"title": "all", "required": ["all"], "properties": {"all": {"enum": [True]}}, "not": {"required": ["ids"]}},
    ]
}


class BotSerializer(JoinSerializer):
    level = StrictChoiceField(BOT_LEVELS)


class StartSerializer(ObjectSerializer):
    fill_with_bots = StrictChoiceField(BOT_LEVELS, required=False, allow_null=True)
    client_seed = client_seed_field()


@extend_schema_field(MOVE_SCHEMA)
class MoveField(serializers.JSONField):
    """A move object; its shape is checked by games.engine.codec (which names the field at fault)."""


class MoveRequestSerializer(ObjectSerializer):
    expected_seq = StrictIntegerField(min_value=0, help_text="the seq of the game as you last saw it")
    move = MoveField()


class MoveRequest(NamedTuple):
    expected_seq: int
    move: Any  # the move object as sent: games.engine.codec reads it and names the field at fault


def move_request(data: Any) -> MoveRequest:
    """The body of a move (POST /moves, a socket's `move` message) as MoveRequestSerializer reads it. A body it
    takes (nearly every one) is told in three checks; anything else goes through the serializer, which raises the
    400 naming the field at fault. Building the serializer's fields was a fifth of a socket move's CPU."""
    if isinstance(data, dict):
        seq, move = data.get("expected_seq"), data.get("move")
        if type(seq) is int and 0 <= seq <= INT64_MAX and move is not None:  # not a bool; the move's shape is the codec's
            return MoveRequest(seq, move)
    valid = valid_body(MoveRequestSerializer, data)
    return MoveRequest(valid["expected_seq"], valid["move"])


class ChatReportSerializer(ObjectSerializer):
    reason = StrictCharField(required=False, allow_blank=True, max_length=300, help_text="what is wrong with it")


class TournamentCreateSerializer(ObjectSerializer):
    name = StrictCharField(min_length=3, max_length=80)
    format = StrictChoiceField(["swiss", "arena"], help_text="swiss: a number of rounds; arena: a time window")
    map = StrictChoiceField([m for m, _ in MAP_CHOICES])
    table_size = StrictIntegerField(min_value=2, max_value=MAX_SEATS)
    smaller_tables = StrictBooleanField(default=False, help_text="tables of fewer seats when the players do not divide")
    speed = StrictChoiceField([s for s, _ in SPEED_CHOICES], default="live")
    turn_seconds = StrictIntegerField(min_value=10, max_value=3600, required=False, allow_null=True, default=None)
    days_per_move = StrictIntegerField(min_value=1, max_value=MAX_DAYS_PER_MOVE, required=False, allow_null=True)
    rounds = StrictIntegerField(min_value=1, max_value=15, required=False, allow_null=True, help_text="a Swiss's rounds")
    minutes = StrictIntegerField(
        min_value=10, max_value=1440, required=False, allow_null=True, help_text="an arena's window"
    )
    starts_at = serializers.DateTimeField()
    max_players = StrictIntegerField(min_value=2, max_value=10_000, required=False, allow_null=True, default=None)
    ranked = StrictBooleanField(default=False)
    bots_fill = StrictBooleanField(default=False, help_text="bots fill the seats that do not divide (never ranked)")
    private = StrictBooleanField(default=False, help_text="not listed; reached by its link")

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if data["format"] == "swiss" and data.get("rounds") is None:
            raise serializers.ValidationError({"rounds": "a Swiss tournament needs its number of rounds"})
        if data["format"] == "arena" and data.get("minutes") is None:
            raise serializers.ValidationError({"minutes": "an arena needs its window in minutes"})
        if data["speed"] == "daily" and data.get("turn_seconds") is not None:
            raise serializers.ValidationError({"turn_seconds": "a daily tournament's clock is in days: leave it null"})
        if data["speed"] == "live" and data.get("days_per_move") is not None:
            raise serializers.ValidationError({"days_per_move": "days_per_move is for a daily tournament"})
        return data


class TournamentJoinSerializer(ObjectSerializer):
    client_seed = client_seed_field()
