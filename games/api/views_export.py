"""Audit at scale (docs/API.md, docs/AUDIT.md): the stream of finished games as game lines, the list of the monthly
dumps, and the dumps' files.

A stream is served a chunk at a time: under ASGI Django would read a plain iterator whole before sending a byte
(StreamingHttpResponse consumes a synchronous iterator into a list), so there the chunks are pulled through an
asynchronous iterator, each in a worker thread, and that thread's database connection is given back after each
chunk: no transaction and no connection is held while the client reads. Under WSGI (the test client) the plain
iterator is served as it is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django.db.models import QuerySet
from django.http import FileResponse, StreamingHttpResponse
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from games.api import dumps, game_lines
from games.api.bodies import ApiView
from games.api.error_responses import error, error_responses
from games.api.fields import ObjectSerializer, QueryBooleanField, StrictChoiceField
from games.api.typed_json import to_json
from games.people import accounts
from games.store.models import MAP_CHOICES, BotAccount, Game, Seat
from games.store.service_error import ServiceError

NDJSON = "application/x-ndjson"
CHUNK_BYTES = 256 * 1024  # what a stream sends at a time (a game's line at least)
FILE_BLOCK = 256 * 1024


class ExportThrottle(ScopedRateThrottle):
    """Streams of games a person (an address, for nobody signed in) may start, in each web process."""

    def get_rate(self) -> str | None:
        return str(settings.TTR_EXPORT_RATE)


class QueryMomentField(serializers.DateTimeField):
    """An ISO-8601 date and time in a query (a date alone is its midnight; no offset: UTC), as UTC. A moment past
    what the database holds is the earliest or the latest it can."""

    default_error_messages = {"invalid": "must be an ISO-8601 date and time, e.g. 2026-11-01T00:00:00Z"}

    def to_internal_value(self, value: Any) -> datetime:
        try:
            parsed = parse_datetime(value.upper()) if isinstance(value, str) and len(value) <= 64 else None
        except ValueError:
            parsed = None
        if parsed is None:
            self.fail("invalid")
        try:
            return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)
        except OverflowError:  # an offset that carries the moment past year 1 or 9999
            return datetime.min.replace(tzinfo=UTC) if parsed.year == 1 else datetime.max.replace(tzinfo=UTC)


class ExportQuery(ObjectSerializer):
    player = serializers.CharField(max_length=150, required=False, help_text="games this player (any case) sat in")
    map = StrictChoiceField([m for m, _ in MAP_CHOICES], required=False)
    ranked = QueryBooleanField(required=False, help_text="ranked games only (true) or unranked only (false)")
    since = QueryMomentField(required=False, help_text="games finished at or after this moment")
    until = QueryMomentField(required=False, help_text="games finished before this moment")
    tournament = serializers.UUIDField(required=False, help_text="the tables of this tournament")


class _StreamView(ApiView):
    """A view whose answer is a file or a stream, not JSON: a client may ask for its type (`Accept`) without a 406,
    and its errors are JSON whatever it asked for."""

    def perform_content_negotiation(self, request: Request, force: bool = False) -> tuple[Any, str]:
        return super().perform_content_negotiation(request, force=True)  # (the JSON renderer where none matches)


class ExportView(_StreamView):
    permission_classes = [permissions.AllowAny]
    throttle_classes = [ExportThrottle]
    throttle_scope = "export"

    @extend_schema(
        operation_id="games_export",
        parameters=[ExportQuery],
        responses={
            (200, NDJSON): OpenApiResponse(str, description="one game line a line (docs/AUDIT.md), by finished_at, id"),
            **error_responses(400, 401, 429),
            404: OpenApiResponse(error_responses(404)[404].response, description="no player of that name"),
        },
        description="Every finished game the filters keep (private games are never listed), one JSON line each, "
        "ordered by (`finished_at`, id). To resume a stream cut short, ask again with `since` = the last line's "
        "`finished_at` and skip the games you hold already. A game in play is never in it. Throttled per person.",
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        games = _filtered(game_lines.listed_finished(), _query(request))
        chunks = _chunks(game_lines.encoded(line) for line in game_lines.game_lines(games))
        response = StreamingHttpResponse(_served(request, chunks), content_type=NDJSON)
        response["Cache-Control"] = "no-store"
        return response


def _query(request: Request) -> dict[str, Any]:
    """The export's filters: a 400 naming the parameter that is malformed, or not one of them."""
    described = ExportQuery().fields
    unknown = next((name for name in request.query_params if name not in described), None)
    if unknown is not None:
        raise ValidationError({unknown[:40]: ["not a parameter of this operation"]})
    serializer = ExportQuery(data={name: request.query_params[name] for name in request.query_params})
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _filtered(games: QuerySet[Game], query: dict[str, Any]) -> QuerySet[Game]:
    if "player" in query:
        games = games.filter(pk__in=_seats_of(query["player"]).values("game_id"))
    if "map" in query:
        games = games.filter(map=query["map"])
    if "ranked" in query:
        games = games.filter(ranked=query["ranked"])
    if "since" in query:
        games = games.filter(finished_at__gte=query["since"])
    if "until" in query:
        games = games.filter(finished_at__lt=query["until"])
    if "tournament" in query:
        games = games.filter(tournament=query["tournament"])
    return games


