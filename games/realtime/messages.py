"""What clients send over a game's socket, read as strictly as the HTTP API reads a body, and the error bodies.

A message is one JSON text frame of at most `MAX_MESSAGE_BYTES` (the HTTP body limit) holding an object with a
`type`: `move` (`expected_seq`, `move`: the body of POST /moves), `resync` (`after`: the last seq the client
has) or `chat` (`text`, `channel`?: games/table/chat.py reads them). Anything else is refused with the body HTTP would
give (`invalid` naming the field, `too_large`), and a refused move carries exactly the HTTP error body
(games/api/error_responses.py), with its HTTP status beside it.
"""

from __future__ import annotations

import io
import json
import logging
from typing import Any

from rest_framework import exceptions

from games.api import serializers
from games.api.error_responses import exception_handler
from games.api.fields import ObjectSerializer, StrictIntegerField
from games.api.parsers import StrictJSONParser
from ttr_server import limits, unavailable

logger = logging.getLogger(__name__)
MAX_MESSAGE_BYTES = limits.MAX_BODY_BYTES
TYPES = ("move", "resync", "chat")
SERVER_ERROR = {"code": "server_error", "detail": "the server failed; nothing was changed"}


class Refused(Exception):
    """A message the socket cannot take: `body` is the error to send back, `status` its HTTP equivalent."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body.get("code"))
        self.status, self.body = status, body


class ResyncSerializer(ObjectSerializer):
    after = StrictIntegerField(min_value=0, help_text="the last seq the client has")


def error_body(exc: Exception) -> tuple[int, dict[str, Any]]:
    """The HTTP status and body the API gives for `exc` (503 `unavailable` when the database or Redis is down; a
    500 body for anything else unexpected, logged)."""
    response = exception_handler(exc, {})
    if response is None and (service := unavailable.which(exc)) is not None:
        unavailable.log(service, exc)
        return 503, unavailable.body(service)
    if response is None:
        logger.error("unexpected error on a game socket", exc_info=exc)
        return 500, dict(SERVER_ERROR)
    return response.status_code, dict(response.data)


def refused(exc: Exception) -> Refused:
    return Refused(*error_body(exc))


def parse(text: str | None, data: bytes | None) -> dict[str, Any]:
    """The client's message as a dict with a known `type`; raises Refused."""
    if text is None:
        raise refused(exceptions.ParseError("messages are JSON text frames, not binary ones"))
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) > MAX_MESSAGE_BYTES:
        raise Refused(413, json.loads(limits.too_large().content))
    try:
        message = StrictJSONParser().parse(io.BytesIO(raw))
    except exceptions.ParseError as error:
        raise refused(error) from error
    if not isinstance(message, dict) or message.get("type") not in TYPES:
        raise refused(exceptions.ValidationError({"type": [f"a message is an object whose type is one of {TYPES}"]}))
    return message


def valid(serializer_class: type[ObjectSerializer], message: dict[str, Any]) -> dict[str, Any]:
    serializer = serializer_class(data=message)
    if not serializer.is_valid():
        raise refused(exceptions.ValidationError(serializer.errors))
    return dict(serializer.validated_data)


def move_request(message: dict[str, Any]) -> serializers.MoveRequest:
    """The move a `move` message asks for, read as POST /moves reads its body; raises Refused."""
    try:
        return serializers.move_request(message)
    except exceptions.ValidationError as error:
        raise refused(error) from error


def resync_after(message: dict[str, Any]) -> int:
    return int(valid(ResyncSerializer, message)["after"])
