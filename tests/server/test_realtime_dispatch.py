"""A socket's messages never wait for Django's sync thread.

Channels' own dispatch runs `close_old_connections` in the one thread that Django's sync code shares
(`sync_to_async`, thread_sensitive) before every message to a consumer; a game's notices reach its sockets through
the process's hub (games/realtime/hub.py), not through a message to each consumer, so they do not queue behind it.
Here that thread is kept busy for seconds while a move is made: the socket must still get the move's events at once.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections

from tests.server.helpers import run_coroutine, seated_game
from tests.server.sockets import token
from ttr_server.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)  # the consumer's threads read what the test wrote

BUSY_SECONDS = 4.0


@pytest.fixture(autouse=True)
def _poll_rarely(settings: Any) -> None:
    settings.REALTIME_POLL_SECONDS = 60  # only the commit's notice can bring the events in time, not the seq poll


def test_a_move_reaches_a_socket_while_djangos_sync_thread_is_busy() -> None:
    table = seated_game("dispatch", "europe", 2)
    offered = table.state(1)["view"]["offered_tickets"]
    path = f"/ws/games/{table.game_id}/?token={token(table, 0)}"
    busy = threading.Event()

    def hold_the_sync_thread() -> None:
        busy.set()
        time.sleep(BUSY_SECONDS)

    def keep_offered() -> None:
        try:
            table.play(1, {"type": "keep_tickets", "tickets": offered})
        finally:
            connections.close_all()  # this thread's connection (the test client does not close it)

    async def scenario() -> tuple[float, dict[str, Any]]:
        socket = WebsocketCommunicator(application, path, headers=[(b"host", b"testserver")])
        connected, _ = await socket.connect(timeout=10)
        assert connected
        hello = json.loads(await socket.receive_from(timeout=10))
        assert hello["type"] == "hello"
        blocker = asyncio.ensure_future(sync_to_async(hold_the_sync_thread)())  # thread_sensitive: Django's thread
        await asyncio.to_thread(busy.wait, 5)
        started = time.monotonic()
        await asyncio.to_thread(keep_offered)  # in another thread, as a request would be
        while True:
            message = json.loads(await socket.receive_from(timeout=BUSY_SECONDS))
            if message["type"] == "events":
                break
        waited = time.monotonic() - started
        await blocker
        await socket.disconnect()
        return waited, message

    async def in_one_worker_thread() -> tuple[float, dict[str, Any]]:
        """`scenario` with the loop's worker threads (the consumer's reads) in one thread, whose connection is
        closed at the end: a connection left open would keep the test database from being dropped."""
        loop = asyncio.get_running_loop()
        worker = ThreadPoolExecutor(max_workers=1)
        loop.set_default_executor(worker)
        try:
            return await scenario()
        finally:
            await loop.run_in_executor(worker, connections.close_all)

    waited, message = run_coroutine(in_one_worker_thread())
    assert [event["type"] for event in message["events"]] == ["tickets_kept"]
    assert message["events"][0]["seat"] == 1 and "kept" not in message["events"][0]  # seat 1's choice is hidden
    assert waited < BUSY_SECONDS / 2, f"the events waited {waited:.2f} s for Django's sync thread"
