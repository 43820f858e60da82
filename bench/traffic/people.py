"""The people `bench.traffic.play` seats: `Person`, a scripted player over HTTP or the game's socket, who plays a
random legal move (`choose`); and `Spectator`, who watches without a seat."""

from __future__ import annotations

import json
import random
import time
from typing import Any

from websockets.exceptions import ConnectionClosed

from bench.traffic.recorder import Ack
from bench.traffic.seating import Seating
from bench.traffic.viewer import Viewer

SOCKET_TICK = 0.1  # how often an idle socket player looks at what its socket buffered
SOCKET_CHECK_SECONDS = 5.0  # a socket player asks /legal-moves at least this often, whatever it heard
MOVE_RESULT_SECONDS = 30.0


def choose(moves: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A random legal move, leaning towards claiming routes so that games end sooner (the server tests' players too)."""
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



class Person(Viewer):
    """A scripted player: over HTTP (`mode="http"`) or the game's socket (`mode="socket"`)."""

    def __init__(
        self, table: Seating, seat: int, username: str, token: str, mode: str, rng: random.Random, home: int
    ) -> None:
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

    def __init__(self, table: Seating, username: str, token: str, rng: random.Random, home: int) -> None:
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
