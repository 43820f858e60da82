"""A game's table as an actor of `bench.traffic.play`: it creates its game, seats everyone (people and bots),
starts it, then waits for its end and its score (and notices a stall)."""

from __future__ import annotations

import random
import time
from typing import Any

from bench.traffic.actor import Actor
from bench.traffic.client import Answer, Http, Unreachable
from bench.traffic.people import Person, Spectator
from bench.traffic.recorder import Recorder
from bench.traffic.records import GameRecord, SeatInfo
from bench.traffic.viewer import Viewer


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
