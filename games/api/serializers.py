"""Request bodies of the API: strict (games.api.fields) and described exactly in the OpenAPI schema.

What is valid for a given game (which seat exists, which move is legal) is the services' and the engine's to
say; everything that can be said of the request alone is said here, and the schema says the same.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games import accounts
from games.api.fields import StrictBooleanField, StrictCharField, StrictChoiceField, StrictIntegerField
from games.api.moves_schema import MOVE_SCHEMA
from games.models import BOT_LEVELS, MAP_CHOICES

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


class CredentialsSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150, trim_whitespace=False)
    password = StrictCharField(max_length=128, trim_whitespace=False, write_only=True)


class RegisterSerializer(serializers.Serializer):
    username = UsernameField(max_length=150, trim_whitespace=False)
    password = StrictCharField(
        min_length=8, max_length=128, trim_whitespace=False, write_only=True,
        help_text="at least 8 characters, not a common password",
    )


class GameCreateSerializer(serializers.Serializer):
    map = StrictChoiceField([m for m, _ in MAP_CHOICES])
    players = StrictIntegerField(min_value=2, max_value=MAX_SEATS)
    ranked = StrictBooleanField(default=False)
    turn_seconds = StrictIntegerField(min_value=10, max_value=7 * 24 * 3600, allow_null=True, default=None)
    fallback_bot = StrictChoiceField(
        BOT_LEVELS, default="greedy", help_text="plays a seat whose time ran out or whose player resigned"
    )


class JoinSerializer(serializers.Serializer):
    seat = StrictIntegerField(
        min_value=0, max_value=MAX_SEATS - 1, required=False, allow_null=True,
        help_text="a free seat of this game; omitted or null: the first free seat",
    )


class BotSerializer(JoinSerializer):
    level = StrictChoiceField(BOT_LEVELS)


class StartSerializer(serializers.Serializer):
    fill_with_bots = StrictChoiceField(BOT_LEVELS, required=False, allow_null=True)


@extend_schema_field(MOVE_SCHEMA)
class MoveField(serializers.JSONField):
    """A move object; its shape is checked by games.codec (which names the field at fault)."""


class MoveRequestSerializer(serializers.Serializer):
    expected_seq = StrictIntegerField(min_value=0, help_text="the seq of the game as you last saw it")
    move = MoveField()
