"""The HTTP side of the ASGI application (ttr_server/http.py): the same answers as Django's own handler,
with the whole request in one worker thread."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.core import signals

from tests.server.helpers import FAST_HASHERS, PASSWORD
from ttr_server.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)  # the handler's thread has its own connection


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = FAST_HASHERS


def call(
    method: str, path: str, body: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
) -> tuple[int, dict[bytes, bytes], bytes]:
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [
            (b"host", b"testserver"), (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()), *(headers or []),
        ],
        "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }

    async def exchange() -> tuple[int, dict[bytes, bytes], bytes]:
        app = ApplicationCommunicator(application, scope)
        await app.send_input({"type": "http.request", "body": body, "more_body": False})
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
