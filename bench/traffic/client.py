"""A client of the server's public API (docs/API.md) over several web processes: `Http` (each request retried on
the next base URL after a connection error or a 502/503/504, honouring `Retry-After`), `register_users`, and the
game socket (`game_socket_url`, `connect_socket`). Everything it sees goes to a `Recorder`."""

from __future__ import annotations

import json
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from bench.traffic.recorder import JSON, Recorder

PASSWORD = "correct-horse-9"
RETRIED_STATUSES = frozenset({502, 503, 504})
RETRY_AFTER_CAP = 2.0  # seconds: a 503's Retry-After is honoured up to this
THROTTLE_WAIT_CAP = 65.0  # seconds: a 429's Retry-After (registration is throttled per process)
GIVE_UP_SECONDS = 120.0  # a request that found no web process answering for this long fails


class Unreachable(Exception):
    """No web process answered a request within GIVE_UP_SECONDS (or the run was stopped meanwhile)."""


@dataclass
class Answer:
    status: int
    text: str
    index: int  # the URL (index into the list) that answered
    seconds: float

    def json(self) -> JSON:
        return json.loads(self.text)


class Http:
    """One thread's HTTP client over all the base URLs, with the retries described in the module's docstring."""

    def __init__(self, urls: Sequence[str], recorder: Recorder, stopped: Callable[[], bool] = lambda: False,
                 rng: random.Random | None = None, give_up: float = GIVE_UP_SECONDS) -> None:
        self.urls = [u.rstrip("/") for u in urls]
        self.recorder = recorder
        self.stopped = stopped
        self.rng = rng or random.Random()
        self.give_up = give_up
        self.client = httpx.Client(timeout=httpx.Timeout(30.0, connect=5.0), trust_env=False,
                                   limits=httpx.Limits(max_connections=4 * len(self.urls) + 4))

    def close(self) -> None:
        self.client.close()

    def request(self, method: str, path: str, *, home: int = 0, token: str | None = None, body: Any = None,
                params: dict[str, Any] | None = None, kind: str = "read") -> Answer:
        """`path` (from /api/... on) on URL `home`, or on the next ones when it cannot answer; the answer (any
        status but a retried one). The latency of the answering attempt is recorded under `kind`."""
        headers = {"Authorization": f"Token {token}"} if token else {}
        began, index, attempt = time.monotonic(), home % len(self.urls), 0
        while True:
            url = self.urls[index] + path
            started = time.monotonic()
            told = False  # the server said how long to wait (Retry-After): no jitter then
            try:
                response = self.client.request(method, url, json=body, params=params, headers=headers)
            except httpx.TransportError as error:
                self.recorder.count(f"transport error {type(error).__name__}")
                wait = min(2.0, 0.1 * 2**attempt)
            else:
                seconds = time.monotonic() - started
                code = response.status_code
                self.recorder.status(code, method, url, response.text if code >= 500 else "")
                told = "Retry-After" in response.headers
                if code == 429:
                    wait = min(_retry_after(response, 5.0), THROTTLE_WAIT_CAP)
                    self.recorder.count("throttled")
                elif code in RETRIED_STATUSES:
                    wait = min(_retry_after(response, 0.2 * 2**attempt), RETRY_AFTER_CAP)
                    self.recorder.count(f"retried {code}")
                else:
                    self.recorder.latency(kind, seconds)
                    return Answer(code, response.text, index, seconds)
            if self.stopped() or time.monotonic() - began > self.give_up:
                raise Unreachable(f"{method} {path}: no answer after {attempt + 1} attempts")
            time.sleep(wait if told else wait * (0.75 + 0.5 * self.rng.random()))
            index = (index + 1) % len(self.urls)
            attempt += 1


def _retry_after(response: httpx.Response, default: float) -> float:
    try:
        return max(0.0, float(response.headers.get("Retry-After", default)))
    except ValueError:
        return default


def register_users(
    urls: Sequence[str], count: int, recorder: Recorder, *, prefix: str | None = None
) -> list[tuple[str, str]]:
    """`count` newly registered users, round-robin over `urls`: (username, token) each."""
    prefix = prefix or f"t{secrets.token_hex(3)}"
    http = Http(urls, recorder)
    users = []
    try:
        for n in range(count):
            username = f"{prefix}-{n}"
            answer = http.request("POST", "/api/auth/register", home=n, body={"username": username, "password": PASSWORD})
            if answer.status == 400 and '"username_taken"' in answer.text:  # a retried request that had worked
                answer = http.request("POST", "/api/auth/token", home=n, body={"username": username, "password": PASSWORD})
            if answer.status not in (200, 201):
                raise RuntimeError(f"could not register {username}: {answer.status} {answer.text[:300]}")
            users.append((username, str(answer.json()["token"])))
    finally:
        http.close()
    return users


def game_socket_url(base: str, game: str, token: str) -> str:
    """The game's socket on base URL `base` ("http://127.0.0.1:8001" -> "ws://127.0.0.1:8001/ws/games/...")."""
    base = base.replace("http://", "ws://", 1).replace("https://", "wss://", 1)
    return f"{base}/ws/games/{game}/?token={token}"


def connect_socket(url: str) -> ClientConnection:
    """A connection to the socket at `url` (raises websockets' InvalidStatus, InvalidHandshake, OSError, TimeoutError)."""
    return connect(url, legacy=True, open_timeout=10, close_timeout=2, max_size=2**22, proxy=None,
                   ping_interval=None)  # no keepalive thread: the server pings, the reader answers
