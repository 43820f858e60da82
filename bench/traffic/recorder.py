"""Everything the clients of `bench.traffic.play.play_games` saw: `Recorder` and what it holds (see the package's
docstring)."""

from __future__ import annotations

import json
import threading
import time
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Any

JSON = Any


@dataclass(frozen=True)
class Received:
    """One thing a client received: an HTTP body or a socket message (stored zlib-compressed; `body()` parses)."""

    game: str
    username: str | None
    seat: int | None  # the receiver's seat in the game; None for a spectator
    source: str  # "GET /state", "POST /moves", "ws hello", "ws events", ...
    status: int | None  # the HTTP status; None for a socket message
    at: float  # time.time() when received
    raw: bytes

    def text(self) -> str:
        return zlib.decompress(self.raw).decode()

    def body(self) -> JSON:
        return json.loads(self.text())


@dataclass(frozen=True)
class Ack:
    """A move a client was told succeeded: it was played at `expected_seq`, and the game then stood at `seq`."""

    game: str
    seat: int
    username: str
    path: str  # "http" or "socket"
    expected_seq: int
    seq: int
    move: dict[str, Any]
    at: float


@dataclass(frozen=True)
class ServerError:
    status: int
    method: str
    url: str
    body: str
    at: float


@dataclass(frozen=True)
class Anomaly:
    game: str | None
    kind: str
    detail: str
    at: float


class Recorder:
    """Everything the clients of `play_games` saw, from any number of threads (see the package's docstring).

    `keep_bodies=False` keeps no bodies (less memory for a long benchmark; then `check_games` cannot scan for
    leaks or compare events with the log, and says so)."""

    def __init__(self, *, keep_bodies: bool = True) -> None:
        self.keep_bodies = keep_bodies
        self._lock = threading.Lock()
        self.received: list[Received] = []
        self.latencies: dict[str, list[float]] = {"http": [], "socket": [], "read": []}
        self.statuses: Counter[int] = Counter()
        self.server_errors: list[ServerError] = []
        self.acks: list[Ack] = []
        self.anomalies: list[Anomaly] = []
        self.counters: Counter[str] = Counter()
        self.started = time.monotonic()

    def receive(self, game: str, username: str | None, seat: int | None, source: str, text: str | bytes,
                status: int | None = None) -> None:
        if not self.keep_bodies:
            return
        raw = zlib.compress(text.encode() if isinstance(text, str) else text, 1)
        item = Received(game, username, seat, source, status, time.time(), raw)
        with self._lock:
            self.received.append(item)

    def latency(self, path: str, seconds: float) -> None:
        with self._lock:
            self.latencies.setdefault(path, []).append(seconds)

    def status(self, code: int, method: str, url: str, body: str) -> None:
        with self._lock:
            self.statuses[code] += 1
            if code >= 500:
                self.server_errors.append(ServerError(code, method, url, body[:4000], time.time()))

    def ack(self, ack: Ack) -> None:
        with self._lock:
            self.acks.append(ack)

    def anomaly(self, game: str | None, kind: str, detail: str) -> None:
        with self._lock:
            self.anomalies.append(Anomaly(game, kind, detail[:2000], time.time()))

    def count(self, name: str, n: int = 1) -> None:
        with self._lock:
            self.counters[name] += n

    def snapshot(self) -> tuple[list[Received], list[Ack], list[ServerError], list[Anomaly]]:
        with self._lock:
            return list(self.received), list(self.acks), list(self.server_errors), list(self.anomalies)

    def tallies(self) -> tuple[dict[str, list[float]], dict[int, int], dict[str, int]]:
        """Copies of the latencies by path, the status counts (by status) and the counters (by name)."""
        with self._lock:
            latencies = {path: list(values) for path, values in self.latencies.items()}
            return latencies, dict(sorted(self.statuses.items())), dict(sorted(self.counters.items()))
