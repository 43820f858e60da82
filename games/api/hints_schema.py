"""JSON Schemas of engine values, read off their type hints (the same hints games.engine.codec encodes them by).

Events and scores are frozen dataclasses; deriving their schemas from the hints keeps the OpenAPI schema
equal to what the codec writes, whatever event types the engine grows.
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any, Union, get_args, get_origin, get_type_hints

from games.api.moves_schema import PAYMENT_SCHEMA
from games.engine import Event
from games.engine import events as ev
from games.engine.moves import Payment

_SCALARS: dict[object, dict[str, Any]] = {str: {"type": "string"}, int: {"type": "integer"}, bool: {"type": "boolean"}}


def schema_of(hint: object) -> dict[str, Any]:
    if hint == Payment:
        return dict(PAYMENT_SCHEMA)
    if hint in _SCALARS:
        return dict(_SCALARS[hint])
    if get_origin(hint) in (Union, types.UnionType):
        (inner,) = [arg for arg in get_args(hint) if arg is not type(None)]
        return {**schema_of(inner), "nullable": True}
    if get_origin(hint) is tuple:
        args = get_args(hint)
        return {"type": "array", "items": schema_of(args[0]) if args else {}}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return object_schema(hint)
    raise TypeError(f"no JSON schema for {hint!r}")


def object_schema(cls: type, **extra: dict[str, Any]) -> dict[str, Any]:
    hints = get_type_hints(cls)
    fields = dataclasses.fields(cls)
    properties = {f.name: schema_of(hints[f.name]) for f in fields}
    required = [f.name for f in fields if f.default is dataclasses.MISSING]
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
