"""Input shapes of the API (and their OpenAPI description). Output shapes are built by games.selectors."""

from __future__ import annotations

from rest_framework import serializers

from games.models import BOT_LEVELS, MAP_CHOICES


class CredentialsSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, write_only=True)


class GameCreateSerializer(serializers.Serializer):
    map = serializers.ChoiceField(choices=[m for m, _ in MAP_CHOICES])
    players = serializers.IntegerField(min_value=2, max_value=5)
    ranked = serializers.BooleanField(default=False)
    turn_seconds = serializers.IntegerField(min_value=10, max_value=7 * 24 * 3600, allow_null=True, default=None)


class JoinSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=0, max_value=4, required=False, allow_null=True)


class BotSerializer(JoinSerializer):
    level = serializers.ChoiceField(choices=BOT_LEVELS)


class StartSerializer(serializers.Serializer):
    fill_with_bots = serializers.ChoiceField(choices=BOT_LEVELS, required=False, allow_null=True)


class MoveRequestSerializer(serializers.Serializer):
    expected_seq = serializers.IntegerField(min_value=0)
    move = serializers.JSONField(help_text="a move object, e.g. {\"type\": \"draw_card\", \"source\": \"deck\"}")

    def validate_expected_seq(self, value: object) -> object:
        if isinstance(self.initial_data.get("expected_seq"), bool):
            raise serializers.ValidationError("expected_seq must be an integer")
        return value


class GameSummarySerializer(serializers.Serializer):
    """For the schema: the summary of a game (API.md)."""

    id = serializers.UUIDField()
    map = serializers.CharField()
    players = serializers.IntegerField()
    ranked = serializers.BooleanField()
    turn_seconds = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=["open", "active", "finished"])
    seats = serializers.ListField(child=serializers.DictField())
    created_by = serializers.CharField()
    seq = serializers.IntegerField()


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()
    rule = serializers.CharField(required=False)
    seq = serializers.IntegerField(required=False)
