"""Tournaments at scale through real Celery workers (tests/server/worker.py): a Swiss at tables of two, two Swisses
of the same people at tables of four at once (bots fill the remainder in one, smaller tables in the other), an
arena at tables of two; each run to its end and checked: standings, seatings, the audit log's verdict, the games'
links to their tournament and the people's notifications.

Two sizes (`SIZES`). `make test` plays the small one: a Swiss of 14, two of the same 17 at four (bots fill: four
tables of four and one person with three bots; smaller tables: two of four and three of three), an arena of 10.
The Swisses are above the 12 people up to which T-PAIR-3's search is exhaustive, so the workers pair their second
rounds with the greedy seating and its repair pass as a big tournament's are; and each tournament still has every
shape of table the full size has. `make drills` (TTR_TEST_SCALE=full) plays the full one: a Swiss of 64, two of
the same 37 at four, an arena of 30 (the figures in docs/PERFORMANCE.md's tournaments section come from it).

The players are people: registered accounts that join over HTTP. As each of their tables starts, they resign it
(POST /api/games/{id}/resign), so the tournament's fallback bot (greedy) plays their seat: that is how bots play a
tournament through the real worker here. Every move of every game is a `play_bot_turns` task on a worker, each
game is scored there (`score_game`), and each scored game queues `advance_tournament`, which pairs the next round
(or the arena's pool) or ends the tournament, on a worker too. Two worker processes of two threads, as production
runs several: both cores play, and the tournament's steps race between processes as they would there.

Beat's `tournaments_tick` is called from the test process (`services.tick()`, the task's whole body), not run by a
beat process: a beat is one more process on a 2-core machine and fires on its own schedule (every 5 s), where the
test calls it where only beat acts: a tournament's start, and an arena whose window is over. A Swiss is never
ticked after its start: the workers alone pair its later rounds and end it.

The Swiss plays two rounds, not three: the second is the first paired by standings and with meetings to
avoid, which a third round would only test again, for half as long again (a 2-player game of greedy bots is about
135 moves, and the moves are where the time goes: the figures each test prints with -s say how many, and whose CPU
they cost).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import combinations, pairwise
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from games.store.models import Event, Game, Seat
from games.tournaments import services
from games.tournaments.models import Table, Tournament
from tests.server.helpers import PASSWORD, body
from tests.server.worker import celery_worker, needs_real_services
from ttr_server.celery import app

pytestmark = [pytest.mark.django_db(transaction=True), needs_real_services(), pytest.mark.slow]
WORKERS = 2


@dataclass(frozen=True)
class Size:
    swiss: int  # the Swiss at tables of two (even: nobody sits out)
    fours: int  # the two Swisses at tables of four (one more than a multiple of four: one person plays three bots)
    fours_smaller: tuple[int, int]  # T-PAIR-1 for `fours` with smaller tables: (tables of four, tables of three)
    arena: int  # the arena at tables of two (even: everyone is seated at its start)


SIZES = {"small": Size(swiss=14, fours=17, fours_smaller=(2, 3), arena=10),
         "full": Size(swiss=64, fours=37, fours_smaller=(7, 3), arena=30)}
SIZE = SIZES[os.environ.get("TTR_TEST_SCALE", "small")]
RUN_SECONDS = 600  # a whole tournament: tens of seconds when the machine is quiet; generous for a busy one
POLL_SECONDS = 0.2  # how often the people look for a new table: soon enough, and the test's own CPU stays small


@dataclass(frozen=True)
class Workers:
    logs: tuple[Path, ...]
    pids: tuple[int, ...]

    def cpu_seconds(self) -> float:
        """Their CPU time so far (all their threads), from /proc (0 where there is none: the figures only)."""
        ticks = 0
        for pid in self.pids:
            stat = Path(f"/proc/{pid}/stat")
            fields = stat.read_text().rsplit(")", 1)[1].split() if stat.exists() else ["0"] * 13
            ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def tail(self) -> str:
        return "\n".join(log.read_text()[-1500:] for log in self.logs)


@pytest.fixture(scope="module")
def workers(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    """The module's worker processes (each takes seconds to start: the tests share them)."""
    folder = tmp_path_factory.mktemp("workers")
    logs = tuple(folder / f"worker{n}.log" for n in range(WORKERS))
    with ExitStack() as stack:
        processes = [stack.enter_context(celery_worker(log)) for log in logs]
        yield Workers(logs, tuple(p.pid for p in processes))


