"""Helpers for the server integration tests: users, games and scripted clients that play through the HTTP API."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rest_framework.test import APIClient

from bench.random_moves import random_engine_move
from bench.traffic.people import choose

PASSWORD = "correct-horse-9"
API = "/api"
T = TypeVar("T")


def body(response: Any) -> Any:
    """The JSON body of a response (fails loudly if it is not JSON)."""
    assert response["Content-Type"].startswith("application/json"), (response.status_code, response.content[:300])
    return json.loads(response.content)


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    """The response is the API's JSON error with this status and code."""
    data = body(response)
    assert response.status_code == status, (response.status_code, data)
    assert isinstance(data, dict), data
    assert data.get("code") == code, data
    assert isinstance(data.get("detail"), str) and data["detail"], data
    return data


def register(username: str, password: str = PASSWORD) -> APIClient:
    """A client authenticated with the token of a newly registered user."""
    client = APIClient()
    response = client.post(f"{API}/auth/register", {"username": username, "password": password}, format="json")
    assert response.status_code == 201, response.content
    token = body(response)["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    client.username = username  # type: ignore[attr-defined]
    client.token = token  # type: ignore[attr-defined]
    return client


def create_game(client: APIClient, map_name: str = "europe", players: int = 2, **extra: Any) -> dict[str, Any]:
    response = client.post(f"{API}/games", {"map": map_name, "players": players, **extra}, format="json")
    assert response.status_code == 201, response.content
    return body(response)


def url(game_id: str, tail: str = "") -> str:
    return f"{API}/games/{game_id}" + (f"/{tail}" if tail else "")


@dataclass
class Table:
    """A game and one scripted client per seat (index = seat number)."""

    game_id: str
    clients: list[APIClient]
    map: str

    def get(self, seat: int, tail: str, **params: Any) -> dict[str, Any]:
        response = self.clients[seat].get(url(self.game_id, tail), params)
        assert response.status_code == 200, (tail, response.status_code, response.content[:500])
        return body(response)

    def state(self, seat: int = 0) -> dict[str, Any]:
        return self.get(seat, "state")

    def seq(self) -> int:
        return int(self.state()["seq"])

    def post_move(self, seat: int, expected_seq: int, move: dict[str, Any]) -> Any:
        return self.clients[seat].post(
            url(self.game_id, "moves"), {"expected_seq": expected_seq, "move": move}, format="json"
        )

    def play(self, seat: int, move: dict[str, Any]) -> dict[str, Any]:
        response = self.post_move(seat, self.seq(), move)
        assert response.status_code == 201, (move, response.status_code, response.content[:500])
        return body(response)


def seated_game(prefix: str, map_name: str = "europe", players: int = 2, start: bool = True, **extra: Any) -> Table:
    """A game whose every seat is a human with a scripted client; started unless `start=False`."""
    clients = [register(f"{prefix}{seat}") for seat in range(players)]
    game = create_game(clients[0], map_name, players, **extra)
    for seat, client in enumerate(clients[1:], start=1):
        response = client.post(url(game["id"], "join"), {"seat": seat}, format="json")
        assert response.status_code == 200, response.content
    if start:
        response = clients[0].post(url(game["id"], "start"), {}, format="json")
        assert response.status_code == 200, response.content
    return Table(game["id"], clients, map_name)


def deciding_seats(table: Table, seat: int = 0) -> list[int]:
    return list(table.state(seat)["view"]["deciding_seats"])


@dataclass
class PlayLog:
    moves: int = 0
    types: dict[str, int] = field(default_factory=dict)
    event_types: set[str] = field(default_factory=set)


def play_to_end(
    table: Table,
    rng: random.Random,
    after_move: Callable[[int, dict[str, Any], dict[str, Any]], None] | None = None,
    max_moves: int = 3000,
) -> PlayLog:
    """Every seat asks /legal-moves when it decides and posts a random choice, until the game ends.

    `after_move(seat, move, response_body)` is called after each accepted move."""
    played = PlayLog()
    for _ in range(max_moves):
        state = table.state()
        if state["status"] == "finished":
            return played
        deciders = state["view"]["deciding_seats"]
        assert deciders, state
        seat = rng.choice(deciders)
        legal = table.get(seat, "legal-moves")
        assert legal["moves"], (seat, state)
        move = choose(legal["moves"], rng)
        response = table.post_move(seat, legal["seq"], move)
        assert response.status_code == 201, (move, response.status_code, response.content[:500])
        result = body(response)
        assert result["seq"] == legal["seq"] + len(result["events"])
        played.moves += 1
        played.types[move["type"]] = played.types.get(move["type"], 0) + 1
        played.event_types.update(e["type"] for e in result["events"])
        if after_move is not None:
            after_move(seat, move, result)
    raise AssertionError(f"the game did not end in {max_moves} moves")


def finish_by_services(game_id: str, rng: random.Random, max_moves: int = 5000, *, score: bool = True) -> int:
    """Play a started game to its end through the service layer (fast; the API is tested elsewhere), then
    score it as the `score_game` task does (tests/server/test_workers.py runs the real worker).

    Random legal moves, leaning towards claims so that the game is short. Returns the number of moves."""
    from games.play import bot_turns, scoring
    from games.store import states
    from games.store.models import Game

    for played in range(max_moves):
        game = Game.objects.get(pk=game_id)
        if game.status == Game.Status.FINISHED:
            if score:  # (with real commits the eager task may have scored it already: it scores once)
                scoring.game_score_and_rate(game_id)
                assert states.state_at(game.pk, Game.objects.get(pk=game_id).seq).scores
            return played
        seat, move = random_engine_move(states.state_at(game.pk, game.seq), rng)
        bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=move)
    raise AssertionError(f"the game did not end in {max_moves} moves")


