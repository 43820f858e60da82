"""The queue for real (PostgreSQL, Redis, a Celery worker, a web process): concurrent joins, leaves and
matchmaker runs never seat a person twice or seat one who left; a queue of 40 players with mixed choices forms
only valid tables; the members are told on their own socket (`/ws/me/`) once; a daily game whose bank runs out
is played by the fallback bot through the worker."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from bots import tasks as bots_tasks
from games.lobby import matchmaker, pairing
from games.lobby.models import QueueEntry
from games.people.models import Notification
from games.play.models import Rating
from games.store import notify
from games.store.models import Event, Game
from tests.server.helpers import API, body, register, seated_game
from tests.server.sockets import Socket, web_servers
from tests.server.worker import celery_worker, needs_real_services, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), needs_real_services()]
MAPS, SPEEDS = ("europe", "usa"), ("live", "daily")



def people(count: int, rng: random.Random, prefix: str = "q") -> list[Any]:
    """`count` registered clients, each with a rating on both maps spread over 0..20."""
    clients = [register(f"{prefix}{n}") for n in range(count)]
    users = {u.username: u for u in get_user_model().objects.filter(username__startswith=prefix)}
    Rating.objects.bulk_create(
        [
            Rating(user=users[c.username], map=m, mu=rng.uniform(10, 30), sigma=rng.uniform(1, 5))
            for c in clients
            for m in MAPS
        ]
    )
    return clients


def choices(rng: random.Random) -> dict[str, Any]:
    counts = sorted(rng.sample([2, 3, 4, 5], rng.randint(1, 3)))
    return {
        "map": rng.choice(MAPS), "players": counts, "ranked": rng.random() < 0.5, "speed": rng.choice(SPEEDS),
        "bots_after": rng.choice([None, None, 0]),
    }


def check_tables(entries: list[QueueEntry]) -> dict[str, list[QueueEntry]]:
    """Every matched entry's game holds exactly its table: choices respected, gap within the widening rule."""
    tables: dict[str, list[QueueEntry]] = {}
    for entry in entries:
        if entry.status == QueueEntry.Status.MATCHED:
            tables.setdefault(str(entry.game_id), []).append(entry)
    seated: set[int] = set()
    for game_id, members in tables.items():
        game = Game.objects.get(pk=game_id)
        humans = [s.user_id for s in game.seat_list if s.user_id]
        assert sorted(humans) == sorted(m.user_id for m in members), game_id  # the table and nobody else
        assert not seated & set(humans), "a person seated twice"
        seated |= set(humans)
        bots = sum(1 for s in game.seat_list if s.bot)
        table = pairing.Table(tuple(m.pk for m in members), game.players, bots)
        waiting = {m.pk: matchmaker._waiting(m) for m in members}
        problem = pairing.problem(table, waiting, members[0].matched_at.timestamp())
        assert problem is None, (game_id, problem)
        assert game.map == members[0].map and game.speed == members[0].speed and game.ranked == members[0].ranked
        assert game.status == Game.Status.ACTIVE
    return tables


def test_concurrent_joins_leaves_and_runs_seat_nobody_twice_and_nobody_who_left() -> None:
    rng = random.Random(20)
    clients = people(40, rng)
    wants = {c.username: choices(rng) for c in clients}
    leavers = set(rng.sample([c.username for c in clients], 12))
    left: dict[str, int] = {}
    stop = threading.Event()

    def player(client: Any) -> None:
        try:
            response = client.post(f"{API}/queue", wants[client.username], format="json")
            assert response.status_code == 201, response.content
            if client.username in leavers:
                time.sleep(rng.random() * 0.05)
                left[client.username] = client.delete(f"{API}/queue").status_code
        finally:
            connection.close()

    def runner() -> None:
        try:
            while not stop.is_set():
                matchmaker.run()
        finally:
            connection.close()

    with ThreadPoolExecutor(12) as pool:
        runners = [pool.submit(runner) for _ in range(3)]
        for future in [pool.submit(player, c) for c in clients]:
            future.result()
        stop.set()
        for future in runners:
            future.result()
    matchmaker.run()
    entries = list(QueueEntry.objects.all())
    tables = check_tables(entries)
    assert tables, "some tables formed"
    by_name = {e.user.username: e for e in QueueEntry.objects.select_related("user")}
    for name, status in left.items():
        assert status in (204, 409), (name, status)
        if status == 204:  # left: in no game from the queue, and not waiting
            assert name not in by_name
        else:  # a table took them first: they are in exactly that game
            assert by_name[name].status == QueueEntry.Status.MATCHED
    formed = Notification.objects.filter(kind="game_formed")
    assert formed.count() == sum(len(members) for members in tables.values())
    assert formed.values("user").distinct().count() == formed.count()  # once each


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[Path]:
    log = tmp_path / "worker.log"
    with celery_worker(log, TTR_DAY_SECONDS="0.3", TTR_LOST_TASK_SECONDS="0.3"):
        yield log


def test_the_worker_forms_valid_tables_from_a_queue_of_40_and_tells_each_member_on_their_socket(worker: Path) -> None:
    rng = random.Random(40)
    clients = people(40, rng, "w")
    with web_servers(1) as (web,):
        sockets = {c.username: Socket.open(f"ws://127.0.0.1:{web.port}/ws/me/?token={c.token}", c.username) for c in clients}
        for socket in sockets.values():
            assert socket.hello["type"] == "hello" and socket.hello["unread"] == 0
        for client in clients:
            assert client.post(f"{API}/queue", choices(rng), format="json").status_code == 201

        def settled() -> bool | None:
            before = QueueEntry.objects.filter(status="matched").count()
            time.sleep(0.5)
            notify.send(matchmaker.match)  # as the beat does: the gaps widen with the wait
            time.sleep(0.5)
            return QueueEntry.objects.filter(status="matched").count() == before or None

        wait_for(settled, 60)
        entries = list(QueueEntry.objects.select_related("user"))
        tables = check_tables(entries)
        assert len(tables) >= 5
        for entry in entries:
            socket = sockets[entry.user.username]
            if entry.status == QueueEntry.Status.MATCHED:
                told = socket.next(lambda m: m["type"] == "notification" and m["kind"] == "game_formed")
                assert told["game"] == str(entry.game_id)
            assert not [m for m in socket.quiet(0.2) if m.get("kind") == "game_formed"]  # once only
        for socket in sockets.values():
            socket.close()


def test_a_daily_game_whose_bank_runs_out_is_played_by_the_fallback_bot_through_the_worker(
    worker: Path, settings: Any
) -> None:
    settings.TTR_DAY_SECONDS = 0.3
    table = seated_game("bank", speed="daily", days_per_move=1, bank_days=1)

    def timed_out() -> int | None:
        notify.send(bots_tasks.sweep)
        count = Event.objects.filter(game_id=table.game_id, type="turn_timed_out").count()
        return count if count == 2 else None

    wait_for(timed_out, 30)
    view = table.state(0)["view"]
    assert view["phase"] == "turn" and all(seconds == 0 for seconds in view["banks"].values())
    kept = Event.objects.filter(game_id=table.game_id, type="tickets_kept").values_list("seat", flat=True)
    assert sorted(kept) == [0, 1]
    warned = Notification.objects.filter(kind="clock_running_out", game_id=table.game_id)
    assert warned.count() <= 2 and body(table.clients[0].get(f"{API}/me/games"))["results"][0]["id"] == table.game_id
