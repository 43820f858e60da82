"""Live web processes and WebSocket clients for the realtime tests.

`web_server()` starts uvicorn with the ASGI application, as production runs it, against the test's PostgreSQL
database and Redis (the environment of tests/server/worker.py: the worker and the web processes see the same
committed rows); tests that use it commit for real (`django_db(transaction=True)`). `Socket` is a blocking
`websockets` client that keeps everything it received and checks, as it goes, that events arrive in seq order
with no gap and no duplicate.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from bench.live.embedded import LiveServer
from bench.live.processes import free_port
from bench.live.production import web_command
from tests.server.helpers import Table
from tests.server.worker import ROOT, worker_env


class Web(LiveServer):
    """A web process (uvicorn) whose log is `var_dir`/server.log."""

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws(self, game_id: str, token: str | None = None) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/games/{game_id}/" + (f"?token={token}" if token else "")


@contextmanager
def web_servers(count: int = 1, **env: str) -> Iterator[list[Web]]:
    """`count` uvicorn processes serving the application on the test database and Redis (see the module
    docstring), started together; stopped with SIGTERM (then SIGKILL) on exit."""
    with tempfile.TemporaryDirectory(prefix="ttr-web-", ignore_cleanup_errors=True) as tmp:
        webs: list[Web] = []
        try:
            for n in range(count):
                var_dir, port = Path(tmp) / f"web-{n}", free_port()
                var_dir.mkdir()
                with open(var_dir / "server.log", "wb") as log:
                    process = subprocess.Popen(
                        web_command(port), cwd=ROOT, env=worker_env(DEBUG="0", **env), stdout=log,
                        stderr=subprocess.STDOUT, start_new_session=True,
                    )
                webs.append(Web(process, port, var_dir))
            for web in webs:
                web.wait_serving()
            yield webs
        finally:
            for web in webs:
                os.killpg(web.process.pid, signal.SIGTERM)
            for web in webs:  # (uvicorn may wait seconds on channels_redis's blocking reads: not worth waiting for)
                try:
                    web.process.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    os.killpg(web.process.pid, signal.SIGKILL)
                    web.process.wait()


@dataclass
class Socket:
    """One viewer's socket: every message received (`received`), the last seq it has (`seq`)."""

    connection: ClientConnection
    name: str = ""
    received: list[dict[str, Any]] = field(default_factory=list)
    seq: int = -1
    hello: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def open(cls, url: str, name: str = "", **options: Any) -> Socket:
        opened = connect(url, open_timeout=10, max_size=2**22, **options)
        socket = cls(opened.__enter__(), name)  # (entered: a bare connect() is deprecated in websockets 17)
        socket.hello = socket.next(lambda m: m["type"] in ("hello", "error"))
        return socket

    def send(self, message: Any) -> None:
        self.connection.send(message if isinstance(message, (str, bytes)) else json.dumps(message))

    def receive(self, timeout: float = 10) -> dict[str, Any]:
        message = json.loads(self.connection.recv(timeout=timeout))
        self.received.append(message)
        self._check(message)
        return dict(message)

    def _check(self, message: dict[str, Any]) -> None:
        if message["type"] == "hello":
            self.seq = message.get("seq", self.seq)  # (a person's socket, /ws/me/, has none)
        elif message["type"] == "events" and not message.get("resync"):
            seqs = [e["seq"] for e in message["events"]]
            assert seqs == list(range(self.seq + 1, self.seq + 1 + len(seqs))), (self.name, self.seq, seqs)
            assert seqs and message["seq"] == seqs[-1], message
            self.seq = seqs[-1]
        elif message["type"] == "events":
            self.seq = message.get("seq", self.seq)  # (a person's socket, /ws/me/, has none)

    def next(self, wanted: Callable[[dict[str, Any]], bool], timeout: float = 10) -> dict[str, Any]:
        """Receive until a message that `wanted` accepts; that message."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.name}: no wanted message in {timeout} s (at seq {self.seq})")
            try:
                message = self.receive(left)
            except TimeoutError as timed_out:
                raise AssertionError(f"{self.name}: no wanted message in {timeout} s (at seq {self.seq})") from timed_out
            if wanted(message):
                return message

    def reach(self, seq: int, timeout: float = 10) -> None:
        """Receive until this socket has every event up to `seq`."""
        if self.seq < seq:
            self.next(lambda m: self.seq >= seq, timeout)

    def events(self) -> list[dict[str, Any]]:
        """Every event pushed to this socket, in the order received (resync answers left out)."""
        return [e for m in self.received if m["type"] == "events" and not m.get("resync") for e in m["events"]]

    def quiet(self, seconds: float = 0.3) -> list[dict[str, Any]]:
        """Whatever arrives within `seconds` (the test expects nothing, or knows what)."""
        got = []
        try:
            while True:
                got.append(self.receive(seconds))
        except TimeoutError:
            return got

    def close(self) -> None:
        with suppress(ConnectionClosed):
            self.connection.close()


# Fixtures and helpers for the test modules (imported by them by name).


@pytest.fixture(scope="module")
def webs(django_db_setup: Any) -> Iterator[tuple[Web, Web]]:
    """Two web processes behind the same Redis and database, for a test module."""
    with web_servers(2) as (a, b):
        yield a, b


@pytest.fixture
def web(webs: tuple[Web, Web]) -> Web:
    return webs[0]


def token(table: Table, seat: int) -> str:
    return str(table.clients[seat].token)  # type: ignore[attr-defined]


def table_sockets(web: Web, table: Table, spectator: Any) -> list[Socket]:
    """One socket per seat, then the spectator's (index = seat; the last one is the spectator)."""
    players = [Socket.open(web.ws(table.game_id, token(table, s)), f"seat {s}") for s in range(len(table.clients))]
    return [*players, Socket.open(web.ws(table.game_id, spectator.token), "spectator")]


def socket_move(socket: Socket, expected_seq: int, move: Any) -> dict[str, Any]:
    socket.send({"type": "move", "expected_seq": expected_seq, "move": move})
    return socket.next(lambda m: m["type"] == "move_result")


def keep_all_tickets(table: Table) -> None:
    for seat in range(len(table.clients)):
        offered = table.state(seat)["view"]["offered_tickets"]
        table.play(seat, {"type": "keep_tickets", "tickets": offered})
