"""Tournaments at scale through the real Celery worker (tests/server/worker.py): a Swiss of 64 at tables of two, a
Swiss of 37 at tables of four (bots fill the remainder; smaller tables instead), an arena of 30, each run to its end
and checked: standings, seatings, the audit log's verdict, the games' links and the people's notifications.

The players are people: registered accounts that join over HTTP. As each of their tables starts, they resign it
(POST /api/games/{id}/resign), so the tournament's fallback bot (greedy) plays their seat: that is how bots play a
tournament through the real worker here, every move of every game a `play_bot_turns` task on the worker, each
game scored there (`score_game`), and each scored game queues `advance_tournament`, which pairs the next round (or
the arena's pool) or ends the tournament, on the worker too. Beat's `tournaments_tick` is called from the test
process (`services.tick()`, the task's whole body) rather than run by a beat process: a beat is one more process on
a 2-core machine and fires on its own schedule (5 s), where the test calls it exactly where only beat would act (a
tournament's start, an arena's overdue waiters and the end of its window). A Swiss's rounds after the first are
never ticked: the worker alone pairs them.

The Swiss of 64 plays two rounds: the second is the first paired by standings and with a history of meetings to
avoid, which is what a third would test again at half the run's cost (a 2-player game of greedy bots is about 135
moves, and the moves are where the time goes).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from itertools import combinations, pairwise
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from games.store.models import Event, Game, Seat
from games.tournaments import services
from games.tournaments.models import Table, Tournament
from tests.server.helpers import body, register
from tests.server.worker import celery_worker, needs_real_services

pytestmark = [pytest.mark.django_db(transaction=True), needs_real_services()]
RUN_SECONDS = 600  # a whole tournament: tens of seconds when the machine is quiet; generous for a busy one


@dataclass(frozen=True)
class Worker:
    log: Path
    pid: int

    def cpu_seconds(self) -> float:
        """The worker process's CPU time so far (all its threads), from /proc."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[Worker]:
    log = tmp_path / "worker.log"
    with celery_worker(log) as process:
        yield Worker(log, process.pid)


class Run:
    """A tournament driven as its people and beat would: join, start, resign each table as it starts, tick."""

    def __init__(self, prefix: str, count: int, **fields: Any) -> None:
        self.begun = time.monotonic()
        self.owner = register(f"{prefix}-organiser")
        self.people = [register(f"{prefix}{n}") for n in range(count)]
        ids = dict(User.objects.filter(username__in=[c.username for c in self.people]).values_list("username", "pk"))  # type: ignore[attr-defined]
        for client in self.people:
            client.user_id = ids[client.username]  # type: ignore[attr-defined]
        self.by_id = {c.user_id: c for c in self.people}  # type: ignore[attr-defined]
        made = self.owner.post("/api/tournaments", {
            "name": f"{prefix} scale", "map": "usa", "speed": "live", "turn_seconds": 60, "ranked": False,
            "starts_at": (timezone.now() + timedelta(minutes=5)).isoformat(), **fields,
        }, format="json")
        assert made.status_code == 201, made.content
        self.id: str = body(made)["id"]
        for client in self.people:
            assert body(client.post(f"/api/tournaments/{self.id}/join", {}, format="json"))["joined"] is True
        self.resigned = 0
        self.joined = time.monotonic()

    def start(self, worker: Worker) -> None:
        """Its start comes due and beat's tick starts it (round 1, or the arena's first pairing)."""
        self.started, self.cpu, self.worker_cpu = time.monotonic(), time.process_time(), worker.cpu_seconds()
        Tournament.objects.filter(pk=self.id).update(starts_at=timezone.now())
        assert services.tick() >= 1

    def play_out(self, worker: Worker, *, tick_every: float | None = None) -> None:
        """Until the tournament is over: each person resigns each table of theirs that has started (their seat goes
        to the fallback bot on the worker); `tick_every`: beat's tick that often (None: never)."""
        deadline, ticked = time.monotonic() + RUN_SECONDS, time.monotonic()
        while Tournament.objects.filter(pk=self.id, status=Tournament.Status.FINISHED).count() == 0:
            if time.monotonic() > deadline:
                raise AssertionError(f"not over within {RUN_SECONDS} s: {worker.log.read_text()[-3000:]}")
            resigned = self.resign_started()
            if tick_every is not None and time.monotonic() - ticked >= tick_every:
                services.tick()
                ticked = time.monotonic()
            if not resigned:
                time.sleep(0.05)

    def resign_started(self) -> int:
        """Each person resigns each of their tables that has started and that they have not left yet."""
        seats = list(Seat.objects.filter(
            game__tournament=self.id, game__status=Game.Status.ACTIVE, user__isnull=False, stand_in__isnull=True,
        ).values_list("game_id", "user_id"))
        for game_id, user_id in seats:
            answer = self.by_id[user_id].post(f"/api/games/{game_id}/resign", {}, format="json")
            assert answer.status_code == 200, answer.content
        self.resigned += len(seats)
        return len(seats)

    def detail(self) -> dict[str, Any]:
        return body(self.owner.get(f"/api/tournaments/{self.id}"))  # type: ignore[no-any-return]

    def tables(self) -> list[Table]:
        return list(Table.objects.filter(tournament_id=self.id).order_by("round", "pk"))

    def check_the_end(self) -> dict[str, Any]:
        """What every format owes at its end: over, ranked 1..n with people only, each round seats a person once,
        verified fair, each game linked to it, and each person told of each table and of the end once."""
        final = self.detail()
        assert final["status"] == "finished" and final["server_seed"]
        names = {c.username for c in self.people}  # type: ignore[attr-defined]
        assert [row["rank"] for row in final["standings"]] == list(range(1, len(self.people) + 1))
        assert {row["username"] for row in final["standings"]} == names  # no bot, nobody missing
        tables = self.tables()
        assert all(t.finished and t.places for t in tables)
        for number in {t.round for t in tables}:
            seated = [s for t in tables if t.round == number for s in t.seats if not s.startswith("bot:")]
            assert len(seated) == len(set(seated)), f"round {number} seats someone twice"
        verdict = body(self.owner.get(f"/api/tournaments/{self.id}/verify"))
        assert verdict == {"ok": True, "fair": True, "head_hash": verdict["head_hash"], "problems": []}
        for table in tables:
            summary = body(self.owner.get(f"/api/games/{table.game_id}"))
            assert summary["tournament"] == {"id": self.id, "round": table.round} and summary["status"] == "finished"
        self._check_notices(tables)
        return final

    def _check_notices(self, tables: list[Table]) -> None:
        for client in self.people:
            mine = {str(t.game_id) for t in tables if str(client.user_id) in t.seats}  # type: ignore[attr-defined]
            rows = body(client.get("/api/notifications"))["results"]
            told = [row for row in rows if row.get("data", {}).get("tournament") == self.id]
            kinds = Counter(row["kind"] for row in told)
            assert kinds["tournament_ended"] == 1, (client.username, kinds)  # type: ignore[attr-defined]
            at = [row["game"] for row in told if row["kind"] == "tournament_table"]
            assert sorted(at) == sorted(mine), client.username  # type: ignore[attr-defined]

    def figures(self, what: str, worker: Worker) -> str:
        games = [t.game_id for t in self.tables()]
        moves = Event.objects.filter(game_id__in=games).exclude(reason="").count()
        seconds, cpu = time.monotonic() - self.started, time.process_time() - self.cpu
        return (
            f"{what}: {len(games)} games, {moves} bot moves, {self.resigned} seats resigned; {seconds:.1f} s from the"
            f" start (the people registered and joined in {self.joined - self.begun:.1f} s), worker CPU"
            f" {worker.cpu_seconds() - self.worker_cpu:.1f} s, test process CPU {cpu:.1f} s"
        )


def meetings(tables: list[Table]) -> Counter[frozenset[str]]:
    met: Counter[frozenset[str]] = Counter()
    for table in tables:
        people = [s for s in table.seats if not s.startswith("bot:")]
        met.update(frozenset(pair) for pair in combinations(people, 2))
    return met


def games_played(tables: list[Table]) -> Counter[str]:
    return Counter(s for t in tables for s in t.seats if not s.startswith("bot:"))


