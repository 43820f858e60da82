"""The framework overrides (ttr_server/overrides/): the switch, and for each override the behaviour that earns it,
tested with the override on whatever TTR_OVERRIDES says (these tests turn it on or off themselves), so that an
upgrade of the framework that breaks one fails here. `make test-plain` runs the whole suite with them all off."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from kombu import Connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.server.helpers import run_coroutine, seated_game, url
from ttr_server import overrides
from ttr_server.overrides import atomic_broker


def switched(settings: Any, name: str, on: bool) -> None:
    """Turn the override `name` on or off for this test, the others as they are."""
    settings.TTR_OVERRIDES = settings.TTR_OVERRIDES | {name} if on else settings.TTR_OVERRIDES - {name}


# The switch


def test_ttr_overrides_names_all_none_some_or_all_but_some() -> None:
    everything = frozenset(overrides.NAMES)
    assert overrides.parse("all") == overrides.parse("") == everything
    assert overrides.parse("none") == frozenset()
    assert overrides.parse("http_one_hop, atomic_broker") == {"http_one_hop", "atomic_broker"}
    assert overrides.parse("-http_one_hop,-atomic_broker") == everything - {"http_one_hop", "atomic_broker"}
    with pytest.raises(overrides.UnknownOverride, match="no override is called http_one_hopp"):
        overrides.parse("http_one_hopp")
    with pytest.raises(overrides.UnknownOverride, match="not both"):
        overrides.parse("http_one_hop,-atomic_broker")


def test_settings_read_the_switch_from_the_environment() -> None:
    probe = "from django.conf import settings; print(sorted(settings.TTR_OVERRIDES), settings.CELERY_BROKER_URL)"
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "REDIS_URL")}  # the embedded broker
    env["DJANGO_SETTINGS_MODULE"] = "ttr_server.settings"
    for value, expected, broker in (("none", [], "filesystem://"), ("atomic_broker", ["atomic_broker"], "ttrfs://")):
        out = subprocess.run(
            [sys.executable, "-c", probe], env={**env, "TTR_OVERRIDES": value}, capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.startswith(f"{expected} {broker}"), out.stdout


# atomic_broker (correctness): a consumer never sees a message file before it is whole


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    atomic_broker.register()
    return tmp_path


def broker_connection(folder: Path) -> Connection:
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder), "store_processed": False}
    return Connection("ttrfs://", transport_options=options)


def test_atomic_broker_a_message_appears_under_its_queue_name_only_once_it_is_written(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[list[str], bytes]] = []
    real_replace = os.replace

    def replace(partial: str, final: str) -> None:
        seen.append((sorted(os.listdir(folder)), Path(partial).read_bytes()))
        real_replace(partial, final)

    monkeypatch.setattr(atomic_broker.os, "replace", replace)
    with broker_connection(folder) as conn:
        channel = conn.channel()
        channel._put("q", {"body": "x" * 10_000})
        [(listing, written)] = seen
        assert [name for name in listing if name.endswith(".q.msg")] == []  # nothing a consumer would take
        assert json.loads(written)["body"] == "x" * 10_000  # and the file was whole before its rename
        assert channel._get("q")["body"] == "x" * 10_000


def test_atomic_broker_messages_go_out_in_order_and_leave_no_partial_files(folder: Path) -> None:
    with broker_connection(folder) as conn:
        channel = conn.channel()
        for n in range(5):
            channel._put("q", {"n": n})
        assert not [p for p in folder.iterdir() if p.name.endswith(".part")]
        assert [channel._get("q")["n"] for _ in range(5)] == list(range(5))


# http_one_hop: a request is served in one call in a reused thread


async def http_get(app: Any, path: str) -> int:
    """One GET through the ASGI application `app`; its status."""
    answers: list[dict[str, Any]] = []
    request = [{"type": "http.request", "body": b"", "more_body": False}]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }

    async def receive() -> dict[str, Any]:
        if request:
            return request.pop()
        await asyncio.Event().wait()  # the client stays until it has its answer
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        answers.append(message)

    await app(scope, receive, send)
    return int(answers[0]["status"])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("on", [True, False])
def test_http_one_hop_requests_start_no_thread_of_their_own(
    settings: Any, monkeypatch: pytest.MonkeyPatch, on: bool
) -> None:
    """Django's handler runs each request in a ThreadSensitiveContext, which starts a thread for it (and crosses
    between the loop and it several times); the override's runs the request in one call in a thread of the loop's
    pool, reused from one request to the next."""
    from ttr_server.http import get_asgi_application

    switched(settings, "http_one_hop", on)
    app = get_asgi_application()
    started: list[str] = []
    real_start = threading.Thread.start

    def start(thread: threading.Thread) -> None:
        started.append(thread.name)
        real_start(thread)

    async def scenario() -> list[int]:
        await http_get(app, "/api/games")  # the pool's first thread starts here
        monkeypatch.setattr(threading.Thread, "start", start)
        try:
            return [await http_get(app, "/api/games") for _ in range(10)]
        finally:
            monkeypatch.undo()  # (each request's connection went back with its request_finished)

    assert run_coroutine(scenario()) == [200] * 10
    assert len(started) <= 2 if on else len(started) >= 10, started  # on: the pool may add a thread, never one a request


# game_token_read: a game endpoint checks the token in the statement that reads the game


@pytest.mark.django_db
def test_game_token_read_a_game_endpoint_with_a_token_asks_the_database_once_less(settings: Any) -> None:
    """The answers are DRF's either way (tests/server/test_game_token.py); the override saves the token's own query."""
    table = seated_game("ovt")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get(user__username='ovt0').key}")
    counts = {}
    for on in (True, False):
        switched(settings, "game_token_read", on)
        assert client.get(url(table.game_id, "state")).status_code == 200  # the state cached: the same work after
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url(table.game_id, "state")).status_code == 200
        counts[on] = len(queries.captured_queries)
    assert counts[True] + 1 == counts[False], counts