@pytest.fixture
def worker(workers: Workers) -> Iterator[Workers]:
    """The workers, this test's tasks sent to them (the server tests' setup makes Celery eager for each test)."""
    eager, app.conf.task_always_eager = app.conf.task_always_eager, False
    yield workers
    app.conf.task_always_eager = eager


@dataclass(frozen=True)
class Person:
    """A registered account speaking HTTP with its own token, through a client the test's people share: each new
    APIClient loads the middleware, WhiteNoise's index of the static files included (~0.1 s of CPU apiece)."""

    http: APIClient
    username: str
    token: str
    user_id: int

    def post(self, path: str, data: dict[str, Any] | None = None) -> Any:
        return self.http.post(path, data or {}, format="json", HTTP_AUTHORIZATION=f"Token {self.token}")

    def get(self, path: str) -> Any:
        return self.http.get(path, HTTP_AUTHORIZATION=f"Token {self.token}")


def people(http: APIClient, prefix: str, count: int) -> list[Person]:
    """`count` people registered over HTTP."""
    tokens = {}
    for n in range(count):
        answer = http.post("/api/auth/register", {"username": f"{prefix}{n}", "password": PASSWORD}, format="json")
        assert answer.status_code == 201, answer.content
        tokens[f"{prefix}{n}"] = body(answer)["token"]
    ids = dict(User.objects.filter(username__in=tokens).values_list("username", "pk"))
    return [Person(http, username, token, ids[username]) for username, token in tokens.items()]


class Run:
    """One tournament driven as its people and beat would: created, joined over HTTP, started by beat's tick."""

    def __init__(self, owner: Person, entrants: list[Person], **fields: Any) -> None:
        self.owner, self.people = owner, entrants
        self.by_id = {person.user_id: person for person in entrants}
        made = owner.post("/api/tournaments", {
            "name": f"scale {fields['format']} of {len(entrants)}", "map": "usa", "speed": "live", "turn_seconds": 60,
            "ranked": False, "starts_at": (timezone.now() + timedelta(minutes=5)).isoformat(), **fields,
        })
        assert made.status_code == 201, made.content
        self.id: str = body(made)["id"]
        for person in entrants:
            assert body(person.post(f"/api/tournaments/{self.id}/join"))["joined"] is True
        self.resigned = 0

    def start(self) -> None:
        """Its start comes due and beat's tick starts it (round 1, or the arena's first pairing)."""
        Tournament.objects.filter(pk=self.id).update(starts_at=timezone.now())
        assert services.tick() >= 1

    def over(self) -> bool:
        return Tournament.objects.filter(pk=self.id, status=Tournament.Status.FINISHED).exists()

    def resign_started(self) -> int:
        """Each person resigns each of their tables that has started and that they have not left yet."""
        seats = list(Seat.objects.filter(
            game__tournament=self.id, game__status=Game.Status.ACTIVE, user__isnull=False, stand_in__isnull=True,
        ).values_list("game_id", "user_id"))
        for game_id, user_id in seats:
            answer = self.by_id[user_id].post(f"/api/games/{game_id}/resign")
            assert answer.status_code == 200, answer.content
        self.resigned += len(seats)
        return len(seats)

    def detail(self) -> dict[str, Any]:
        return body(self.owner.get(f"/api/tournaments/{self.id}"))  # type: ignore[no-any-return]

    def tables(self) -> list[Table]:
        return list(Table.objects.filter(tournament_id=self.id).order_by("round", "pk"))

    def check_the_end(self) -> dict[str, Any]:
        """What every format owes at its end: over, ranked 1..n with people only, each round seats a person once,
        verified fair, each game linked to it, and each person told once of its start, of each of their tables and of
        its end."""
        final = self.detail()
        assert final["status"] == "finished" and final["server_seed"]
        assert [row["rank"] for row in final["standings"]] == list(range(1, len(self.people) + 1))
        assert {row["username"] for row in final["standings"]} == {p.username for p in self.people}  # no bot in them
        tables = self.tables()
        assert tables and all(t.finished and t.places for t in tables)
        for number in {t.round for t in tables}:
            seated = [s for t in tables if t.round == number for s in t.seats if not is_bot(s)]
            assert len(seated) == len(set(seated)), f"round {number} seats someone twice"
        verdict = body(self.owner.get(f"/api/tournaments/{self.id}/verify"))
        assert verdict == {"ok": True, "fair": True, "head_hash": verdict["head_hash"], "problems": []}
        for table in tables:
            summary = body(self.owner.get(f"/api/games/{table.game_id}"))
            assert summary["tournament"] == {"id": self.id, "round": table.round} and summary["status"] == "finished"
        for person in self.people:
            told = [row for row in body(person.get("/api/notifications"))["results"]
                    if row.get("data", {}).get("tournament") == self.id]
            kinds = Counter(row["kind"] for row in told)
            assert kinds["tournament_starting"] == kinds["tournament_ended"] == 1, (person.username, kinds)
            at = sorted(row["game"] for row in told if row["kind"] == "tournament_table")
            assert at == sorted(str(t.game_id) for t in tables if str(person.user_id) in t.seats), person.username
        return final


