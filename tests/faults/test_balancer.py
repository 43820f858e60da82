"""HAProxy in front of two web processes (deploy/haproxy.cfg, as `make stack` runs it): HTTP and a game's socket
through the one public port; SIGTERM to the web process holding the socket, under a stream of reads, fails no
request: its /readyz answers 503 at once (ttr_server/draining.py), HAProxy marks it DOWN and sends everything to the
other, the requests under way finish, the socket is closed with 1012, and its client reconnects through the
balancer, lands on the other process and resyncs the events it missed. The stack starts the process again and
HAProxy brings it back UP. The client's address the web process sees is the real one, whatever X-Forwarded-For
the client sends."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from bench.fault_stack.harness import Harness, harness
from tests.faults.conftest import missing
from tests.server.sockets import Socket
from ttr_server import balancer

PASSWORD = "correct-horse-9"


def _wait(what: str, condition: Callable[[], Any], seconds: float = 30) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.05)
    raise AssertionError(f"not in {seconds:.0f} s: {what}")


class Reads(threading.Thread):
    """GET requests through the balancer, one after another until stopped: on one kept-alive connection, or on a
    new connection each (`fresh`). Every status and every failure is kept."""

    def __init__(self, url: str, token: str, *, fresh: bool) -> None:
        super().__init__(daemon=True)
        self.url, self.token, self.fresh = url, token, fresh
        self.statuses: Counter[int] = Counter()
        self.failures: list[str] = []
        self.stopped = threading.Event()

    def run(self) -> None:
        headers = {"Authorization": f"Token {self.token}"}
        with httpx.Client(timeout=60, headers=headers) as kept:
            while not self.stopped.is_set():
                try:
                    answer = httpx.get(self.url, headers=headers, timeout=60) if self.fresh else kept.get(self.url)
                    self.statuses[answer.status_code] += 1
                except httpx.HTTPError as error:
                    self.failures.append(f"{type(error).__name__}: {error}")

    @property
    def count(self) -> int:
        return sum(self.statuses.values()) + len(self.failures)


def _register(http: httpx.Client, username: str) -> str:
    answer = http.post("/api/auth/register", json={"username": username, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["token"])


def _socket_lines(stack: Harness, game: str) -> dict[str, int]:
    """How many sockets of `game` each web process accepted (uvicorn's line for each)."""
    found: Counter[str] = Counter()
    for path in (stack.var_dir / "logs").glob("web-*.log"):
        found[path.stem] = sum(
            1 for line in path.read_text(errors="replace").splitlines()
            if f"/ws/games/{game}/" in line and "[accepted]" in line
        )
    return dict(found)


@pytest.fixture(scope="module")
def balanced() -> Any:
    if (why := missing()) is not None:
        pytest.skip(why)
    if balancer.program() is None:
        pytest.skip("needs haproxy (make servers installs Debian's)")
    extra = {"AUTH_THROTTLE_RATE": "100000/min", "LOG_ACCESS": "1"}
    with harness(f"ttr_balancer_{os.getpid()}", web=2, workers=0, strong_workers=0, analysis_workers=0, beat=False,
                 balancer=True, extra_env=extra) as running:  # the web processes alone: no move needs a worker here
        yield running


def test_sigterm_behind_the_balancer_fails_no_request_and_moves_the_socket(balanced: Harness) -> None:
    stack, public = balanced.stack, balanced.public_url
    assert stack.balancer_states() == {"web-0": "UP", "web-1": "UP"}
    http = httpx.Client(base_url=public, timeout=120)  # (a busy machine hashes passwords slowly)
    creator, joiner = _register(http, "lb_creator"), _register(http, "lb_joiner")
    game = http.post("/api/games", json={"map": "usa", "players": 2, "ranked": False},
                     headers={"Authorization": f"Token {creator}"}).json()["id"]
    assert http.post(f"/api/games/{game}/join", json={}, headers={"Authorization": f"Token {joiner}"}).status_code == 200

    ws_url = f"{public.replace('http://', 'ws://')}/ws/games/{game}/?token={creator}"
    socket = Socket.open(ws_url, "creator")
    assert socket.hello["type"] == "hello", socket.hello
    seen_at = socket.seq
    holder = _wait("the socket's web process", lambda: next(
        (name for name, count in _socket_lines(balanced, game).items() if count == 1), None))
    other = "web-1" if holder == "web-0" else "web-0"

    reads = [Reads(f"{public}/api/games/{game}/state", creator, fresh=fresh) for fresh in (False, True)]
    for thread in reads:
        thread.start()
    _wait("reads under way", lambda: all(t.count >= 10 for t in reads))
    first_pid = stack.children[holder].pid

    signalled = time.monotonic()
    stack.signal(holder, signal.SIGTERM)
    _wait(f"HAProxy marks {holder} down", lambda: stack.balancer_states()[holder].startswith("DOWN"), 10)
    down = time.monotonic() - signalled

    with pytest.raises(ConnectionClosed) as closed:  # the holder stops after its drain: 1012, through the balancer
        while True:
            socket.receive(timeout=20)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012, closed.value
    _wait(f"{holder} exits", lambda: stack.children[holder].pid != first_pid or not stack.children[holder].running())

    # while the socket is away the game moves on; its client reconnects through the balancer and resyncs
    started = http.post(f"/api/games/{game}/start", json={}, headers={"Authorization": f"Token {creator}"})
    assert started.status_code == 200, started.text
    again = Socket.open(ws_url, "creator again")
    assert again.hello["type"] == "hello" and again.hello["seq"] > seen_at, again.hello
    again.send({"type": "resync", "after": seen_at})
    resynced = again.next(lambda m: m["type"] == "events" and m.get("resync") is True)
    assert [e["seq"] for e in resynced["events"]] == list(range(seen_at + 1, again.hello["seq"] + 1)), resynced
    again.close()
    assert _socket_lines(balanced, game).get(other) == 1, _socket_lines(balanced, game)

    _wait(f"{holder} started again and back UP", lambda: stack.children[holder].pid != first_pid
          and stack.balancer_states().get(holder) == "UP", 90)  # (a start takes seconds on a busy machine)
    back = time.monotonic() - signalled
    counts = [t.count for t in reads]
    _wait("more reads with both back", lambda: all(t.count >= c + 10 for t, c in zip(reads, counts, strict=True)))
    for thread in reads:
        thread.stopped.set()
        thread.join(timeout=35)
    print(json.dumps({"down_after_sigterm_s": round(down, 2), "back_up_after_sigterm_s": round(back, 1),
                      "reads": {("fresh" if t.fresh else "kept"): {**t.statuses, "failed": len(t.failures)}
                                for t in reads}}))
    for thread in reads:
        assert not thread.failures, thread.failures[:5]
        assert set(thread.statuses) == {200}, thread.statuses
    assert not balanced.server_errors()
    # HAProxy took it out on its /readyz's 503 while it still served (the drain), not on a refused connection
    logs = balanced.var_dir / "logs"
    assert [line for name, line in balanced.log_lines() if name == holder and "draining" in str(line.get("event"))]
    out = [line for line in (logs / "balancer.log").read_text().splitlines() if f"Server web/{holder} is DOWN" in line]
    assert out and "Layer7 wrong status, code: 503" in out[-1], out  # (the first: before it had started)


def test_the_client_address_is_the_balancers_view_not_the_clients_claim(balanced: Harness) -> None:
    answer = httpx.get(f"{balanced.public_url}/api/games", headers={"X-Forwarded-For": "203.0.113.9"})
    assert answer.status_code == 200, answer.text
    lines = [line for path in Path(balanced.var_dir / "logs").glob("web-*.log")
             for line in path.read_text(errors="replace").splitlines() if "GET /api/games " in line]
    assert lines, "no access line (LOG_ACCESS=1)"
    assert all("203.0.113.9" not in line for line in lines), lines
    assert any("127.0.0.1" in line for line in lines), lines