def _seats_of(username: str) -> QuerySet[Seat]:
    """The seats the named player held: a person's, or a bot account's (the seats its level played)."""
    user = accounts.user_named(username) if "\x00" not in username else None
    if user is None:
        raise ServiceError("not_found", "no player of that name", status=404, field="player")
    level = BotAccount.objects.filter(user=user).values_list("level", flat=True).first()
    return Seat.objects.filter(bot=level) if level is not None else Seat.objects.filter(user=user)


def _chunks(lines: Iterator[bytes]) -> Iterator[bytes]:
    """The lines gathered into chunks of about CHUNK_BYTES."""
    chunk: list[bytes] = []
    size = 0
    for line in lines:
        chunk.append(line)
        size += len(line)
        if size >= CHUNK_BYTES:
            yield b"".join(chunk)
            chunk, size = [], 0
    if chunk:
        yield b"".join(chunk)


def _served(request: Request, chunks: Iterator[bytes]) -> Iterator[bytes] | AsyncIterator[bytes]:
    """What a streaming response sends: `chunks` as they are, or pulled one by one under ASGI (where the view's
    own database connection is given back first: the response is closed later, in another thread)."""
    if not isinstance(request._request, ASGIRequest):
        return chunks
    close_old_connections()
    return _pulled(chunks)


async def _pulled(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    step = sync_to_async(_next_chunk, thread_sensitive=False)
    try:
        while (chunk := await step(chunks)) is not None:
            yield chunk
    finally:
        await sync_to_async(_closed, thread_sensitive=False)(chunks)


def _next_chunk(chunks: Iterator[bytes]) -> bytes | None:
    """The next chunk, read in a worker thread; that thread's database connection goes back to the pool after it."""
    try:
        return next(chunks, None)
    finally:
        close_old_connections()


def _closed(chunks: Iterator[bytes]) -> None:
    """The stream ended, or its client left: its generator closed (unless a thread still runs it, cancelled under
    it: it ends with that thread), and this thread's connection given back."""
    try:
        close = getattr(chunks, "close", None)
        if close is not None:
            with suppress(ValueError):  # "generator already executing"
                close()
    finally:
        close_old_connections()


# ---------------------------------------------------------------------------------------------------------
# The monthly dumps.


def dump_directory() -> Path:
    return Path(settings.TTR_DUMP_DIR)


class DumpsView(ApiView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        operation_id="dumps_list",
        responses={200: dumps.Dumps, **error_responses(401)},
        description="The monthly dumps of every finished game (docs/AUDIT.md), newest first: each month's game lines "
        "(gzip) and its signed manifest, chained month to month; `keys_url`: the keys that signed them.",
    )
    def get(self, request: Request) -> Response:
        def url(name: str) -> str:
            return request.build_absolute_uri(f"/dumps/{name}")

        return Response(to_json(dumps.listed(dump_directory(), url, request.build_absolute_uri("/api/keys"))))


class DumpFileView(_StreamView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        operation_id="dump_file",
        parameters=[
            OpenApiParameter(
                "name", {"type": "string", "pattern": dumps.NAME_PATTERN}, OpenApiParameter.PATH,
                description="a name GET /api/dumps lists: games-YYYY-MM.jsonl.gz, games-YYYY-MM.manifest.json, keys.json",
            )
        ],
        responses={
            (200, "application/gzip"): OpenApiResponse(OpenApiTypes.BINARY, description="a month's game lines"),
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="a manifest, or the keys"),
            **error_responses(401),
            404: OpenApiResponse(error_responses(404)[404].response, description="no such dump (`not_found`)"),
        },
        description="A file of the monthly dumps, as GET /api/dumps lists it.",
    )
    def get(self, request: Request, name: str) -> FileResponse | Response:
        path = dumps.served(dump_directory(), name)
        if path is None:
            return error("not_found", "no such dump", 404)
        kind = "application/gzip" if name.endswith(".gz") else "application/json"
        response = FileResponse(path.open("rb"), content_type=kind)
        if isinstance(request._request, ASGIRequest):  # read a block at a time there too (see the module's docstring)
            file = response.file_to_stream
            assert file is not None
            response.streaming_content = _served(request, iter(lambda: file.read(FILE_BLOCK), b""))
        if name != dumps.KEYS_FILE:  # a month's files never change once listed
            response["Cache-Control"] = "public, max-age=86400, immutable"
        return response
