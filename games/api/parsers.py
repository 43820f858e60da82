"""The API's only request body format: JSON, parsed strictly.

A body that is not JSON, nests deeper than any request of the API needs (the standard parser recurses and a
deep enough body used to crash it), or holds NaN/Infinity (not JSON at all) is a 400 `invalid`; any other
media type is a 415 (DRF answers it once a view reads the body).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any, NoReturn

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 16  # the deepest request of the API (a move's payment) is 3 levels


class StrictJSONParser(JSONParser):
    def parse(
        self, stream: IO[bytes] | None, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:  # any JSON value: a view's serializer says which it takes
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ParseError("the body is not UTF-8") from error
        if text.count("[") + text.count("{") > MAX_DEPTH and _depth(text) > MAX_DEPTH:
            raise ParseError(f"the body nests deeper than {MAX_DEPTH} levels")
        try:
            return json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError) as error:
            raise ParseError("the body is not valid JSON") from error


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _depth(text: str) -> int:
    """The deepest nesting of brackets outside strings (a quick scan before the recursive parser runs)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest
