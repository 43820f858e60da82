"""The stream of finished games (GET /api/games/export, docs/AUDIT.md): each line the game's public record (its
summary, its /audit lines, its seeds, its checkpoint, its rating changes), the filters, the order and resuming
with `since`, bad parameters refused naming the field, nothing of a game in play, the throttle, and the server's
memory flat over a stream of 10,000 games served through the ASGI application.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.server.helpers import assert_error, audit_lines, body, create_game, finish_by_services, register, url

pytestmark = pytest.mark.django_db

EXPORT = "/api/games/export"
NDJSON = "application/x-ndjson"
T0 = datetime(2026, 10, 5, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _unthrottled(settings: Any) -> None:
    from django.core.cache import cache

    settings.TTR_EXPORT_RATE = "100000/min"
    cache.clear()  # the throttle's counts of earlier tests


def finished(client: APIClient, *, map_name: str = "usa", players: int = 2, ranked: bool = False, seed: int = 1,
             at: datetime | None = None) -> str:
    """A game of the client's and random bots, played to its end and scored (rated when ranked); finished `at`."""
    from games.store.models import Game

    game = create_game(client, map_name, players, ranked=ranked)["id"]
    assert client.post(url(game, "start"), {"fill_with_bots": "random"}, format="json").status_code == 200
    finish_by_services(game, random.Random(seed))
    if at is not None:
        Game.objects.filter(pk=game).update(finished_at=at)
    return str(game)


def stream(client: APIClient | None = None, **params: Any) -> list[dict[str, Any]]:
    response = (client or APIClient()).get(EXPORT, params)
    assert response.status_code == 200, (response.status_code, getattr(response, "content", b"")[:300])
    assert response["Content-Type"] == NDJSON
    text = b"".join(response.streaming_content).decode()
    assert not text or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def ids(lines: list[dict[str, Any]]) -> list[str]:
    return [line["game"]["id"] for line in lines]


def test_each_line_is_the_games_public_record_and_only_finished_public_games_are_streamed() -> None:
    from games.api import game_lines
    from games.play.models import RatingChange
    from games.store.models import Game

    ada = register("ada")
    casual = finished(ada, seed=1, at=T0)
    ranked = finished(ada, map_name="europe", players=3, ranked=True, seed=2, at=T0 + timedelta(hours=1))
    private = finished(ada, seed=3, at=T0 + timedelta(hours=2))
    Game.objects.filter(pk=private).update(private=True)
    active = create_game(ada, "usa", 2)["id"]
    ada.post(url(active, "start"), {"fill_with_bots": "random"}, format="json")
    create_game(ada, "europe", 3)  # open

    lines = stream()
    assert ids(lines) == [casual, ranked]
    anyone = APIClient()
    for line in lines:
        game = line["game"]["id"]
        assert line["format"] == "ttr-game/1"
        assert line["game"] == body(anyone.get(url(game)))  # the summary as a person not at the table sees it
        assert line["audit"] == audit_lines(anyone, game)  # /audit's lines, the checkpoint on the last
        assert line["checkpoint"] == body(anyone.get(url(game, "checkpoint"))) == line["audit"][-1]["checkpoint"]
        revealed = next(a for a in line["audit"] if a["type"] == "seeds_revealed")["data"]["server_seed"]
        committed = next(a for a in line["audit"] if a["type"] == "seeds_committed")["data"]["client_seeds"]
        assert line["seeds"] == {"server_seed": revealed, "client_seeds": committed}
        at = Game.objects.get(pk=game).finished_at
        assert line["finished_at"] == at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        assert line == game_lines.game_line(Game.objects.get(pk=game))
    assert lines[0]["ratings"] == []
    changes = RatingChange.objects.filter(game_id=ranked).order_by("id")
    assert len(lines[1]["ratings"]) == changes.count() == 2  # ada, and the account of both random bots
    assert lines[1]["ratings"] == [
        {"user": c.user_id, "map": "europe", "place": c.place, "seat_places": c.seat_places, "mu_before": c.mu_before,
         "sigma_before": c.sigma_before, "mu_after": c.mu_after, "sigma_after": c.sigma_after, "order": c.pk}
        for c in changes
    ]


def test_the_filters_keep_what_they_say() -> None:
    from games.store.models import Game

    ada, bob = register("ada"), register("bob")
    usa = finished(ada, seed=1, at=T0)
    europe = finished(bob, map_name="europe", seed=2, at=T0 + timedelta(days=1))
    ranked = finished(ada, map_name="europe", ranked=True, seed=3, at=T0 + timedelta(days=2))
    tournament = uuid.uuid4()
    Game.objects.filter(pk=europe).update(tournament=tournament, tournament_round=1)

    assert ids(stream()) == [usa, europe, ranked]
    assert ids(stream(player="ADA")) == [usa, ranked]  # any case
    assert ids(stream(player="bob")) == [europe]
    assert ids(stream(player="random-bot")) == [usa, europe, ranked]  # a bot account: the seats its level played
    assert ids(stream(map="europe")) == [europe, ranked]
    assert ids(stream(ranked="true")) == [ranked] and ids(stream(ranked="0")) == [usa, europe]
    assert ids(stream(since=(T0 + timedelta(days=1)).isoformat())) == [europe, ranked]  # since: inclusive
    assert ids(stream(until=(T0 + timedelta(days=1)).isoformat().replace("+00:00", "Z"))) == [usa]  # until: exclusive
    assert ids(stream(since="2026-10-06", until="2026-10-07")) == [europe]  # a date: its midnight, UTC
    assert ids(stream(since="2026-10-06T14:00:00+02:00")) == [europe, ranked]  # 12:00 UTC
    assert ids(stream(tournament=str(tournament))) == [europe]
    assert ids(stream(map="usa", player="bob")) == []
    assert ids(stream(since="9999-12-31T23:59:59-23:59")) == []  # past what a moment can hold: after everything


def test_the_order_is_finished_at_then_id_and_a_stream_resumes_with_since() -> None:
    from games.api import game_lines
    from games.store.models import Game

    ada = register("ada")
    games = [finished(ada, seed=n) for n in range(4)]
    same = T0 + timedelta(minutes=5)
    for game, at in zip(games, [T0 + timedelta(minutes=9), same, same, T0], strict=True):
        Game.objects.filter(pk=game).update(finished_at=at)
    tied = sorted([games[1], games[2]], key=uuid.UUID)
    whole = stream()
    assert ids(whole) == [games[3], *tied, games[0]]
    # Cut after the first game of the tie: ask again from its finished_at, skip what is held.
    held = whole[:2]
    again = stream(since=held[-1]["finished_at"])
    assert ids(again) == [*tied, games[0]]
    resumed = held + [line for line in again if line["game"]["id"] not in set(ids(held))]
    assert resumed == whole
    # Keyset pages of one game each give the same lines as one page.
    assert list(game_lines.game_lines(game_lines.listed_finished(), page_size=1)) == whole


def test_a_page_costs_the_same_queries_however_many_games_it_holds(django_assert_max_num_queries: Any) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.api import game_lines

    ada = register("ada")
    for n in range(5):
        finished(ada, ranked=n % 2 == 0, seed=n, at=T0 + timedelta(minutes=n))

    def queries(page_size: int) -> int:
        with CaptureQueriesContext(connection) as captured:
            lines = list(game_lines.game_lines(game_lines.listed_finished(), page_size=page_size))
        assert len(lines) == 5
        return len(captured)

    one_page = queries(10)
    assert one_page <= 8, one_page  # games, seats, people, rematch offers, checkpoints, ratings, events
    assert queries(1) <= 6 * one_page  # five pages and the empty sixth, each as dear as one


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"map": "mars"}, "map"),
        ({"ranked": "yes"}, "ranked"),
        ({"since": "yesterday"}, "since"),
        ({"until": "2026-13-01T00:00:00Z"}, "until"),
        ({"since": "2026-11-01T25:00"}, "since"),
        ({"tournament": "not-a-uuid"}, "tournament"),
        ({"player": ""}, "player"),
        ({"player": "a" * 151}, "player"),
        ({"player": "ada\x00"}, "player"),
        ({"rank": "true"}, "rank"),
    ],
)
def test_bad_parameters_are_refused_naming_the_field(params: dict[str, str], field: str) -> None:
    response = APIClient().get(EXPORT, params)
    assert assert_error(response, 400, "invalid")["field"] == field


def test_an_unknown_player_is_404_naming_the_field() -> None:
    response = APIClient().get(EXPORT, {"player": "nobody"})
    assert assert_error(response, 404, "not_found")["field"] == "player"


def test_asking_for_ndjson_is_answered_and_errors_stay_json() -> None:
    ada = register("ada")
    game = finished(ada)
    client = APIClient(HTTP_ACCEPT=NDJSON)
    assert ids(stream(client)) == [game]
    assert_error(client.get(EXPORT, {"map": "mars"}), 400, "invalid")


def test_nothing_of_a_game_in_play_is_in_the_stream_not_even_for_staff() -> None:
    from django.contrib.auth import get_user_model

    from games.store.models import Event, Game

    ada = register("ada")
    done = finished(ada, at=T0)
    playing = create_game(ada, "europe", 3)["id"]
    ada.post(url(playing, "start"), {"fill_with_bots": "greedy"}, format="json")
    with pytest.raises(AssertionError, match="did not end"):
        finish_by_services(playing, random.Random(9), max_moves=10)  # ten moves in, and still in play
    game = Game.objects.get(pk=playing)
    assert game.status == Game.Status.ACTIVE and game.seq > 10
    secrets = [game.server_seed, playing] + [s for s in Event.objects.filter(game=game).values_list("salt", flat=True) if s]
    get_user_model().objects.filter(username="ada").update(is_staff=True)  # staff read /audit of a game in play
    for client in (APIClient(), ada):
        response = client.get(EXPORT)
        text = b"".join(response.streaming_content).decode()
        assert ids([json.loads(line) for line in text.splitlines()]) == [done]
        assert not [secret for secret in secrets if secret in text]


def test_streams_are_throttled_per_person(settings: Any) -> None:
    settings.TTR_EXPORT_RATE = "2/min"
    ada, bob = register("ada"), register("bob")
    for _ in range(2):
        assert ada.get(EXPORT).status_code == 200
    refused = ada.get(EXPORT)
    assert_error(refused, 429, "throttled")
    assert int(refused["Retry-After"]) > 0
    assert bob.get(EXPORT).status_code == 200  # another person's count is their own
    assert APIClient().get(EXPORT).status_code == 200  # and nobody's (an address's)


# ---------------------------------------------------------------------------------------------------------
# 10,000 games through the ASGI application: the body is sent in many parts as it is made, never held whole.

MANY = 10_000


@pytest.fixture
def many_games(django_db_blocker: Any) -> Iterator[int]:
    """MANY finished games committed (the ASGI application's threads read them on connections of their own):
    copies of one short real game, an aborted one (bench/export.py's `copies`); the test's flush deletes them."""
    from django.contrib.auth import get_user_model

    from bench.export import copies
    from games.play import services
    from games.staff import operator_actions

    with django_db_blocker.unblock():
        staff = get_user_model().objects.create_user("many-staff", is_staff=True)
        game = services.game_create(staff, map_name="usa", players=2)
        services.game_start(game.pk, user=staff, fill_with_bots="random")
        template = operator_actions.game_abort(game.pk, staff=staff, reason="a short log to copy")
        template.refresh_from_db()
        yield copies([template], MANY - 1, first=T0) + 1


def _rss() -> int:
    """This process's resident memory, in bytes."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@dataclass
class Served:
    status: int = 0
    parts: int = 0
    size: int = 0
    lines: int = 0
    last: bytes = b""
    rss: list[tuple[int, int]] = field(default_factory=list)  # (bytes sent so far, resident memory then)


def _serve(path: str) -> Served:
    """GET `path` through the ASGI application in this process (the serving process), the body counted as it
    arrives and let go, this process's resident memory noted every megabyte."""
    from ttr_server.asgi import application

    served = Served()

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            served.status = message["status"]
            return
        part = message.get("body", b"")
        served.parts += bool(part)
        if part and (served.size + len(part)) // 2**20 != served.size // 2**20:
            served.rss.append((served.size, _rss()))
        served.size += len(part)
        served.lines += part.count(b"\n")
        served.last = (served.last + part)[-20000:]

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }
    gc.collect()
    served.rss.append((0, _rss()))
    asyncio.run(application(scope, receive, send))
    return served


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_ten_thousand_games_stream_in_parts_with_the_servers_memory_flat(many_games: int) -> None:
    started = time.perf_counter()
    served = _serve(EXPORT)
    seconds = time.perf_counter() - started
    assert served.status == 200
    assert served.lines == many_games == MANY
    assert json.loads(served.last.splitlines()[-1])["format"] == "ttr-game/1"
    assert served.parts >= served.size // 2**16  # (Django's handler sends 64 KB at most at a time)
    # Flat: from a tenth of the way on, the process holds no more than it did then, give or take a page of games,
    # while the body goes on growing to tens of megabytes (held whole, it would all be in memory at the end).
    start = next(rss for sent, rss in served.rss if sent >= served.size // 10)
    growth = max(rss for _, rss in served.rss) - start
    assert served.size > 40 * 2**20, served.size
    assert growth < 16 * 2**20, (growth, served.rss)
    assert max(rss for _, rss in served.rss) - served.rss[0][1] < served.size / 3, served.rss
    most = start + growth
    print(f"{MANY} games, {served.size / 1e6:.1f} MB in {served.parts} parts in {seconds:.1f} s; resident "
          f"{served.rss[0][1] / 1e6:.0f} MB at the start, {start / 1e6:.0f} MB a tenth in, {most / 1e6:.0f} at most")
