"""The marks a read's answer carries in its type hints, for its JSON and its OpenAPI schema (games/api/typed_json.py,
games/api/typed_schema.py): in this layer, the lowest but the engine's, so that every layer's answers can use them.

An answer is a frozen dataclass (games/play/shapes.py holds a game's): a field is a key, in field order; a tuple is
a list; `X | None` may be null. A field whose value is `ABSENT` is left out of the JSON (its type says `| Absent`,
and the schema does not require it); `Annotated[X, Schema(...)]` adds the JSON Schema words its type cannot say.
"""

from __future__ import annotations

import enum
import types
from typing import Annotated, Union, get_args, get_origin


class Absent(enum.Enum):
    """The value of a field that is left out of the JSON (not null: not there)."""

    ABSENT = "absent"


ABSENT = Absent.ABSENT


class Schema:
    """JSON Schema words about a field that its type does not say: `Annotated[int, Schema("seats", minimum=0)]`
    (a description first, then any keyword)."""

    def __init__(self, description: str = "", **words: object) -> None:
        self.words = {**words, **({"description": description} if description else {})}

    def __repr__(self) -> str:
        return f"Schema({self.words!r})"


def may_be_absent(hint: object) -> bool:
    """Whether a field of type `hint` may be left out (`X | Absent`, annotated or not)."""
    if get_origin(hint) is Annotated:
        return may_be_absent(get_args(hint)[0])
    return get_origin(hint) in (Union, types.UnionType) and Absent in get_args(hint)