def test_a_swiss_of_64_at_tables_of_two_plays_two_rounds_on_the_worker_with_no_repeat(
    worker: Worker, capsys: pytest.CaptureFixture[str]
) -> None:
    run = Run("s", 64, format="swiss", table_size=2, rounds=2, bots_fill=False)
    run.start(worker)
    run.play_out(worker)
    final = run.check_the_end()
    assert final["round"] == 2 and all(row["games"] == 2 for row in final["standings"])
    tables = run.tables()
    assert len(tables) == 64 and all(len(t.seats) == 2 and not any(s.startswith("bot:") for s in t.seats) for t in tables)
    assert set(games_played(tables).values()) == {2}
    assert max(meetings(tables).values()) == 1  # 64 at 2 over two rounds: nobody meets anyone twice
    with capsys.disabled():
        print("\n" + run.figures("swiss 64 at 2, 2 rounds", worker))


@pytest.mark.parametrize("fill", ["bots_fill", "smaller_tables"])
def test_a_swiss_of_37_at_tables_of_four_seats_everyone_each_round_and_repeats_no_one(
    worker: Worker, capsys: pytest.CaptureFixture[str], fill: str
) -> None:
    """37 at 4: with bots filling, nine tables of four and one person with three bots; with smaller tables, seven
    of four and three of three (T-PAIR-1). Two rounds: nobody need meet anyone twice, so nobody does."""
    run = Run(f"f{fill[0]}", 37, format="swiss", table_size=4, rounds=2, **{fill: True})
    run.start(worker)
    run.play_out(worker)
    final = run.check_the_end()
    assert final["round"] == 2 and all(row["games"] == 2 for row in final["standings"])
    tables = run.tables()
    for number in (1, 2):
        at = [t.seats for t in tables if t.round == number]
        people = sorted(len([s for s in seats if not s.startswith("bot:")]) for seats in at)
        bots = sorted(len([s for s in seats if s.startswith("bot:")]) for seats in at)
        if fill == "bots_fill":
            assert people == [1] + [4] * 9 and bots == [0] * 9 + [3] and {len(s) for s in at} == {4}
        else:
            assert people == [3] * 3 + [4] * 7 and bots == [0] * 10
    assert set(games_played(tables).values()) == {2}
    assert max(meetings(tables).values()) == 1
    with capsys.disabled():
        print("\n" + run.figures(f"swiss 37 at 4 ({fill}), 2 rounds", worker))


def test_an_arena_of_30_pairs_from_its_pool_until_its_window_ends_then_lets_its_last_games_finish(
    worker: Worker, capsys: pytest.CaptureFixture[str]
) -> None:
    """An arena of ten minutes at tables of two: everyone is seated at its start; as games end, their people go back
    to the pool and are seated again, never with their last opponent. Once a second pairing has seated someone the
    test ends the window (its start moved ten minutes back: the time it would take) and beat's tick sees it over;
    the games still running finish, and the last to finish ends the arena on the worker."""
    run = Run("a", 30, format="arena", table_size=2, minutes=10, bots_fill=False)
    run.start(worker)
    assert Table.objects.filter(tournament_id=run.id).count() == 15  # everyone at once: the pool divides
    repaired = time.monotonic() + RUN_SECONDS
    while not Table.objects.filter(tournament_id=run.id, round__gte=2).exists():
        assert time.monotonic() < repaired, worker.log.read_text()[-3000:]
        run.resign_started()
        time.sleep(0.05)
    Tournament.objects.filter(pk=run.id).update(starts_at=timezone.now() - timedelta(minutes=10))
    services.tick()
    run.play_out(worker, tick_every=1.0)
    final = run.check_the_end()
    tables = run.tables()
    played = games_played(tables)
    names = {str(c.user_id): c.username for c in run.people}  # type: ignore[attr-defined]
    assert {row["username"]: row["games"] for row in final["standings"]} == {names[p]: n for p, n in played.items()}
    assert len(played) == 30 and min(played.values()) >= 1 and max(played.values()) >= 2
    times = {g: (s, f) for g, s, f in Game.objects.filter(tournament=run.id).values_list("pk", "started_at", "finished_at")}
    for person in played:
        theirs = [t for t in tables if person in t.seats]
        for before, after in pairwise(theirs):
            assert not (set(before.seats) & set(after.seats)) - {person}, (person, before.seats, after.seats)
            finished, started = times[before.game_id][1], times[after.game_id][0]
            assert finished and started and finished <= started  # one table at a time
    with capsys.disabled():
        print("\n" + run.figures("arena of 30 at 2", worker))
