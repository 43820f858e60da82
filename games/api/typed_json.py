"""The JSON of an answer's shape (games/play/shapes.py), written from its type hints: what views and sockets send.

A dataclass is an object of its fields in order, less those whose value is `ABSENT`; a tuple is a list; a mapping
a fresh dict; a datetime its ISO 8601 text; a UUID its text; a `Payment` (the engine's pairs of card and count) an
object of cards; an engine move the codec's JSON of it. The encoder of each type is built once (the game's state is
encoded on every read of it), and `typed_schema.schema_of` says the same of each type in JSON Schema.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Hashable, Mapping
from datetime import datetime
from functools import cache
from typing import Annotated, Any, Union, cast, get_args, get_origin, get_type_hints
from uuid import UUID

from games.engine.codec import move_to_dict
from games.engine.moves import Move, Payment
from games.store.shape_marks import ABSENT, Absent, may_be_absent

Encode = Callable[[Any], Any]


def to_json(value: object) -> Any:
    """`value` (a dataclass) as JSON-able data: dicts, lists, strings, numbers, booleans and None."""
    return _encoder(cast(Hashable, type(value)))(value)


def _same(value: Any) -> Any:
    return value


@cache
def _encoder(hint: Any) -> Encode:
    if get_origin(hint) is Annotated:
        return _encoder(get_args(hint)[0])
    if hint == Payment:
        return dict
    if hint == Move:
        return move_to_dict
    if hint is datetime:
        return datetime.isoformat
    if hint is UUID:
        return str
    if hasattr(hint, "__supertype__"):  # a NewType: the JSON of the type it names
        return _encoder(hint.__supertype__)
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        return _union([arg for arg in args if arg is not type(None) and arg is not Absent])
    if origin is tuple:
        item = _encoder(args[0]) if args else _same
        return list if item is _same else lambda value: [item(x) for x in value]
    if origin in (Mapping, dict):
        entry = _encoder(args[1]) if args else _same
        return dict if entry is _same else lambda value: {key: entry(x) for key, x in value.items()}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass(hint)
    return _same  # str, int, float, bool, a StrEnum, object


def _union(args: list[Any]) -> Encode:
    """`X | None` (and `| Absent`: a field whose value is ABSENT is left out before this): null or X's JSON. Of
    several types (dataclasses), each value's own."""
    if len(args) == 1:
        inner = _encoder(args[0])
        return inner if inner is _same else lambda value: None if value is None else inner(value)
    return lambda value: None if value is None else _encoder(cast(Hashable, type(value)))(value)


def _dataclass(cls: type) -> Encode:
    """The encoder of a dataclass, written out as one function (as `dataclasses` writes `__init__`): a loop over
    the fields cost five times as much, and a game's view has forty of them with its seats'."""
    hints = get_type_hints(cls)
    names: dict[str, Any] = {"ABSENT": ABSENT}
    lines = ["def encode(value):", "    out = {}"]
    for f in dataclasses.fields(cls):
        encode_field = _encoder(hints[f.name])
        got = f"value.{f.name}"
        if encode_field is not _same:
            names[f"encode_{f.name}"] = encode_field
            got = f"encode_{f.name}(field)"
        if may_be_absent(hints[f.name]):
            lines += [f"    field = value.{f.name}", "    if field is not ABSENT:", f"        out[{f.name!r}] = {got}"]
        else:
            lines += [f"    field = value.{f.name}", f"    out[{f.name!r}] = {got}"]
    lines.append("    return out")
    exec("\n".join(lines), names)  # (code of field names only: the dataclass's own identifiers)
    encode: Encode = names["encode"]
    return encode