SCORE_KEYS = {
    "seat",
    "username",
    "bot",
    "total",
    "route_points",
    "tickets",
    "stations_unbuilt",
    "station_routes",
    "longest_path",
    "longest_bonus",
    "place",
}


def check_score(client: APIClient, game_id: str) -> dict[str, Any]:
    """GET /score has the docs/API.md shape and adds up; returns it."""
    response = client.get(url(game_id, "score"))
    assert response.status_code == 200, response.content[:300]
    score = body(response)
    summary = body(client.get(url(game_id)))
    assert summary["status"] == "finished"
    players = summary["players"]
    assert [s["seat"] for s in score["scores"]] == list(range(players))
    for entry, seat in zip(score["scores"], summary["seats"], strict=True):
        assert set(entry) >= SCORE_KEYS, entry
        assert entry["username"] == seat["username"] and entry["bot"] == seat["bot"]
        for ticket in entry["tickets"]:
            assert set(ticket) >= {"ticket", "points", "completed"}
            assert isinstance(ticket["completed"], bool)
            assert (ticket["points"] > 0) == ticket["completed"]
        for station in entry["station_routes"]:
            assert set(station) >= {"city", "route"}
        assert isinstance(entry["longest_path"], int) and entry["longest_bonus"] in (0, 10)
        if summary["map"] == "usa":
            assert entry["stations_unbuilt"] == 0 and entry["station_routes"] == []
        assert entry["total"] == (
            entry["route_points"]
            + sum(t["points"] for t in entry["tickets"])
            + 4 * entry["stations_unbuilt"]
            + entry["longest_bonus"]
        ), entry
        assert entry["place"] >= 1
    best = max(e["total"] for e in score["scores"])
    assert score["winner_seats"], score
    assert set(score["winner_seats"]) <= {e["seat"] for e in score["scores"] if e["total"] == best}
    assert {e["seat"] for e in score["scores"] if e["place"] == 1} == set(score["winner_seats"])
    longest = max(e["longest_path"] for e in score["scores"])
    assert {e["seat"] for e in score["scores"] if e["longest_bonus"]} == {
        e["seat"] for e in score["scores"] if e["longest_path"] == longest
    }
    return score