def play_out(runs: Sequence[Run], worker: Workers, *, tick_every: float | None = None) -> None:
    """Until every run is over, their people resign each table of theirs as it starts (the fallback bot takes the
    seat, on a worker); `tick_every`: beat's tick that often (None: never)."""
    deadline, ticked = time.monotonic() + RUN_SECONDS, time.monotonic()
    while not all(run.over() for run in runs):
        assert time.monotonic() < deadline, f"not over within {RUN_SECONDS} s: {worker.tail()}"
        resigned = sum(run.resign_started() for run in runs)
        if tick_every is not None and time.monotonic() - ticked >= tick_every:
            services.tick()
            ticked = time.monotonic()
        if not resigned:
            time.sleep(POLL_SECONDS)


@dataclass
class Figures:
    """Where a test's time went (printed with -s, and on a failure): wall and CPU by phase, the games and moves."""

    worker: Workers
    marks: list[tuple[str, float, float, float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.mark("begin")

    def mark(self, phase: str) -> None:
        """The end of `phase`: the clock, this process's CPU, the workers' CPU, PostgreSQL's busy time."""
        self.marks.append((phase, time.monotonic(), time.process_time(), self.worker.cpu_seconds(), db_busy_seconds()))

    def report(self, what: str, runs: Sequence[Run]) -> str:
        games = list(Table.objects.filter(tournament_id__in=[r.id for r in runs]).values_list("game_id", flat=True))
        moves = Event.objects.filter(game_id__in=games).exclude(reason="").count()
        lines = [f"{what}: {len(games)} games, {moves} bot moves, {sum(r.resigned for r in runs)} seats resigned"]
        for (_, *before), (phase, *after) in pairwise(self.marks):
            wall, test, workers, db = (b - a for a, b in zip(before, after, strict=True))
            lines.append(f"  {phase}: {wall:.1f} s; CPU: test {test:.1f} s, workers {workers:.1f} s;"
                         f" PostgreSQL busy {db:.1f} s")
        return "\n".join(lines)


def db_busy_seconds() -> float:
    """The time PostgreSQL's backends spent running statements in the test database so far (its statistics)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT active_time FROM pg_stat_database WHERE datname = current_database()")
        row = cursor.fetchone()
    return float(row[0] or 0) / 1000 if row else 0.0


def is_bot(seat: str) -> bool:
    return seat.startswith("bot:")


def meetings(tables: list[Table]) -> Counter[frozenset[str]]:
    met: Counter[frozenset[str]] = Counter()
    for table in tables:
        met.update(frozenset(pair) for pair in combinations([s for s in table.seats if not is_bot(s)], 2))
    return met


def games_played(tables: list[Table]) -> Counter[str]:
    return Counter(s for t in tables for s in t.seats if not is_bot(s))


def test_a_swiss_at_tables_of_two_plays_two_rounds_on_the_workers_and_nobody_meets_anyone_twice(
    worker: Workers,
) -> None:
    n = SIZE.swiss
    figures, http = Figures(worker), APIClient()
    owner, *entrants = people(http, "s", n + 1)
    run = Run(owner, entrants, format="swiss", table_size=2, rounds=2, bots_fill=False)
    figures.mark(f"{n} people registered and joined over HTTP")
    run.start()
    play_out([run], worker)
    figures.mark("played out (started by a tick, round 2 paired on a worker)")
    final = run.check_the_end()
    assert final["round"] == 2 and all(row["games"] == 2 for row in final["standings"])
    tables = run.tables()
    assert len(tables) == n and all(len(t.seats) == 2 and not any(map(is_bot, t.seats)) for t in tables)
    assert set(games_played(tables).values()) == {2}
    assert max(meetings(tables).values()) == 1  # n (even, above 2) at 2 over two rounds: no repeat is ever forced
    figures.mark("checked")
    print(figures.report(f"Swiss of {n} at 2, two rounds", [run]))


def test_two_swisses_of_the_same_people_at_tables_of_four_seat_everyone_each_round_and_repeat_no_one(
    worker: Workers,
) -> None:
    """n = 4k + 1 at 4 (T-PAIR-1): with bots filling, k tables of four and one person with three bots; with smaller
    tables, as few tables as four permits, as even as can be (17: two of 4 and three of 3; 37: seven of 4 and
    three of 3). The same n people play both at once. The first plays two rounds: nobody need meet anyone twice, so
    nobody does (T-PAIR-3). The second plays one: its tables of three through the workers and its verdict are what
    it adds, and a second round would add a fifth of the file's moves."""
    n, (fours, threes) = SIZE.fours, SIZE.fours_smaller
    full = n // 4
    assert n == 4 * full + 1 and 4 * fours + 3 * threes == n
    figures, http = Figures(worker), APIClient()
    owner, *entrants = people(http, "f", n + 1)
    filled = Run(owner, entrants, format="swiss", table_size=4, rounds=2, bots_fill=True)
    smaller = Run(owner, entrants, format="swiss", table_size=4, rounds=1, smaller_tables=True)
    figures.mark(f"{n} people registered, each joined both")
    filled.start()
    smaller.start()
    play_out([filled, smaller], worker)
    figures.mark("both played out")
    for run, rounds, people_at, bots_at in (
        (filled, 2, [1] + [4] * full, [0] * full + [3]),
        (smaller, 1, [3] * threes + [4] * fours, [0] * (fours + threes)),
    ):
        final = run.check_the_end()
        assert final["round"] == rounds and all(row["games"] == rounds for row in final["standings"])
        tables = run.tables()
        for number in range(1, rounds + 1):
            seats = [t.seats for t in tables if t.round == number]
            assert sorted(sum(not is_bot(s) for s in seated) for seated in seats) == people_at
            assert sorted(sum(map(is_bot, seated)) for seated in seats) == bots_at
        assert set(games_played(tables).values()) == {rounds}
        assert max(meetings(tables).values()) == 1
    figures.mark("checked")
    print(figures.report(f"two Swisses of {n} at 4: bots fill (two rounds), smaller tables (one)", [filled, smaller]))


def test_an_arena_pairs_its_pool_again_and_again_until_its_window_ends_and_its_last_games_finish(
    worker: Workers,
) -> None:
    """An arena of ten minutes at tables of two: everyone is seated at its start (n / 2 tables); as each game ends
    its people go back to the pool and are seated again, never with their last opponent. Once a second pairing has
    seated someone the test ends the window (its start moved ten minutes back, as that much time would) and ticks
    at beat's interval; the games under way finish, and the last of them to be scored ends the arena (on a worker,
    unless a tick comes first)."""
    n = SIZE.arena
    figures, http = Figures(worker), APIClient()
    owner, *entrants = people(http, "a", n + 1)
    run = Run(owner, entrants, format="arena", table_size=2, minutes=10)
    figures.mark(f"{n} people registered and joined over HTTP")
    run.start()
    assert len(run.tables()) == n // 2
    deadline = time.monotonic() + RUN_SECONDS
    while not Table.objects.filter(tournament_id=run.id, round__gte=2).exists():
        assert time.monotonic() < deadline, worker.tail()
        if not run.resign_started():
            time.sleep(POLL_SECONDS)
    Tournament.objects.filter(pk=run.id).update(starts_at=timezone.now() - timedelta(minutes=10))
    play_out([run], worker, tick_every=settings.TTR_TOURNAMENT_SECONDS)
    figures.mark("played out (paired again on a worker, the window ended by the test)")
    final = run.check_the_end()
    tables = run.tables()
    played = games_played(tables)
    assert {row["username"]: row["games"] for row in final["standings"]} == {
        p.username: played[str(p.user_id)] for p in run.people
    }
    assert min(played.values()) >= 1 and max(played.values()) >= 2 and final["round"] >= 2
    times = dict(Game.objects.filter(tournament=run.id).values_list("pk", "started_at"))
    ended = dict(Game.objects.filter(tournament=run.id).values_list("pk", "finished_at"))
    for person in played:
        for before, after in pairwise(t for t in tables if person in t.seats):
            assert not (set(before.seats) & set(after.seats)) - {person}, (person, before.seats, after.seats)
            finished, started = ended[before.game_id], times[after.game_id]
            assert finished and started and finished <= started  # one table at a time
    figures.mark("checked")
    print(figures.report(f"arena of {n} at 2", [run]))
