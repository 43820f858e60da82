"""The golden text format: a game as lines of `key=value` text, one line per move and per event.

    12 seat1 claim_route route=denver--omaha cards=red:4 (37 legal)
      route_claimed seat=1 route=denver--omaha cards=red:4 points=7
      turn_ended seat=1 next_seat=0

A move line is the decision's number, the seat, the move as the codec encodes it (`move_to_dict`) and how many
legal moves the seat had; the indented lines under it are the events it caused, as the codec encodes them
(`event_to_dict`, the `v` left out: the engine writes only current versions), each followed by who sees what
of it (tests/golden/views.py). Values: an int as digits, a bool as true/false, None as null, an id bare, any
other string JSON-quoted, a list as `[a,b]`, cards by kind as `red:3+locomotive:1`. An event's fields that are
None are left out, in its records too (such a field defaults to None, so nothing is lost). A list too long for
one line continues on lines of its own; a list of records (the final scores) puts each record on a line of its
own. Move lines parse back into moves (`parse_move_line`), which is what makes a golden file a replayable record.
"""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any

from games.engine.codec import event_to_dict, move_from_dict, move_to_dict
from games.engine.events import Event
from games.engine.moves import Move

INDENT = "  "
WIDTH = 100  # a line longer than this is hard to read in a side-by-side diff
BARE = re.compile(r"[a-z][a-z0-9_-]*")
MOVE_LINE = re.compile(r"(\d+) seat(\d+) ([a-z_]+)((?: [a-z_]+=\S+)*) \((\d+) legal\)")
TOKEN = re.compile(r'([^\s=]+)=("(?:[^"\\]|\\.)*"|\S+)')  # key=value, the value maybe a JSON string
WORDS = ("true", "false", "null")  # a string that reads like one is quoted


def move_line(number: int, seat: int, move: Move, legal: int) -> str:
    fields = {k: v for k, v in move_to_dict(move).items() if k != "type"}
    return " ".join([
        f"{number} seat{seat} {move.type}", *(f"{k}={value_text(v)}" for k, v in fields.items()), f"({legal} legal)"
    ])


def parse_move_line(line: str) -> tuple[int, int, Move] | None:
    """(number, seat, move) of a move line; None for any other line."""
    found = MOVE_LINE.fullmatch(line)
    if found is None:
        return None
    number, seat, kind, rest, _ = found.groups()
    fields = dict(token.split("=", 1) for token in rest.split())
    data = {"type": kind, **{key: parse_value(text) for key, text in fields.items()}}
    return int(number), int(seat), move_from_dict(data)


def event_fields(event: Event) -> dict[str, Any]:
    """The event's fields as the codec encodes them, without its type and version, and without the fields (in it
    or in its records) that are None."""
    return {k: _present(v) for k, v in event_to_dict(event).items() if k not in ("type", "v") and v is not None}


def _present(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _present(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_present(item) for item in value]
    return value


def record_lines(head: str, data: dict[str, Any], depth: int) -> list[str]:
    """`head key=value ...` wrapped at WIDTH; a long list continues on lines of its own, a list of records
    puts each record on a line of its own below."""
    pad = INDENT * depth
    short, long_, records = [], [], []
    for key, value in data.items():
        if _is_records(value):
            records.append((key, value))
        elif isinstance(value, list) and len(f"{key}={value_text(value)}") > WIDTH // 2:
            long_.append((key, value))
        else:
            short.append(f"{key}={value_text(value)}")
    lines = textwrap.wrap(
        " ".join([head, *short]), WIDTH, initial_indent=pad, subsequent_indent=pad + INDENT * 2,
        break_long_words=False, break_on_hyphens=False,
    )
    for key, items in long_:
        lines.extend(_list_lines(key, items, pad + INDENT * 2))
    for key, items in records:
        lines.append(f"{pad}{INDENT}{key}:")
        lines.extend(line for item in items for line in record_lines("-", item, depth + 2))
    return lines


def _list_lines(key: str, items: list[Any], pad: str) -> list[str]:
    """`key=[a,b,` ... `y,z]` over as many lines as it takes to keep each within WIDTH."""
    lines, line = [], f"{pad}{key}=["
    for i, item in enumerate(items):
        text = value_text(item) + ("," if i < len(items) - 1 else "]")
        if len(line) + len(text) > WIDTH and not line.endswith("["):
            lines.append(line)
            line = pad + INDENT
        line += text
    return [*lines, line]


def value_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value if BARE.fullmatch(value) and value not in WORDS else json.dumps(value)
    if isinstance(value, dict):  # a card payment: kind -> count, in the engine's card order
        return "+".join(f"{kind}:{n}" for kind, n in value.items()) or "{}"
    if isinstance(value, list | tuple):  # a tuple is a list in JSON
        return "[" + ",".join(map(value_text, value)) + "]"
    raise TypeError(f"no golden text for {value!r}")


def parse_value(text: str) -> Any:
    """The inverse of `value_text` for what moves hold: ints, strings, lists of strings, payments."""
    if text.startswith("["):
        return [parse_value(item) for item in text[1:-1].split(",") if item]
    if text == "{}":
        return {}
    if ":" in text and not text.startswith('"'):
        return {kind: int(n) for kind, n in (part.split(":") for part in text.split("+"))}
    if text.isdigit():
        return int(text)
    return json.loads(text) if text.startswith('"') else text


def _is_records(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(item, dict) for item in value)
