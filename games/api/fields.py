"""Strict serializer fields: a JSON integer is an integer, a boolean a boolean, a string a string.

DRF's own fields coerce ("12", 12.0 and true all pass as the integer 12 or 1; 12 passes as the string "12"),
so clients that send the wrong type learn nothing and the schema would not describe what is accepted.
Error messages never quote the client's value back.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

# A serializer of a JSON object: what it reads (a request, a query) or describes (an answer) is a dict, never a model.
ObjectSerializer = serializers.Serializer[dict[str, Any]]

# Every integer the API reads fits a signed 64-bit column: a larger one can name no row, and SQLite's driver raises
# OverflowError (a 500) where PostgreSQL answers, so it is refused as bad input (400) before it reaches a query.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _within_64_bits(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The field's bounds, narrowed to 64 bits where it sets none (the schema states them as minimum/maximum)."""
    if kwargs.get("min_value") is None:
        kwargs["min_value"] = INT64_MIN
    if kwargs.get("max_value") is None:
        kwargs["max_value"] = INT64_MAX
    return kwargs


class StrictIntegerField(serializers.IntegerField):
    default_error_messages = {"invalid": "must be a JSON integer"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**_within_64_bits(kwargs))

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, int) or isinstance(data, bool):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"invalid": "must be true or false"}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictCharField(serializers.CharField):
    default_error_messages = {"invalid": "must be a string"}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


NO_NUL = "^[^\\u0000]*$"  # DRF refuses a NUL in every string (PostgreSQL could not store it): the schema says so


class StrictCharFieldSchema(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]  # (its registry)
    """A StrictCharField's schema states that it holds no NUL (fields with a schema of their own state more)."""

    target_class = StrictCharField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> Any:
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        return {**schema, "pattern": NO_NUL} if "pattern" not in schema and "format" not in schema else schema


class StrictChoiceField(serializers.ChoiceField):
    """A string from a fixed list; the error lists the choices instead of quoting the value."""

    def __init__(self, choices: list[str], **kwargs: Any) -> None:
        kwargs.setdefault("error_messages", {"invalid_choice": f"must be one of {', '.join(choices)}"})
        super().__init__(choices=choices, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid_choice", input="")
        return super().to_internal_value(data)


class QueryIntegerField(serializers.IntegerField):
    """An integer in a query string: digits only (no "12.0", no "1e3")."""

    default_error_messages = {"invalid": "must be an integer written in digits"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**_within_64_bits(kwargs))

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not data.isascii() or not data.lstrip("-").isdigit():
            self.fail("invalid")
        return int(super().to_internal_value(data))


class QueryBooleanField(serializers.BooleanField):
    default_error_messages = {"invalid": "must be true, false, 1 or 0"}

    def to_internal_value(self, data: Any) -> bool:
        if data in ("true", "1"):
            return True
        if data in ("false", "0"):
            return False
        self.fail("invalid")
