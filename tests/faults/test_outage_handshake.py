"""A socket opened while Redis or PostgreSQL is down closes with 1013, "try again later" (finding 7 of #30).

On the production layout: the stack's own Redis killed (never the machine's shared one), then a game socket and
a person's socket opened on each web process: each is accepted and closed with 1013 after an `unavailable`
error, and no process logs "Exception in ASGI application". Redis comes back and sockets open again. Then the
same with the database refusing connections. Before, the game socket's handshake was answered HTTP 500.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlparse

import httpx
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from bench.fault_stack.harness import Harness


def _ws(base: str, path: str, token: str) -> str:
    url = urlparse(base)
    return f"ws://{url.hostname}:{url.port}{path}?token={token}"


def _closing_code(url: str) -> tuple[list[dict[str, Any]], int | None]:
    """What the server said on the socket, and the code it closed it with (None: not closed within 60 s)."""
    said = []
    try:
        with connect(url, open_timeout=60) as socket:
            while True:
                said.append(json.loads(socket.recv(timeout=60)))
    except ConnectionClosed as closed:
        return said, closed.rcvd.code if closed.rcvd else None
    except TimeoutError:
        return said, None


def _game(base: str, username: str) -> tuple[str, str]:
    answer = httpx.post(f"{base}/api/auth/register", json={"username": username, "password": "correct-horse-9"})
    assert answer.status_code == 201, answer.text
    token = answer.json()["token"]
    created = httpx.post(
        f"{base}/api/games", json={"map": "usa", "players": 2, "ranked": False},
        headers={"Authorization": f"Token {token}"},
    )
    assert created.status_code == 201, created.text
    return str(created.json()["id"]), str(token)


def _asgi_exceptions(stack: Harness) -> list[str]:
    return [
        f"{path.name}: {line[:300]}" for path in sorted((stack.var_dir / "logs").glob("*.log"))
        for line in path.read_text(errors="replace").splitlines() if "Exception in ASGI application" in line
    ]


def _serves_again(stack: Harness, game: str, token: str) -> None:
    deadline = time.monotonic() + 90
    for base in stack.urls:
        while True:
            try:
                with connect(_ws(base, f"/ws/games/{game}/", token), open_timeout=30) as socket:
                    if json.loads(socket.recv(timeout=30))["type"] == "hello":
                        break
            except (ConnectionClosed, InvalidStatus, OSError, TimeoutError):
                pass
            assert time.monotonic() < deadline, f"{base}: no socket served after the outage"
            time.sleep(0.5)


def _assert_closed_1013(stack: Harness, game: str, token: str) -> None:
    """A game socket and a person's socket on each web process, opened together: each closed with 1013."""
    urls = [_ws(base, path, token) for base in stack.urls for path in (f"/ws/games/{game}/", "/ws/me/")]
    with ThreadPoolExecutor(len(urls)) as pool:
        for url, (said, code) in zip(urls, pool.map(_closing_code, urls), strict=True):
            assert code == 1013, (url, said, code)
            assert said and said[-1]["type"] == "error" and said[-1]["error"]["code"] == "unavailable", (url, said)


def test_a_socket_opened_while_redis_is_down_closes_with_1013_and_serves_once_it_is_back(stack: Harness) -> None:
    game, token = _game(stack.urls[0], "outage-redis")
    stack.redis.stop()
    try:
        _assert_closed_1013(stack, game, token)
    finally:
        stack.redis.start()
    _serves_again(stack, game, token)
    assert not _asgi_exceptions(stack), _asgi_exceptions(stack)


def test_a_socket_opened_while_the_database_refuses_connections_closes_with_1013(stack: Harness) -> None:
    game, token = _game(stack.urls[0], "outage-db")
    with stack.database_refused():
        _assert_closed_1013(stack, game, token)  # (each handshake waits for the pool first: DB_POOL_TIMEOUT)
    _serves_again(stack, game, token)
    assert not _asgi_exceptions(stack), _asgi_exceptions(stack)
