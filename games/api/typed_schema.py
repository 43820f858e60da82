"""JSON Schemas read off type hints: of the engine's events and of the answers' shapes (games/play/shapes.py).

Events and scores are the engine's frozen dataclasses, the answers of the reads are frozen dataclasses too; the JSON
of both is written from the same hints (games/engine/codec.py, games/api/typed_json.py), so deriving their schemas
from the hints keeps the OpenAPI schema equal to what the server writes, whatever fields the types grow.
`DataclassSchema` lets a view name a dataclass as its answer (`extend_schema(responses={200: GameSummary})`): each
dataclass is a component of the OpenAPI schema, named after its class, and the ones inside it are `$ref`s to theirs.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints
from uuid import UUID

from drf_spectacular.extensions import OpenApiSerializerExtension

from games.api.moves_schema import MOVE_SCHEMA, PAYMENT_SCHEMA
from games.engine import Event
from games.engine import events as ev
from games.engine.moves import Move, Payment
from games.play.shapes import Cards, LoggedEvent
from games.store.shape_marks import Absent, Schema, may_be_absent

_SCALARS: dict[object, dict[str, Any]] = {
    str: {"type": "string"}, int: {"type": "integer"}, bool: {"type": "boolean"},
    float: {"type": "number", "format": "double"},
    datetime: {"type": "string", "format": "date-time"}, UUID: {"type": "string", "format": "uuid"},
}

# Values whose JSON the API writes by a schema of its own, not by their type's structure (and LoggedEvent, below).
_NAMED: dict[object, dict[str, Any]] = {
    Payment: PAYMENT_SCHEMA,
    Cards: {**PAYMENT_SCHEMA, "description": "cards by colour"},
    Move: MOVE_SCHEMA,
}

# The schema of a dataclass inside another: inline (`object_schema`), or a `$ref` to its component.
Ref = Callable[[type], dict[str, Any]]


def schema_of(hint: object, ref: Ref | None = None) -> dict[str, Any]:
    """The JSON Schema of a value of type `hint` as the API writes it."""
    if get_origin(hint) is Annotated:
        inner, *marks = get_args(hint)
        schema = schema_of(inner, ref)
        words = {k: v for mark in marks if isinstance(mark, Schema) for k, v in mark.words.items()}
        if "$ref" in schema and words:  # (OpenAPI 3.0 reads nothing beside a $ref)
            schema = {"allOf": [schema]}
        return _nullable({**schema, **words}) if schema.get("nullable") else {**schema, **words}
    if hint in _NAMED:
        return dict(_NAMED[hint])
    if hint in _SCALARS:
        return dict(_SCALARS[hint])
    if isinstance(hint, type) and issubclass(hint, str):  # a StrEnum (the engine's Phase)
        return {"type": "string"}
    if get_origin(hint) in (Union, types.UnionType):
        return _union(hint, ref)
    if get_origin(hint) is tuple:
        args = get_args(hint)
        return {"type": "array", "items": schema_of(args[0], ref) if args else {}}
    if get_origin(hint) in (Mapping, dict):
        return {"type": "object", "additionalProperties": schema_of(get_args(hint)[1], ref)}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return ref(hint) if ref is not None else object_schema(hint)
    raise TypeError(f"no JSON schema for {hint!r}")


def _union(hint: object, ref: Ref | None) -> dict[str, Any]:
    args = [arg for arg in get_args(hint) if arg is not type(None) and arg is not Absent]
    schemas = [schema_of(arg, ref) for arg in args]
    schema = schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
    if type(None) not in get_args(hint):
        return schema
    if "$ref" in schema:
        schema = {"allOf": [schema]}
    return _nullable({**schema, "nullable": True})


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """A nullable schema with its choices: null is one of them (OpenAPI 3.0.3)."""
    if "enum" in schema and None not in schema["enum"]:
        return {**schema, "enum": [*schema["enum"], None]}
    return schema


def object_schema(cls: type, ref: Ref | None = None, **extra: dict[str, Any]) -> dict[str, Any]:
    """A dataclass's schema: its fields, each required unless it has a default; nothing else."""
    hints = get_type_hints(cls, include_extras=True)
    fields = dataclasses.fields(cls)
    properties = {f.name: schema_of(hints[f.name], ref) for f in fields}
    required = [f.name for f in fields if f.default is dataclasses.MISSING and not may_be_absent(hints[f.name])]
    return {
        "type": "object", "properties": {**properties, **extra}, "required": required, "additionalProperties": False,
    }


def event_data_schema(event_type: type[Event]) -> dict[str, Any]:
    """An event's `data` as the API shows it: its fields, the schema version `v`, maybe a commitment."""
    schema = object_schema(
        event_type,
        v={"type": "integer", "description": "schema version of this event type"},
        commitment={"type": "string", "description": "SHA-256 commitment to the hidden fields (see /audit)"},
    )
    schema["required"] = [*schema["required"], "v"]
    schema["title"] = event_type.type
    return schema


def event_data_schemas() -> list[dict[str, Any]]:
    return [event_data_schema(cls) for cls in ev.EVENT_TYPES.values()]


LOGGED_EVENT_SCHEMA: dict[str, Any] = {  # games/store/event_log.py `project`
    "type": "object",
    "description": "an event as you may see it",
    "properties": {
        "seq": {"type": "integer", "minimum": 1},
        "type": {"type": "string"},
        "at": {"type": "string", "format": "date-time"},
        "seat": {"type": "integer", "nullable": True},
        "data": {"description": "the event's fields as you may see them, by type", "anyOf": event_data_schemas()},
        "reason": {
            "type": "string", "description": "on the first event of a bot's move only: why the bot made it, in words"
        },
    },
    "required": ["seq", "type", "at", "seat", "data"],
    "additionalProperties": False,
}

_NAMED[LoggedEvent] = LOGGED_EVENT_SCHEMA


def component_schema(cls: type, ref: Ref) -> dict[str, Any]:
    """A dataclass's component: its schema, with its docstring (not the signature dataclasses writes without one)."""
    schema = object_schema(cls, ref)
    doc = cls.__doc__ or ""
    if doc and not doc.startswith(f"{cls.__name__}("):
        schema["description"] = " ".join(doc.split())
    return schema


class DataclassSchema(OpenApiSerializerExtension):  # type: ignore[no-untyped-call]  # (its registry)
    """drf-spectacular: a dataclass named as a request's or an answer's body is described by its type hints."""

    @classmethod
    def _matches(cls, target: Any) -> bool:
        return isinstance(target, type) and dataclasses.is_dataclass(target)

    def get_name(self, auto_schema: Any, direction: Any) -> str:
        return str(self.target.__name__)

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        def ref(cls: type) -> dict[str, Any]:
            return dict(auto_schema.resolve_serializer(cls, direction).ref)

        return component_schema(self.target, ref)

