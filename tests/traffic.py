"""Scripted traffic against live web processes, and the checks run on what it received: for bench/load.py and the
fault-injection suite.

Pure client side: it talks to the servers over HTTP (httpx) and the game WebSocket (websockets' sync client) only,
as docs/API.md describes them, and imports nothing of the server (no Django, nothing of games/ or ttr_server/).

- `Recorder`: a thread-safe store of everything every client received (HTTP bodies and socket messages, each with
  the receiving user, its seat or None for a spectator, and the game), latencies by path (`"http"`: POST /moves,
  `"socket"`: a socket `move` to its `move_result`, `"read"`: every other request), every HTTP status seen, every
  5xx with its URL and body, every move a client was told succeeded (game, seat, expected seq, seq returned),
  anomalies (answers the contract forbids, e.g. a socket push out of seq order, a legal move refused) and counters
  (transport errors, reconnects, close codes, socket results).
- `play_games(urls, games, ...)`: creates `games` ranked games round-robin over the base URLs, seats scripted
  people (registered users: some playing over HTTP, some over the game's socket, some games watched by a spectator)
  and bots, and plays them to the end: each game is done when it is finished and `/score` answers 200. Returns one
  `GameRecord` a game.
- `check_games(url, records, recorder)`: the problems found (empty: all good): each finished game's `/verify`, its
  `/audit` log (seqs 1..N, the hash chain's links, one `game_ended`, one `game_scored`), every acknowledged move
  at its seq in the log, every recorded 5xx and anomaly, every event received matching the log, and a scan for
  hidden information in everything received before the game ended (see `check_games`).
- `summary(recorder)`: figures: moves by path, latency percentiles by path, status counts, 5xx count.

How the clients run: a bounded pool of driver threads (`threads`), each an event loop over the games given to it
(game i goes to thread i % threads) and their actors: one per game (it creates the game, seats everyone, starts
it, then waits for its score) and one per person. An actor's step does its blocking calls (HTTP requests, a
socket move and its result) and says when it wants to run again; sockets are read without blocking between
steps (websockets' sync client reads each open connection in a thread of its own and buffers: one thread a
socket, as the client's own keepalive pings are off; the server's pings are answered by that reader; 200 games
of up to 5 seats ran on 32 driver threads and ~290 socket threads at about 0.2 of a core). A person who
decides sleeps uniform(`think`) before moving; HTTP players poll `/state` (backing off while nothing changes) and
read `/events` now and then; socket players read pushed `events` and ask `/legal-moves` when an event may have
given them the decision (and every few seconds whatever happened), and reconnect when their socket drops (to the
next URL, then `resync`). Every request is retried on another URL after a connection error or a 502/503/504
(honouring `Retry-After` up to 2 s); a 409 `stale_seq` just means re-reading. Users come from a small pool
(registration is throttled per process and slow on purpose), reused across games.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import json
import math
import random
import re
import secrets
import threading
import time
import traceback
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection, connect

__all__ = [
    "Ack",
    "Anomaly",
    "GameRecord",
    "Received",
    "Recorder",
    "SeatInfo",
    "ServerError",
    "check_games",
    "choose",
    "play_games",
    "register_users",
    "summary",
]

PASSWORD = "correct-horse-9"
CARD_KINDS = frozenset({"purple", "blue", "orange", "white", "green", "yellow", "black", "red", "locomotive"})
# keys that only a finished game's view may hold (tests/server/test_leaks.py)
HIDDEN_KEYS = frozenset({"hands", "player_tickets", "draw_pile", "offered", "ticket_pile", "long_pile", "deck", "discards"})
# a move's own event (the first event with a seat among those the move appended): what the log must show for it
MOVE_EVENTS: dict[str, tuple[str, ...]] = {
    "keep_tickets": ("tickets_kept",),
    "draw_card": ("card_drawn",),
    "claim_route": ("route_claimed", "tunnel_revealed"),
    "pay_tunnel": ("route_claimed",),
    "decline_tunnel": ("tunnel_declined",),
    "draw_tickets": ("tickets_dealt",),
    "build_station": ("station_built",),
}
RETRIED_STATUSES = frozenset({502, 503, 504})
RETRY_AFTER_CAP = 2.0  # seconds: a 503's Retry-After is honoured up to this
THROTTLE_WAIT_CAP = 65.0  # seconds: a 429's Retry-After (registration is throttled per process)
GIVE_UP_SECONDS = 120.0  # a request that found no web process answering for this long fails
SOCKET_TICK = 0.1  # how often an idle socket player looks at what its socket buffered
SOCKET_CHECK_SECONDS = 5.0  # a socket player asks /legal-moves at least this often, whatever it heard
MOVE_RESULT_SECONDS = 30.0
ROOT = Path(__file__).resolve().parents[1]
JSON = Any


# ---------------------------------------------------------------------------------------------------------------
# The recorder


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
    """Everything the clients of `play_games` saw, from any number of threads (see the module's docstring).

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


# ---------------------------------------------------------------------------------------------------------------
# Games, seats, users


@dataclass
class SeatInfo:
    seat: int
    username: str | None = None
    bot: str | None = None  # the bot's level
    mode: str | None = None  # a person's path: "http" or "socket"


@dataclass
class GameRecord:
    """One game `play_games` created: `finished` once it ended and /score answered; `final_seq` then."""

    index: int
    map: str
    players: int
    url: str  # the base URL it was created on
    seats: list[SeatInfo]
    tokens: dict[str, str]  # username -> token, for every person seated (and the spectator)
    spectator: str | None = None
    strong: bool = False
    id: str = ""
    finished: bool = False
    final_seq: int = 0
    problem: str | None = None  # why it did not finish, when it did not

    def seat_of(self, username: str | None) -> int | None:
        return next((s.seat for s in self.seats if username is not None and s.username == username), None)


def choose(moves: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A random legal move, leaning towards claiming routes so that games end sooner (as tests/server/helpers.py)."""
    claims = [m for m in moves if m["type"] in ("claim_route", "pay_tunnel")]
    if claims and rng.random() < 0.8:
        return rng.choice(claims)
    keeps = [m for m in moves if m["type"] == "keep_tickets"]
    if keeps:  # keep few tickets: fewer big negative scores
        fewest = min(len(k["tickets"]) for k in keeps)
        return rng.choice([m for m in keeps if len(m["tickets"]) == fewest])
    non_station = [m for m in moves if m["type"] != "build_station"]
    if non_station and rng.random() < 0.9:
        return rng.choice(non_station)
    return rng.choice(moves)


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


# ---------------------------------------------------------------------------------------------------------------
# Actors: a game's table, the people at it, a spectator. Each `step()` returns the seconds until it wants to
# run again, or None when it is done.


class Actor:
    failures = 0

    def step(self) -> float | None:
        raise NotImplementedError

    def close(self) -> None:
        pass


class Table(Actor):
    """Creates its game, seats everyone, starts it; then waits for its end and its score (and notices a stall)."""

    def __init__(self, record: GameRecord, http: Http, recorder: Recorder, users: dict[str, str], *,
                 think: tuple[float, float], poll: tuple[float, float], seed: str, stall_seconds: float,
                 score_seconds: float) -> None:
        self.record, self.http, self.recorder = record, http, recorder
        self.users = users
        self.think, self.poll, self.seed = think, poll, seed
        self.stall_seconds, self.score_seconds = stall_seconds, score_seconds
        self.home = record.index
        self.people: list[Viewer] = []
        self.spawned: list[Actor] = []
        self.done = False
        self.ended = False  # a person saw the game end
        self.started = False
        self.seq = 0
        self.moved_at = time.monotonic()
        self.ended_at: float | None = None
        self.summary_at = time.monotonic()

    # what the people report

    def saw(self, seq: int) -> None:
        if seq > self.seq:
            self.seq, self.moved_at = seq, time.monotonic()

    def saw_end(self) -> None:
        if not self.ended:
            self.ended, self.ended_at = True, time.monotonic()

    def step(self) -> float | None:
        if self.done:
            return None
        if not self.started:
            self.setup()
            return None if self.done else 1.0
        now = time.monotonic()
        if not self.ended and now - self.summary_at > 15:  # now and then, whatever the people saw
            self.summary_at = now
            answer = self.get(f"/api/games/{self.record.id}")
            if answer.status == 200:
                game = answer.json()
                self.saw(int(game["seq"]))
                if game["status"] == "finished":
                    self.saw_end()
        if self.ended:
            return self.wait_for_score()
        if now - self.moved_at > self.stall_seconds:
            self.fail(f"stalled at seq {self.seq} for {self.stall_seconds:.0f} s")
            return None
        return 1.0

    def get(self, path: str) -> Answer:
        answer = self.http.request("GET", path, home=self.home)
        self.home = answer.index
        return answer

    def wait_for_score(self) -> float | None:
        game_id = self.record.id
        answer = self.get(f"/api/games/{game_id}/score")
        if answer.status == 200:
            summary = self.get(f"/api/games/{game_id}")
            if summary.status == 200 and summary.json()["status"] == "finished":
                self.record.final_seq = int(summary.json()["seq"])
                self.record.finished = True
                self.finish()
                return None
        elif answer.status != 409:
            self.recorder.anomaly(game_id, "score", f"GET /score answered {answer.status}: {answer.text[:300]}")
        if self.ended_at is not None and time.monotonic() - self.ended_at > self.score_seconds:
            self.fail(f"ended but not scored in {self.score_seconds:.0f} s")
            return None
        return 0.5

    def fail(self, problem: str) -> None:
        self.record.problem = problem
        self.recorder.anomaly(self.record.id or None, "game", problem)
        self.finish()

    def finish(self) -> None:
        self.done = True
        for person in self.people:
            person.close()

    def close(self) -> None:
        if not self.done:  # the run was stopped
            self.record.problem = self.record.problem or f"stopped at seq {self.seq}"
            self.finish()

    # setting the game up

    def call(self, method: str, path: str, username: str, body: Any = None) -> Answer:
        answer = self.http.request(method, path, home=self.home, token=self.record.tokens[username], body=body)
        if self.record.id:
            self.recorder.receive(self.record.id, username, self.record.seat_of(username), f"{method} {_endpoint(path)}",
                                  answer.text, answer.status)
        return answer

    def setup(self) -> None:
        record = self.record
        creator = record.seats[0].username
        assert creator is not None
        try:
            created = self.call("POST", "/api/games", creator,
                                {"map": record.map, "players": record.players, "ranked": True, "turn_seconds": None})
            if created.status != 201:
                return self.fail(f"POST /games answered {created.status}: {created.text[:300]}")
            record.id = str(created.json()["id"])
            self.recorder.receive(record.id, creator, 0, "POST /games", created.text, created.status)
            base = f"/api/games/{record.id}"
            for seat in record.seats[1:]:
                if seat.username is not None:
                    answer = self.call("POST", f"{base}/join", seat.username, {"seat": seat.seat})
                    ok = answer.status == 200 or (answer.status == 409 and "already_seated" in answer.text)
                else:
                    answer = self.call("POST", f"{base}/bots", creator, {"seat": seat.seat, "level": seat.bot})
                    ok = answer.status == 200 or self.seated_already(seat)
                if not ok:
                    return self.fail(f"seating seat {seat.seat} answered {answer.status}: {answer.text[:300]}")
            for seat in record.seats:
                if seat.username is not None:
                    assert seat.mode is not None
                    self.people.append(Person(self, seat.seat, seat.username, record.tokens[seat.username], seat.mode,
                                              random.Random(f"{self.seed}-{seat.seat}"), home=record.index + seat.seat))
            if record.spectator is not None:
                self.people.append(Spectator(self, record.spectator, record.tokens[record.spectator],
                                             random.Random(f"{self.seed}-spectator"), home=record.index + 1))
            for person in self.people:  # sockets open before the start: they see every event
                person.open_socket()
            started = self.call("POST", f"{base}/start", creator, {})
            if started.status != 200 and not (started.status == 409 and self.is_active()):
                return self.fail(f"POST /start answered {started.status}: {started.text[:300]}")
        except Unreachable as error:
            return self.fail(f"setup: {error}")
        self.started = True
        self.moved_at = time.monotonic()
        self.spawned.extend(self.people)

    def seated_already(self, seat: SeatInfo) -> bool:  # (a retried request that had worked)
        answer = self.get(f"/api/games/{self.record.id}")
        return answer.status == 200 and answer.json()["seats"][seat.seat]["bot"] == seat.bot

    def is_active(self) -> bool:
        answer = self.get(f"/api/games/{self.record.id}")
        return answer.status == 200 and answer.json()["status"] == "active"


def _endpoint(path: str) -> str:
    """"/api/games/<id>/state" -> "/state"; "/api/games" -> "/games"."""
    parts = path.split("?")[0].rstrip("/").split("/")
    return "/" + parts[-1] if len(parts) > 4 and parts[2] == "games" else "/" + "/".join(parts[2:])


class Viewer(Actor):
    """Someone at a game (a person with a seat, or a spectator), with an optional socket to the game."""

    socket_wanted = False

    def __init__(self, table: Table, seat: int | None, username: str, token: str, rng: random.Random, home: int) -> None:
        self.table, self.seat, self.username, self.token, self.rng = table, seat, username, token, rng
        self.http, self.recorder = table.http, table.recorder
        self.home = home
        self.conn: ClientConnection | None = None
        self.ws_url = ""
        self.cursor = -1  # the last seq of this connection's stream (hello, then pushes)
        self.seen = 0  # the highest seq this viewer has heard of
        self.connected_once = False
        self.reconnect_at = 0.0
        self.closed = False

    @property
    def game(self) -> str:
        return self.table.record.id

    def get(self, path: str, params: dict[str, Any] | None = None) -> Answer:
        answer = self.http.request("GET", f"/api/games/{self.game}{path}", home=self.home, token=self.token, params=params)
        self.home = answer.index
        self.recorder.receive(self.game, self.username, self.seat, f"GET {path}", answer.text, answer.status)
        return answer

    def heard(self, seq: int) -> None:
        self.seen = max(self.seen, seq)
        self.table.saw(seq)

    # the socket

    def open_socket(self) -> None:
        if self.socket_wanted:
            self.connect()

    def connect(self) -> bool:
        """(Re)connect, trying each URL from the next one on; read the hello; after a drop, `resync`."""
        urls = self.http.urls
        for attempt in range(len(urls)):
            index = (self.home + (1 if self.connected_once else 0) + attempt) % len(urls)
            base = urls[index].replace("http://", "ws://", 1).replace("https://", "wss://", 1)
            url = f"{base}/ws/games/{self.game}/?token={self.token}"
            try:
                conn = connect(url, legacy=True, open_timeout=10, close_timeout=2, max_size=2**22, proxy=None,
                               ping_interval=None)  # no keepalive thread: the server pings, the reader answers
            except InvalidStatus as error:
                self.recorder.count(f"ws handshake {error.response.status_code}")
                if error.response.status_code >= 500:
                    self.recorder.status(error.response.status_code, "WS", url.split("?")[0],
                                         error.response.body.decode(errors="replace") if error.response.body else "")
                continue
            except (OSError, InvalidHandshake, TimeoutError) as error:
                self.recorder.count(f"ws connect error {type(error).__name__}")
                continue
            self.conn, self.ws_url = conn, url.split("?")[0]
            self.home = index
            old_cursor, self.cursor = self.cursor, -1
            try:
                hello = self.receive(10)
            except (ConnectionClosed, TimeoutError) as error:
                self.dropped(error)
                continue
            if hello is None or hello.get("type") != "hello":
                self.recorder.anomaly(self.game, "socket", f"{self.username}: first message {str(hello)[:300]}")
                self.close_socket()
                continue
            if self.connected_once:
                self.recorder.count("ws reconnected")
                with contextlib.suppress(ConnectionClosed):
                    conn.send(json.dumps({"type": "resync", "after": max(0, old_cursor)}))
            self.connected_once = True
            return True
        self.reconnect_at = time.monotonic() + 0.5 + self.rng.random()
        return False

    def receive(self, timeout: float) -> dict[str, Any] | None:
        """The next message (None when nothing came within `timeout`); raises ConnectionClosed."""
        assert self.conn is not None
        try:
            text = self.conn.recv(timeout=timeout)
        except TimeoutError:
            return None
        if isinstance(text, bytes):
            text = text.decode()
        self.recorder.receive(self.game, self.username, self.seat, "ws", text)
        message: dict[str, Any] = json.loads(text)
        self.take(message)
        return message

    def take(self, message: dict[str, Any]) -> None:
        """Check the order of the stream (docs/API.md: pushes in seq order, no gap) and learn from the message."""
        kind = message.get("type")
        if kind == "hello":
            self.cursor = int(message["seq"])
            self.heard(self.cursor)
            if message.get("status") == "finished":
                self.table.saw_end()
        elif kind == "events":
            seqs = [int(e["seq"]) for e in message["events"]]
            if message.get("resync"):
                self.cursor = int(message["seq"])
            else:
                expected = list(range(self.cursor + 1, self.cursor + 1 + len(seqs)))
                if not seqs or seqs != expected or message["seq"] != seqs[-1]:
                    self.recorder.anomaly(self.game, "socket order",
                                          f"{self.username} at {self.cursor} got a push of {seqs} (seq {message['seq']})")
                self.cursor = max(self.cursor, int(message["seq"]))
            self.heard(int(message["seq"]))
            if any(e["type"] in ("game_ended", "game_scored") for e in message["events"]):
                self.table.saw_end()
            self.events(message["events"])
        elif kind == "error":
            status = int(message.get("status") or 0)
            if status >= 500:
                self.recorder.status(status, "WS", self.ws_url, json.dumps(message))
            else:
                self.recorder.anomaly(self.game, "socket error", f"{self.username}: {json.dumps(message)[:300]}")

    def events(self, events: list[dict[str, Any]]) -> None:
        pass

    def drain(self) -> None:
        """Read everything the socket has buffered, without waiting; reconnect if it dropped."""
        if self.conn is None:
            if time.monotonic() >= self.reconnect_at:
                self.connect()
            return
        try:
            while self.receive(0) is not None:
                pass
        except ConnectionClosed as error:
            self.dropped(error)

    def dropped(self, error: ConnectionClosed | TimeoutError) -> None:
        code = error.rcvd.code if isinstance(error, ConnectionClosed) and error.rcvd is not None else 1006
        self.recorder.count(f"ws closed {code}")
        self.close_socket()
        self.reconnect_at = time.monotonic() + 0.1 + 0.3 * self.rng.random()

    def close_socket(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def close(self) -> None:
        self.closed = True
        self.close_socket()


class Person(Viewer):
    """A scripted player: over HTTP (`mode="http"`) or the game's socket (`mode="socket"`)."""

    def __init__(self, table: Table, seat: int, username: str, token: str, mode: str, rng: random.Random, home: int) -> None:
        super().__init__(table, seat, username, token, rng, home)
        self.my_seat = seat
        self.mode = mode
        self.socket_wanted = mode == "socket"
        self.pending: tuple[int, dict[str, Any]] | None = None
        self.play_at = 0.0
        self.checked = -1  # the seq at which /legal-moves last said this seat had nothing to decide
        self.check_at = 0.0
        self.may_decide = True  # an event may have handed this seat the decision
        self.poll_wait = table.poll[0]
        self.state_seq = -1
        self.events_after = 0

    def step(self) -> float | None:
        if self.closed or self.table.done:
            return None
        if self.mode == "socket":
            self.drain()
        now = time.monotonic()
        if self.pending is not None:
            return self.play() if now >= self.play_at else self.play_at - now
        if self.table.ended:
            return 1.0  # the table waits for the score
        if self.mode == "http":
            return self.poll_http()
        if self.conn is None:
            return max(SOCKET_TICK, self.reconnect_at - now)
        if (self.may_decide and self.seen > self.checked) or now >= self.check_at:
            return self.ask_moves()
        return SOCKET_TICK

    def events(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            if event.get("seat") == self.my_seat or event["type"] == "game_started" or (
                event["type"] == "turn_ended" and event["data"].get("next_seat") == self.my_seat
            ):
                self.may_decide = True

    def take(self, message: dict[str, Any]) -> None:
        super().take(message)
        if message.get("type") in ("hello",) or message.get("resync"):
            self.may_decide = True

    def poll_http(self) -> float:
        answer = self.get("/state")
        if answer.status != 200:
            self.recorder.anomaly(self.game, "state", f"GET /state answered {answer.status}: {answer.text[:300]}")
            return self.table.poll[1]
        state = answer.json()
        seq = int(state["seq"])
        self.heard(seq)
        if state["status"] == "finished":
            self.table.saw_end()
            return 1.0
        changed = seq != self.state_seq
        self.state_seq = seq
        if changed and self.rng.random() < 0.5:  # a client following the game reads the new events
            events = self.get("/events", {"after": self.events_after})
            if events.status == 200:
                self.events_after = int(events.json()["seq"])
        if self.my_seat in state["view"].get("deciding_seats", []):
            self.poll_wait = self.table.poll[0]
            return self.ask_moves()
        low, high = self.table.poll
        self.poll_wait = low if changed else min(high, self.poll_wait * 1.5)
        return self.poll_wait

    def ask_moves(self) -> float:
        now = time.monotonic()
        self.check_at = now + SOCKET_CHECK_SECONDS
        self.may_decide = False
        answer = self.get("/legal-moves")
        if answer.status != 200:
            self.recorder.anomaly(self.game, "legal-moves", f"answered {answer.status}: {answer.text[:300]}")
            return 1.0
        legal = answer.json()
        seq = int(legal["seq"])
        self.heard(seq)
        if not legal["moves"]:
            self.checked = max(self.checked, seq)
            return SOCKET_TICK if self.mode == "socket" else self.poll_wait
        self.pending = (seq, choose(legal["moves"], self.rng))
        low, high = self.table.think
        delay = self.rng.uniform(low, high) if high > 0 else 0.0
        if delay <= 0:
            return self.play()
        self.play_at = now + delay
        return delay

    def play(self) -> float:
        assert self.pending is not None
        expected, move = self.pending
        self.pending = None
        if self.mode == "http":
            return self.play_http(expected, move)
        return self.play_socket(expected, move)

    def acknowledged(self, path: str, expected: int, seq: int, move: dict[str, Any]) -> None:
        self.recorder.ack(Ack(self.game, self.my_seat, self.username, path, expected, seq, move, time.time()))
        self.heard(seq)
        self.checked = -1
        self.may_decide = True

    def refused(self, status: int, error: dict[str, Any], expected: int, move: dict[str, Any], path: str) -> float:
        if status == 409:  # stale_seq (someone moved first), or the game ended meanwhile: read again
            self.recorder.count(f"{path} 409 {error.get('code')}")
            self.may_decide = True
            return 0.0
        self.recorder.anomaly(self.game, "move refused",
                              f"{path}: seat {self.my_seat} {json.dumps(move)} at {expected} (from /legal-moves at "
                              f"that seq): {status} {json.dumps(error)[:300]}")
        return 1.0

    def play_http(self, expected: int, move: dict[str, Any]) -> float:
        body = {"expected_seq": expected, "move": move}
        answer = self.http.request("POST", f"/api/games/{self.game}/moves", home=self.home, token=self.token, body=body,
                                   kind="http")
        self.home = answer.index
        self.recorder.receive(self.game, self.username, self.seat, "POST /moves", answer.text, answer.status)
        if answer.status == 201:
            result = answer.json()
            self.acknowledged("http", expected, int(result["seq"]), move)
            if any(e["type"] == "game_ended" for e in result["events"]):
                self.table.saw_end()
            return 0.0
        try:
            error = answer.json()
        except ValueError:
            error = {"body": answer.text[:300]}
        return self.refused(answer.status, error if isinstance(error, dict) else {}, expected, move, "http")

    def play_socket(self, expected: int, move: dict[str, Any]) -> float:
        if self.conn is None:  # dropped while thinking: read again once reconnected
            self.may_decide = True
            return SOCKET_TICK
        started = time.monotonic()
        result: dict[str, Any] | None = None
        try:
            self.conn.send(json.dumps({"type": "move", "expected_seq": expected, "move": move}))
            while result is None and time.monotonic() - started < MOVE_RESULT_SECONDS:
                message = self.receive(MOVE_RESULT_SECONDS - (time.monotonic() - started))
                if message is not None and message.get("type") == "move_result":
                    result = message
        except ConnectionClosed as closed:  # the move may or may not have been played: read again after reconnecting
            self.dropped(closed)
            self.may_decide = True
            return 0.0
        if result is None:
            self.recorder.anomaly(self.game, "socket", f"{self.username}: no move_result in {MOVE_RESULT_SECONDS} s")
            self.close_socket()
            self.may_decide = True
            return 0.0
        self.recorder.latency("socket", time.monotonic() - started)
        if result.get("ok"):
            self.recorder.count("ws move ok")
            self.acknowledged("socket", expected, int(result["seq"]), move)
            return 0.0
        status = int(result.get("status") or 0)
        if status >= 500:
            self.recorder.status(status, "WS move", self.ws_url, json.dumps(result))
            return 1.0
        return self.refused(status, result.get("error") or {}, expected, move, "socket")


class Spectator(Viewer):
    """Someone without a seat who watches the game's socket and now and then reads /state and /events."""

    socket_wanted = True

    def __init__(self, table: Table, username: str, token: str, rng: random.Random, home: int) -> None:
        super().__init__(table, None, username, token, rng, home)
        self.read_at = 0.0
        self.events_after = 0

    def step(self) -> float | None:
        if self.closed or self.table.done:
            return None
        self.drain()
        now = time.monotonic()
        if now >= self.read_at and not self.table.ended:
            self.read_at = now + 2 + 3 * self.rng.random()
            if self.get("/state").status == 200 and self.rng.random() < 0.5:
                answer = self.get("/events", {"after": self.events_after})
                if answer.status == 200:
                    self.events_after = int(answer.json()["seq"])
        return 4 * SOCKET_TICK


# ---------------------------------------------------------------------------------------------------------------
# Driving


class Driver(threading.Thread):
    """One thread: an event loop over its tables and their people (see the module's docstring)."""

    def __init__(self, index: int, tables: list[Table], http: Http, stopped: Callable[[], bool],
                 wait: Callable[[float], None]) -> None:
        super().__init__(name=f"traffic-{index}", daemon=True)
        self.tables, self.http, self.stopped, self.wait = tables, http, stopped, wait
        self.order = itertools.count()

    def run(self) -> None:
        heap: list[tuple[float, int, Actor]] = []
        start = time.monotonic()
        for n, table in enumerate(self.tables):
            heapq.heappush(heap, (start + 0.02 * n, next(self.order), table))
        live: list[Actor] = list(self.tables)
        try:
            while heap and not self.stopped():
                at, _, actor = heap[0]
                now = time.monotonic()
                if at > now:
                    self.wait(min(at - now, 0.25))
                    continue
                heapq.heappop(heap)
                delay = self.run_step(actor)
                if isinstance(actor, Table) and actor.spawned:
                    for person in actor.spawned:
                        heapq.heappush(heap, (time.monotonic(), next(self.order), person))
                        live.append(person)
                    actor.spawned = []
                if delay is None:
                    actor.close()
                else:
                    heapq.heappush(heap, (time.monotonic() + max(0.0, delay), next(self.order), actor))
        finally:
            for actor in live:
                with contextlib.suppress(Exception):
                    actor.close()
            self.http.close()

    def run_step(self, actor: Actor) -> float | None:
        table = actor if isinstance(actor, Table) else getattr(actor, "table", None)
        game = table.record.id if isinstance(table, Table) else None
        try:
            delay = actor.step()
            actor.failures = 0
            return delay
        except Unreachable as error:
            if self.stopped():
                return None
            if isinstance(table, Table):
                table.fail(f"unreachable: {error}")
            return None
        except Exception as error:  # a bug here, or an answer the contract does not allow: say so, carry on
            actor.failures += 1
            where = "".join(traceback.format_exception_only(type(error), error)).strip()
            self.http.recorder.anomaly(game, "client step failed", f"{type(actor).__name__}: {where}\n"
                                       + "".join(traceback.format_tb(error.__traceback__)[-3:]))
            if actor.failures >= 20 and isinstance(table, Table):
                table.fail(f"{type(actor).__name__} failed 20 times in a row: {where}")
                return None
            return 1.0


def play_games(
    urls: list[str],
    games: int,
    *,
    seed: int,
    think: tuple[float, float] = (0.0, 0.0),
    socket_share: float = 0.5,
    bot_levels: Sequence[str] = ("greedy", "strong"),
    strong_share: float = 0.1,
    players: tuple[int, int] = (2, 5),
    recorder: Recorder,
    stop_event: threading.Event | None = None,
    deadline: float | None = None,
    human_share: float = 0.5,
    spectator_share: float = 0.25,
    maps: Sequence[str] = ("europe", "usa"),
    threads: int | None = None,
    poll: tuple[float, float] = (0.25, 2.0),
    users: int | list[tuple[str, str]] = 12,
    stall_seconds: float = 300.0,
    score_seconds: float = 300.0,
) -> list[GameRecord]:
    """Create `games` ranked games round-robin over `urls` (base URLs, "http://127.0.0.1:8001") and play them all
    at once to the end; one GameRecord a game, in order. Returns when every game is done (finished and scored) or
    given up (stalled `stall_seconds`, or not scored `score_seconds` after its end; `record.problem` says why), or
    once `stop_event` is set or `deadline` (an instant of time.monotonic()) has passed.

    Each game: `players` = (fewest, most) seats; seat 0 is its creator, a person; each other seat a person with
    probability `human_share`, else a bot. A person plays over the game's socket with probability `socket_share`,
    else over HTTP; between deciding and moving it sleeps uniform(`think`). Bots' levels come from `bot_levels`;
    "strong" (when listed) in about `strong_share` of the games only, one strong bot there (a game drawn strong
    without a bot seat gets its last seat a strong bot). A spectator watches `spectator_share` of the games. Maps:
    drawn from `maps`. People come from a pool of `users` users registered first (or given: (username, token)
    pairs), reused across games; it needs one more than the most seats (for a spectator).

    `threads`: driver threads (default: min(games, 32)); `poll`: an HTTP player's /state poll interval, from the
    first (after a change) backing off to the second (while nothing changes). Everything received goes to
    `recorder`. Deterministic in `seed` except for what the servers and timing decide."""
    assert urls and games >= 0 and players[0] >= 2 and players[1] <= 5 and players[0] <= players[1]
    rng = random.Random(seed)
    stop = stop_event or threading.Event()

    def stopped() -> bool:
        return stop.is_set() or (deadline is not None and time.monotonic() >= deadline)

    def pause(seconds: float) -> None:
        stop.wait(seconds)

    prefix = f"t{seed % 10000}{secrets.token_hex(2)}"
    pool = users if isinstance(users, list) else register_users(urls, users, recorder, prefix=prefix)
    assert len(pool) >= players[1] + 1, "the user pool needs one more user than the most seats"
    tokens = dict(pool)
    names = [name for name, _ in pool]
    levels = list(bot_levels) or ["greedy"]
    weak_levels = [level for level in levels if level != "strong"] or levels
    records = []
    for g in range(games):
        count = rng.randint(*players)
        map_name = rng.choice(list(maps))
        strong = "strong" in levels and rng.random() < strong_share
        humans = [0] + [s for s in range(1, count) if rng.random() < human_share]
        bots = [s for s in range(count) if s not in humans]
        if strong and not bots:
            humans.remove(count - 1)
            bots.append(count - 1)
        watched = rng.random() < spectator_share
        chosen = rng.sample(names, len(humans) + (1 if watched else 0))
        strong_seat = rng.choice(bots) if strong and bots else None
        seats = []
        for s in range(count):
            if s in humans:
                mode = "socket" if rng.random() < socket_share else "http"
                seats.append(SeatInfo(s, username=chosen[humans.index(s)], mode=mode))
            else:
                seats.append(SeatInfo(s, bot="strong" if s == strong_seat else rng.choice(weak_levels)))
        spectator = chosen[-1] if watched else None
        seated = {s.username for s in seats if s.username} | ({spectator} if spectator else set())
        records.append(GameRecord(g, map_name, count, urls[g % len(urls)], seats, {u: tokens[u] for u in seated},
                                  spectator=spectator, strong=strong_seat is not None))
    thread_count = max(1, min(games, threads or 32))
    drivers = []
    for t in range(thread_count):
        http = Http(urls, recorder, stopped, random.Random(f"{seed}-http-{t}"))
        tables = [
            Table(record, http, recorder, tokens, think=think, poll=poll, seed=f"{seed}-{record.index}",
                  stall_seconds=stall_seconds, score_seconds=score_seconds)
            for record in records[t::thread_count]
        ]
        drivers.append(Driver(t, tables, http, stopped, pause))
    for driver in drivers:
        driver.start()
    for driver in drivers:
        while driver.is_alive():
            driver.join(0.5)
    return records


# ---------------------------------------------------------------------------------------------------------------
# Checking


@dataclass
class Board:
    tickets: frozenset[str]
    names: re.Pattern[str] | None  # any ticket's name (two city names and an en dash, either way round)
    by_name: dict[str, str]


_boards: dict[tuple[str, str], Board] = {}


def board(url: str, map_name: str) -> Board:
    """The map's tickets (from the server's /maps/{map}.json, else games/engine/maps)."""
    key = (url, map_name)
    if key not in _boards:
        data: dict[str, Any] | None = None
        try:
            answer = httpx.get(f"{url.rstrip('/')}/maps/{map_name}.json", timeout=10, trust_env=False)
            if answer.status_code == 200:
                data = answer.json()
        except (httpx.HTTPError, ValueError):
            data = None
        if data is None:
            path = ROOT / "games" / "engine" / "maps" / f"{map_name}.json"
            if path.exists():
                data = json.loads(path.read_text())
        if data is None:
            raise RuntimeError(f"no map {map_name}")
        cities = {c["id"]: c["name"] for c in data["cities"]}
        by_name = {}
        for t in data["tickets"]:
            a, b = cities[t["a"]], cities[t["b"]]
            by_name[f"{a}\u2013{b}"] = by_name[f"{b}\u2013{a}"] = t["id"]
        names = "|".join(re.escape(n) for n in sorted(by_name, key=len, reverse=True))
        pattern = re.compile(rf"(?<![A-Za-z])(?:{names})(?![A-Za-z])") if names else None
        _boards[key] = Board(frozenset(t["id"] for t in data["tickets"]), pattern, by_name)
    return _boards[key]


class Truth:
    """What the complete (audit) log says, by seq: who was dealt, kept and offered which tickets, when it ended."""

    def __init__(self, lines: list[dict[str, Any]]) -> None:
        self.lines = {int(line["seq"]): line for line in lines}
        self.last = max(self.lines, default=0)
        ended = [int(line["seq"]) for line in lines if line["type"] == "game_ended"]
        self.ended = ended[0] if ended else self.last + 1  # the first seq after which everything is public
        self.ended_at = _timestamp(self.lines[self.ended]["at"]) if ended else math.inf
        self.dealt: dict[int, list[tuple[int, tuple[str, ...]]]] = defaultdict(list)
        self.kept: dict[int, list[tuple[int, tuple[str, ...]]]] = defaultdict(list)
        for line in lines:
            data = line["data"]
            if line["type"] == "tickets_dealt":
                self.dealt[int(line["seat"])].append((int(line["seq"]), tuple(data["tickets"])))
            elif line["type"] == "tickets_kept":
                self.kept[int(line["seat"])].append((int(line["seq"]), tuple(data["kept"])))

    def known(self, seat: int | None, upto: int) -> set[str]:
        """The tickets ever dealt to `seat` up to seq `upto` (a spectator knows none)."""
        if seat is None:
            return set()
        return {t for seq, tickets in self.dealt.get(seat, []) if seq <= upto for t in tickets}

    def held(self, seat: int, at: int) -> set[str]:
        return {t for seq, tickets in self.kept.get(seat, []) if seq <= at for t in tickets}

    def held_count(self, seat: int, at: int) -> int:
        return sum(len(tickets) for seq, tickets in self.kept.get(seat, []) if seq <= at)

    def offered(self, seat: int, at: int) -> set[str]:
        dealt = [(seq, tickets) for seq, tickets in self.dealt.get(seat, []) if seq <= at]
        if not dealt:
            return set()
        last_dealt, tickets = dealt[-1]
        if any(last_dealt < seq <= at for seq, _ in self.kept.get(seat, [])):
            return set()
        return set(tickets)


def _timestamp(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def walk(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every (path, value) inside a JSON value, dict keys included (their paths end with "#key")."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}#key", key
            yield from walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from walk(item, f"{path}[{i}]")


def _hidden_fields(event: dict[str, Any], viewer: int | None) -> tuple[str, ...]:
    """The data fields of `event` that `viewer` may not see while the game runs (docs/RULES.md X-SEC-1)."""
    kind, data = event["type"], event["data"]
    mine = event.get("seat") is not None and event.get("seat") == viewer
    if kind == "deck_shuffled":
        return ("cards",)
    if kind == "tickets_shuffled":
        return ("tickets", "long_tickets")
    if kind == "cards_dealt":
        return () if mine else ("cards",)
    if kind == "tickets_dealt":
        return () if mine else ("tickets",)
    if kind == "tickets_kept":
        return () if mine else ("kept", "returned")
    if kind == "card_drawn" and data.get("source") == "deck":
        return () if mine else ("card",)
    return ()


class Findings:
    """Problems found, grouped by (game, kind) with a count and the first few examples; and what was checked."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str], list[str]] = {}
        self.counts: Counter[tuple[str, str]] = Counter()
        self.checked: Counter[str] = Counter()

    def add(self, game: str, kind: str, detail: str) -> None:
        key = (game, kind)
        self.counts[key] += 1
        examples = self.found.setdefault(key, [])
        if len(examples) < 3:
            examples.append(detail[:600])

    def lines(self) -> list[str]:
        return [
            f"game {game}: {kind} ({self.counts[(game, kind)]}x): " + " | ".join(examples)
            for (game, kind), examples in self.found.items()
        ]


def check_games(url: str, records: Iterable[GameRecord], recorder: Recorder, *,
                tolerate_statuses: Iterable[int] = (), stats: dict[str, int] | None = None) -> list[str]:
    """Every problem found in `records`' games and in what `recorder` holds (empty: all good).

    - every 5xx recorded (but those of `tolerate_statuses`: e.g. (503,) in a run that stops the database), every
      anomaly (a legal move refused, a socket push out of order, a client step that failed, a game that did not
      finish);
    - each finished game: /verify says ok with no problems and the audit's length; /audit (JSON Lines) has seqs
      1..N, each line's prev_hash the previous line's hash, exactly one game_ended and after it exactly one
      game_scored and nothing else; the record's final seq is N;
    - every move a client was told succeeded: the log has its seqs, the first event with a seat after its
      expected seq is the mover's and is the move's own event (a claim's route, a draw's source, the tickets
      kept...), and no two acknowledged moves share a seq;
    - every event any client received (HTTP or socket) is the log's event at that seq (type, seat, time, reason,
      commitment, and every data field it shows);
    - leaks, in everything a person at seat S (or a spectator) received about the game before it ended (an answer
      is "before" when its seq, or any event's in it, is below the game_ended event's seq; one without a seq when
      received before game_ended's time): no key of HIDDEN_KEYS anywhere; no ticket id but those dealt to S up to
      that seq; no list of 6+ card colours (a pile order); no ticket named (as "Berlin\u2013Roma") but S's own; in each
      event, the fields S may not see are absent or null (and a commitment is there instead): the deck's and the
      ticket piles' shuffles, other seats' dealt cards and tickets, kept and returned tickets and blind draws; a
      bot's `reason` reaches no other seat or spectator before the end (it names the bot's tickets: "LEAK bot
      reason", and "... names a ticket" when it does), and everyone after the end exactly as logged; and a view
      (/state, hello) is S's own: `your_seat`, `tickets` and `offered_tickets` as the log says at that seq, each
      seat's public ticket count, public values plain.

    `stats`, when given, is filled with how much was checked (games, answers before and after the end, events
    compared with the log, hidden fields found redacted by event type, views, acknowledged moves), so that a
    caller can tell a clean result from a vacuous one.
    """
    tolerated = set(tolerate_statuses)
    problems: list[str] = []
    received, acks, server_errors, anomalies = recorder.snapshot()
    for error in server_errors:
        if error.status not in tolerated:
            problems.append(f"{error.status} from {error.method} {error.url}: {error.body[:500]}")
    for anomaly in anomalies:
        problems.append(f"anomaly {anomaly.kind} (game {anomaly.game}): {anomaly.detail}")
    if not recorder.keep_bodies:
        problems.append("the recorder kept no bodies: no leak scan, no event comparison")
    items_by_game: dict[str, list[Received]] = defaultdict(list)
    for item in received:
        items_by_game[item.game].append(item)
    acks_by_game: dict[str, list[Ack]] = defaultdict(list)
    for ack in acks:
        acks_by_game[ack.game].append(ack)
    findings = Findings()
    http = Http([url], recorder, give_up=60)
    try:
        for record in records:
            if not record.id:
                problems.append(f"game #{record.index} was never created: {record.problem}")
                continue
            if not record.finished:
                problems.append(f"game {record.id}: not finished ({record.problem}): its log is not checked")
                continue
            lines = _check_log(http, record, findings)
            if lines is None:
                continue
            findings.checked["games"] += 1
            truth = Truth(lines)
            _check_acks(record, truth, acks_by_game.get(record.id, []), findings)
            the_board = board(url, record.map)
            for item in items_by_game.get(record.id, []):
                _check_item(record, truth, the_board, item, findings)
    finally:
        http.close()
    if stats is not None:
        stats.update(sorted(findings.checked.items()))
    return problems + findings.lines()


def _check_log(http: Http, record: GameRecord, findings: Findings) -> list[dict[str, Any]] | None:
    game = record.id
    answer = http.request("GET", f"/api/games/{game}/audit")
    if answer.status != 200:
        findings.add(game, "audit", f"GET /audit answered {answer.status}: {answer.text[:300]}")
        return None
    try:
        lines = [json.loads(line) for line in answer.text.splitlines() if line.strip()]
    except ValueError as error:
        findings.add(game, "audit", f"not JSON Lines: {error}")
        return None
    seqs = [line.get("seq") for line in lines]
    if seqs != list(range(1, len(lines) + 1)):
        duplicates = sorted(s for s, n in Counter(seqs).items() if n > 1)
        findings.add(game, "audit seqs", f"not 1..{len(lines)}: duplicates {duplicates[:10]}, first seqs {seqs[:5]}...")
    for before, line in itertools.pairwise(lines):
        if line.get("prev_hash") != before.get("hash"):
            findings.add(game, "audit chain", f"seq {line.get('seq')}: prev_hash is not seq {before.get('seq')}'s hash")
    types = [line.get("type") for line in lines]
    if types.count("game_ended") != 1 or types.count("game_scored") != 1:
        findings.add(game, "audit end", f"{types.count('game_ended')} game_ended, {types.count('game_scored')} game_scored")
    elif types[types.index("game_ended") + 1:] != ["seeds_revealed", "game_scored"]:  # the server seed, then the score
        findings.add(game, "audit end", f"after game_ended: {types[types.index('game_ended') + 1:][:10]}")
    if record.final_seq != len(lines):
        findings.add(game, "final seq", f"the summary said {record.final_seq} once scored; the audit has {len(lines)}")
    verify = http.request("GET", f"/api/games/{game}/verify")
    if verify.status != 200:
        findings.add(game, "verify", f"answered {verify.status}: {verify.text[:300]}")
    else:
        report = verify.json()
        if report.get("ok") is not True or report.get("problems"):
            findings.add(game, "verify", json.dumps(report)[:600])
        if report.get("events") != len(lines):
            findings.add(game, "verify", f"{report.get('events')} events verified, the audit has {len(lines)}")
        if lines and report.get("head_hash") != lines[-1].get("hash"):
            findings.add(game, "verify", "head_hash is not the last audit line's hash")
        if report.get("fair") is not True:  # every game here is provably fair (X-RNG-2)
            findings.add(game, "verify", f"fair is {report.get('fair')!r}, not true: {report.get('problems')}")
    return lines


def _check_acks(record: GameRecord, truth: Truth, acks: list[Ack], findings: Findings) -> None:
    game = record.id
    taken: dict[int, Ack] = {}
    findings.checked["acknowledged moves"] += len(acks)
    for ack in acks:
        where = f"{ack.path} ack of seat {ack.seat}'s {json.dumps(ack.move)} at {ack.expected_seq} -> {ack.seq}"
        for seq in range(ack.expected_seq + 1, ack.seq + 1):
            if seq in taken:
                other = taken[seq]
                findings.add(game, "ack twice", f"{where}: seq {seq} also acknowledged to {other.username} ({other.path})")
            taken[seq] = ack
        if ack.seq <= ack.expected_seq or ack.seq > truth.last:
            findings.add(game, "ack missing", f"{where}: the log ends at {truth.last}")
            continue
        span = [truth.lines[s] for s in range(ack.expected_seq + 1, ack.seq + 1)]
        own = next((line for line in span if line.get("seat") is not None), None)
        if own is None or own["seat"] != ack.seat or own["type"] not in MOVE_EVENTS.get(ack.move["type"], ()):
            shown = None if own is None else (own["seq"], own["type"], own["seat"])
            findings.add(game, "ack not in log", f"{where}: the log's first seated event there is {shown}")
            continue
        problem = _move_matches(ack.move, own["data"])
        if problem:
            findings.add(game, "ack not in log", f"{where}: seq {own['seq']} {problem}")


def _move_matches(move: dict[str, Any], data: dict[str, Any]) -> str | None:
    kind = move["type"]
    if kind == "draw_card" and (data.get("source") != move.get("source") or (
            move.get("source") == "market" and data.get("index") != move.get("index"))):
        return f"is a draw from {data.get('source')} {data.get('index')}"
    if kind == "claim_route" and data.get("route") != move.get("route"):
        return f"claims {data.get('route')}"
    if kind == "keep_tickets" and sorted(data.get("kept") or []) != sorted(move.get("tickets") or []):
        return f"keeps {data.get('kept')}"
    if kind == "build_station" and data.get("city") != move.get("city"):
        return f"builds in {data.get('city')}"
    return None


def _seq_of(body: Any) -> int | None:
    """The latest seq an answer reflects: its own `seq` or any of its events' (None: it names none)."""
    if not isinstance(body, dict):
        return None
    seqs = [body["seq"]] if isinstance(body.get("seq"), int) else []
    events = body.get("events")
    if isinstance(events, list):
        seqs += [e["seq"] for e in events if isinstance(e, dict) and isinstance(e.get("seq"), int)]
    return max(seqs) if seqs else None


def _check_item(record: GameRecord, truth: Truth, the_board: Board, item: Received, findings: Findings) -> None:
    game = record.id
    try:
        body = item.body()
    except ValueError:
        if item.status is None or item.status < 500:
            findings.add(game, "not JSON", f"{item.source} ({item.status}) to {item.username}: {item.text()[:200]}")
        return
    viewer = item.seat
    who = f"{item.source} to {item.username} (seat {viewer})"
    seq = _seq_of(body)
    before_end = seq < truth.ended if seq is not None else item.at < truth.ended_at
    events = body.get("events") if isinstance(body, dict) else None
    if isinstance(events, list):
        for event in events:
            _check_event(game, truth, the_board, viewer, event, before_end, who, findings)
    findings.checked["answers before the end" if before_end else "answers after the end"] += 1
    if not before_end:
        return
    upto = seq if seq is not None else truth.ended - 1
    known = truth.known(viewer, upto)
    for path, value in walk(body):
        if path.endswith("#key"):
            if value in HIDDEN_KEYS:
                findings.add(game, "LEAK hidden key", f"{who} at seq {seq}: {path} before the end")
        elif isinstance(value, str):
            if value in the_board.tickets and value not in known:
                findings.add(game, "LEAK ticket id", f"{who} at seq {seq}: ticket {value} at {path}, never dealt to it")
            elif the_board.names is not None and not path.endswith(".reason") and len(value) > 4:
                for name in the_board.names.findall(value):
                    if the_board.by_name[name] not in known:
                        findings.add(game, "LEAK ticket name", f"{who} at seq {seq}: {path} = {value[:200]!r}")
        elif isinstance(value, list) and len(value) >= 6 and all(isinstance(v, str) and v in CARD_KINDS for v in value):
            findings.add(game, "LEAK pile order", f"{who} at seq {seq}: {path} holds {len(value)} cards in order")
    view = None
    if isinstance(body, dict) and isinstance(body.get("view"), dict) and isinstance(body.get("seq"), int):
        view = body["view"]
    elif isinstance(body, dict) and body.get("type") == "hello" and isinstance(body.get("state"), dict):
        view = body["state"]
    if view is not None and seq is not None:
        _check_view(game, truth, viewer, view, seq, who, findings)


def _check_event(game: str, truth: Truth, the_board: Board, viewer: int | None, event: dict[str, Any], before_end: bool,
                 who: str, findings: Findings) -> None:
    seq = event.get("seq")
    line = truth.lines.get(seq) if isinstance(seq, int) else None
    where = f"{who}: {event.get('type')} #{seq}"
    if line is None:
        findings.add(game, "event not in log", where)
        return
    for key in ("type", "seat", "at"):
        if event.get(key) != line.get(key):
            findings.add(game, "event differs from log", f"{where}: {key} {event.get(key)!r}, the log {line.get(key)!r}")
    # a bot's reason names its tickets: before the end only its own seat's viewer reads it (X-SEC-1)
    own_seat = viewer is not None and viewer == line.get("seat")
    expected_reason = line.get("reason") if own_seat or not before_end else None
    if event.get("reason") != expected_reason:
        kind = "LEAK bot reason" if expected_reason is None else "event differs from log"
        findings.add(game, kind, f"{where}: reason {event.get('reason')!r} to seat {viewer}, log {line.get('reason')!r}")
    data, truth_data = event.get("data") or {}, line["data"]
    hidden = _hidden_fields(line, viewer) if before_end else ()
    findings.checked["events compared"] += 1
    for name in hidden:
        if data.get(name) is None and truth_data.get(name) is not None:
            findings.checked[f"redacted {line['type']}.{name}"] += 1
    for key, value in data.items():
        if key == "commitment":
            if value != (line.get("commitment") or None):
                findings.add(game, "event differs from log", f"{where}: commitment is not the log's")
            continue
        if value is None:
            if truth_data.get(key) is not None and key not in hidden:
                findings.add(game, "over-redacted", f"{where}: {key} hidden from seat {viewer}")
        elif key in hidden:
            findings.add(game, "LEAK event field", f"{where}: shows {key} to seat {viewer} before the end")
        elif _plain(value) != _plain(truth_data.get(key)):
            shown, logged = str(value)[:100], str(truth_data.get(key))[:100]
            findings.add(game, "event differs from log", f"{where}: {key} {shown}, the log {logged}")
    if hidden and not line.get("commitment"):
        findings.add(game, "no commitment", f"{where}: hides {hidden} but the log commits to nothing")
    if hidden and data.get("commitment") != line.get("commitment"):
        findings.add(game, "no commitment", f"{where}: hides {hidden} without the commitment")
    reason = event.get("reason")
    if before_end and isinstance(reason, str) and the_board.names is not None and event.get("seat") != viewer:
        named = the_board.names.findall(reason)
        if named:
            findings.add(game, "LEAK bot reason names a ticket",
                         f"{where} (seat {event.get('seat')}) tells seat {viewer}: {reason!r} -> "
                         f"{[the_board.by_name[n] for n in named]}")


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True))


def _check_view(game: str, truth: Truth, viewer: int | None, view: dict[str, Any], seq: int, who: str,
                findings: Findings) -> None:
    where = f"{who}: view at seq {seq}"
    findings.checked["views"] += 1
    if view.get("your_seat") != viewer:
        findings.add(game, "LEAK someone else's view", f"{where}: your_seat {view.get('your_seat')}")
        return
    if viewer is None:
        if view.get("hand") or view.get("tickets") or view.get("offered_tickets"):
            findings.add(game, "LEAK spectator view", f"{where}: hand {view.get('hand')} tickets {view.get('tickets')} "
                         f"offered {view.get('offered_tickets')}")
    else:
        if set(view.get("tickets") or []) != truth.held(viewer, seq):
            findings.add(game, "view differs from log", f"{where}: tickets {view.get('tickets')}, the log "
                         f"{sorted(truth.held(viewer, seq))}")
        if "offered_tickets" in view and set(view.get("offered_tickets") or []) != truth.offered(viewer, seq):
            findings.add(game, "view differs from log", f"{where}: offered {view.get('offered_tickets')}, the log "
                         f"{sorted(truth.offered(viewer, seq))}")
    for public in view.get("players") or []:
        if not isinstance(public, dict):
            continue
        if not all(isinstance(v, (int, bool, type(None))) for v in public.values()):
            findings.add(game, "LEAK public player", f"{where}: {json.dumps(public)[:300]}")
        seat = public.get("seat")
        if isinstance(seat, int) and public.get("tickets") != truth.held_count(seat, seq):
            findings.add(game, "view differs from log", f"{where}: seat {seat} holds {public.get('tickets')} tickets, "
                         f"the log {truth.held_count(seat, seq)}")


# ---------------------------------------------------------------------------------------------------------------
# Figures


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def summary(recorder: Recorder) -> dict[str, Any]:
    """Figures: moves by path, latency p50/p99/max in ms by path, HTTP statuses, 5xx count, counters."""
    received, acks, server_errors, anomalies = recorder.snapshot()
    with recorder._lock:
        latencies = {path: list(values) for path, values in recorder.latencies.items()}
        statuses = dict(sorted(recorder.statuses.items()))
        counters = dict(sorted(recorder.counters.items()))
    seconds = time.monotonic() - recorder.started

    def ms(value: float | None) -> float | None:
        return None if value is None else round(1000 * value, 1)

    moves = Counter(ack.path for ack in acks)
    return {
        "seconds": round(seconds, 1),
        "moves": dict(moves),
        "moves_per_s": round(sum(moves.values()) / seconds, 1) if seconds > 0 else None,
        "latency_ms": {
            path: {"n": len(values), "p50": ms(_percentile(values, 0.5)), "p99": ms(_percentile(values, 0.99)),
                   "max": ms(max(values) if values else None)}
            for path, values in latencies.items()
        },
        "statuses": statuses,
        "5xx": len(server_errors),
        "anomalies": len(anomalies),
        "received": len(received),
        "counters": counters,
    }
