"""Graceful shutdown (SIGTERM) on the production layout: a web process finishes the requests under way, closes
its sockets with 1012 (clients reconnect and resync), takes no new connection and exits; the stack starts it
again (compose's restart policy). A worker given SIGTERM finishes its task; the stack's own SIGTERM stops every
process it started (bench/fault_stack/harness.py checks that on exit)."""

from __future__ import annotations

import json
import signal
import socket
import time
from typing import Any
from urllib.parse import urlparse

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from bench.fault_stack.harness import Harness


def _register(base: str, username: str) -> str:
    answer = httpx.post(f"{base}/api/auth/register", json={"username": username, "password": "correct-horse-9"})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["token"])


def test_sigterm_finishes_the_request_under_way_and_closes_sockets_with_1012(stack: Harness) -> None:
    base = stack.urls[0]
    token = _register(base, "shutdown0")
    game = httpx.post(
        f"{base}/api/games", json={"map": "usa", "players": 2, "ranked": False},
        headers={"Authorization": f"Token {token}"},
    ).json()["id"]
    host, port = urlparse(base).hostname, urlparse(base).port
    assert host and port
    first_pid = stack.stack.children["web-0"].pid
    with connect(f"ws://{host}:{port}/ws/games/{game}/?token={token}", open_timeout=10) as watcher:
        assert json.loads(watcher.recv(timeout=10))["type"] == "hello"
        _terminate_during_a_request(stack, host, port, watcher)
    _started_again(stack, host, port, game, token, first_pid)


def _terminate_during_a_request(stack: Harness, host: str, port: int, watcher: Any) -> None:

    # a request under way: its headers and half its body sent before the signal, the rest after
    payload = json.dumps({"username": "shutdown0", "password": "correct-horse-9"}).encode()
    raw = socket.create_connection((host, port), timeout=10)
    raw.sendall(
        b"POST /api/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload[:10]
    )
    time.sleep(0.3)
    stack.stack.signal("web-0", signal.SIGTERM)

    with pytest.raises(ConnectionClosed) as closed:
        while True:
            watcher.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012, closed.value

    raw.sendall(payload[10:])
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
        chunk = raw.recv(65536)
        if not chunk:
            break
        answer += chunk
    raw.close()
    assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
    assert b'"token"' in answer



def _started_again(stack: Harness, host: str, port: int, game: str, token: str, first_pid: int | None) -> None:
    """The process is gone, then the stack starts it again and it serves."""
    deadline = time.monotonic() + 30
    while stack.stack.children["web-0"].pid == first_pid and time.monotonic() < deadline:
        time.sleep(0.1)
    assert stack.stack.children["web-0"].pid != first_pid, "web-0 was not started again"
    stack.stack.wait_ready()
    with connect(f"ws://{host}:{port}/ws/games/{game}/?token={token}", open_timeout=10) as again:
        hello = json.loads(again.recv(timeout=10))
    assert hello["type"] == "hello" and hello["seq"] == 0
    starts = [line for name, line in stack.log_lines() if name == "web-0" and "Finished server process" in str(line)]
    assert starts, "the first web-0 did not end by its own shutdown"
