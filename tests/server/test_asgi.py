"""The HTTP side of the ASGI application (ttr_server/http.py): the size limits before anything reads the request,
and the answers, signals and errors as Django's own handler gives them (the handler in use: Django's, or the
override http_one_hop, ttr_server/overrides/)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.core import signals

from tests.server.helpers import PASSWORD
from ttr_server import limits
from ttr_server.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)  # the handler's thread has its own connection



def call(
    method: str, path: str, body: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None,
    *, query: bytes = b"", chunks: list[bytes] | None = None,
) -> tuple[int, dict[bytes, bytes], bytes]:
    """One request through the ASGI application; `chunks` sends a body in pieces with no Content-Length."""
    length = [] if chunks is not None else [(b"content-length", str(len(body)).encode())]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": query, "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"), *length, *(headers or [])],
        "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }
    pieces = chunks if chunks is not None else [body]

    async def exchange() -> tuple[int, dict[bytes, bytes], bytes]:
        app = ApplicationCommunicator(application, scope)
        for i, piece in enumerate(pieces):
            await app.send_input({"type": "http.request", "body": piece, "more_body": i < len(pieces) - 1})
        start = await app.receive_output(timeout=10)
        content = b""
        while True:
            message = await app.receive_output(timeout=10)
            content += message.get("body", b"")
            if not message.get("more_body"):
                break
        await app.wait(timeout=10)
        return start["status"], dict(start["headers"]), content

    return async_to_sync(exchange)()


def test_a_request_with_a_body_is_handled_and_answered_in_json() -> None:
    credentials = json.dumps({"username": "ada", "password": PASSWORD}).encode()
    status, headers, content = call("POST", "/api/auth/register", credentials)
    assert status == 201
    assert headers[b"Content-Type"] == b"application/json"
    token = json.loads(content)["token"]
    auth = [(b"authorization", f"Token {token}".encode())]
    status, _, content = call("POST", "/api/games", b'{"map": "usa", "players": 2}', auth)
    assert status == 201 and json.loads(content)["map"] == "usa"


def test_errors_keep_their_status_and_json_body() -> None:
    status, _, content = call("POST", "/api/games", b'{"map": "usa", "players": 2}')
    assert status == 401 and json.loads(content)["code"] == "not_authenticated"
    status, _, content = call("POST", "/api/auth/register", b"{not json")
    assert status == 400 and json.loads(content)["code"] == "invalid"
    status, _, content = call("GET", "/api/games/00000000-0000-0000-0000-000000000000")
    assert status == 404 and json.loads(content)["code"] == "not_found"


def test_request_started_and_finished_are_sent_once_per_request() -> None:
    seen: list[str] = []

    def started(**_: Any) -> None:
        seen.append("started")

    def finished(**_: Any) -> None:
        seen.append("finished")

    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    try:
        call("GET", "/api/games")
        call("GET", "/api/nowhere")
    finally:
        signals.request_started.disconnect(started)
        signals.request_finished.disconnect(finished)
    assert seen == ["started", "finished", "started", "finished"]


# Size limits (ttr_server/limits.py), applied before the body is read.


def test_a_body_over_the_limit_is_413_too_large_json_not_an_html_page() -> None:
    big = b'{"username": "' + b"a" * 3_000_000 + b'", "password": "x"}'  # over Django's own 2.5 MB limit too
    status, headers, content = call("POST", "/api/auth/register", big)
    assert status == 413 and headers[b"Content-Type"] == b"application/json"
    assert json.loads(content)["code"] == "too_large"
    status, _, content = call("POST", "/api/auth/register", b"{" + b" " * (limits.MAX_BODY_BYTES + 1) + b"}")
    assert status == 413 and json.loads(content)["code"] == "too_large"


def test_a_chunked_body_is_refused_as_soon_as_it_passes_the_limit() -> None:
    piece = b" " * 8192
    chunks = [b"{", *[piece] * (limits.MAX_BODY_BYTES // len(piece) + 1), b"}"]
    status, _, content = call("POST", "/api/auth/register", chunks=chunks)
    assert status == 413 and json.loads(content)["code"] == "too_large"
    from django.contrib.auth import get_user_model

    assert not get_user_model().objects.filter(bot_account=None).exists()  # no account but the bot accounts


def test_a_body_just_under_the_limit_is_read() -> None:
    padded = json.dumps({"username": "ada", "password": PASSWORD}).encode()
    padded = padded[:-1] + b" " * (limits.MAX_BODY_BYTES - len(padded)) + b"}"
    assert call("POST", "/api/auth/register", padded)[0] == 201


def test_a_url_over_the_limit_is_414_json() -> None:
    status, headers, content = call("GET", "/api/games/" + "x" * limits.MAX_URL_CHARS)
    assert status == 414 and headers[b"Content-Type"] == b"application/json"
    assert json.loads(content)["code"] == "url_too_long"
    status, _, content = call("GET", "/api/games", query=b"status=" + b"a" * limits.MAX_URL_CHARS)
    assert status == 414 and json.loads(content)["code"] == "url_too_long"
