"""Someone at a game (a person with a seat, or a spectator) as an actor of `bench.traffic.play`: reads over HTTP,
and the game's socket: (re)connecting, the stream's order (docs/API.md: pushes in seq order, no gap), resync."""

from __future__ import annotations

import contextlib
import json
import random
import time
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection

from bench.traffic.actor import Actor
from bench.traffic.client import Answer, connect_socket, game_socket_url
from bench.traffic.seating import Seating


def unavailable(message: dict[str, Any]) -> bool:
    """docs/API.md: a socket opened while the database or Redis is down is told `unavailable` (HTTP's 503), then
    closed with 1013; the viewer records it as a 503 and connects again later."""
    error = message.get("error")
    return message.get("type") == "error" and isinstance(error, dict) and error.get("code") == "unavailable"


class Viewer(Actor):
    """Someone at a game (a person with a seat, or a spectator), with an optional socket to the game."""

    socket_wanted = False

    def __init__(self, table: Seating, seat: int | None, username: str, token: str, rng: random.Random, home: int) -> None:
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
            url = game_socket_url(urls[index], self.game, self.token)
            try:
                conn = connect_socket(url)
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
            if hello is not None and unavailable(hello):  # the contract's answer while Redis or the database is down
                self.close_socket()
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
            status = 503 if unavailable(message) else int(message.get("status") or 0)
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