def audit_lines(client: APIClient, game_id: str) -> list[dict[str, Any]]:
    """GET /audit: JSON Lines whose hash chain and commitments check out."""
    response = client.get(url(game_id, "audit"))
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("application/jsonl")
    text = response.content.decode()
    assert text.endswith("\n")
    return check_chain([json.loads(line) for line in text.splitlines()])


def check_chain(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Audit lines checked one by one, as any outside auditor could: seqs, hash chain, commitments."""
    from datetime import datetime

    from games.engine import redact
    from games.engine.codec import event_from_dict, event_to_dict
    from games.engine.hash_chain import GENESIS_HASH, commitment_of, hidden_fields
    from games.store.event_log import row_hash

    prev = GENESIS_HASH
    for seq, line in enumerate(lines, start=1):
        assert {"seq", "type", "at", "seat", "data", "hash", "prev_hash"} <= set(line)
        assert line["seq"] == seq and line["prev_hash"] == prev
        assert line["data"]["type"] == line["type"]
        digest = row_hash(
            line["prev_hash"],
            line["seq"],
            line["type"],
            line["seat"],
            line["data"],
            line["commitment"],
            line["salt"],
            datetime.fromisoformat(line["at"]),
            line.get("reason", ""),
        )
        assert digest == line["hash"], f"seq {seq}: the hash does not cover the line"
        if line["commitment"]:
            public = event_to_dict(redact(event_from_dict(line["data"]), None))
            assert commitment_of(line["salt"], hidden_fields(line["data"], public)) == line["commitment"]
        prev = line["hash"]
    return lines


@contextmanager
def registrations_unthrottled() -> Iterator[None]:
    """For a module's fixture, which runs before the autouse settings of tests/server/conftest.py: the auth
    throttle relaxed and its counts forgotten (the suite's earlier registrations count against it), then restored."""
    from django.conf import settings
    from django.core.cache import cache

    throttle, settings.AUTH_THROTTLE_RATE = settings.AUTH_THROTTLE_RATE, "100000/min"
    cache.clear()
    try:
        yield
    finally:
        settings.AUTH_THROTTLE_RATE = throttle


@contextmanager
def append_only_trigger_disabled() -> Iterator[None]:
    """Let this transaction change event rows behind the application's back: on PostgreSQL the append-only
    trigger is disabled meanwhile (and the test's transaction rolls the ALTER TABLE back in any case)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        # run this transaction's deferred foreign-key checks now: ALTER TABLE refuses while trigger events are pending
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE games_event DISABLE TRIGGER games_event_append_only")
        try:
            yield
        finally:
            cursor.execute("ALTER TABLE games_event ENABLE TRIGGER games_event_append_only")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def tamper(game_id: str, seq: int, **changes: Any) -> None:
    """Edit an event row behind the application's back."""
    from games.store.models import Event

    with append_only_trigger_disabled():
        assert Event.objects.filter(game_id=game_id, seq=seq).update(**changes) == 1


def check_verified(client: APIClient, game_id: str, events: int) -> dict[str, Any]:
    response = client.get(url(game_id, "verify"))
    assert response.status_code == 200
    report = body(response)
    assert report["ok"] is True, report
    assert report["problems"] == [] and report["events"] == events
    assert len(report["head_hash"]) == 64
    return report


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coroutine)` in a thread of its own: the test's thread may already have a running loop (one
    that another test's library left there), and a loop of our own must not meet it."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def create_tournament(client: APIClient, **extra: Any) -> dict[str, Any]:
    """A tournament `client` organises: a live Swiss of two rounds at tables of two, in five minutes, unless `extra`
    says otherwise (docs/API.md, Tournaments)."""
    from datetime import timedelta

    from django.utils import timezone

    fields = {
        "name": "Friday Swiss", "format": "swiss", "map": "europe", "table_size": 2, "smaller_tables": False,
        "speed": "live", "turn_seconds": 60, "rounds": 2, "starts_at": (timezone.now() + timedelta(minutes=5)).isoformat(),
        "ranked": False, "bots_fill": True,
    } | extra
    response = client.post("/api/tournaments", fields, format="json")
    assert response.status_code == 201, response.content
    return body(response)  # type: ignore[no-any-return]
