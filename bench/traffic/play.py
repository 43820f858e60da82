"""`play_games`: games created on live web processes and played to the end by scripted people and bots, on a
bounded pool of driver threads (`Driver`: an event loop over its tables and their people; see the package's
docstring)."""

from __future__ import annotations

import contextlib
import heapq
import itertools
import random
import secrets
import threading
import time
import traceback
from collections.abc import Callable, Sequence

from bench.traffic.actor import Actor
from bench.traffic.client import Http, Unreachable, register_users
from bench.traffic.recorder import Recorder
from bench.traffic.records import GameRecord, SeatInfo
from bench.traffic.table import Table


class Driver(threading.Thread):
    """One thread: an event loop over its tables and their people (see the package's docstring)."""

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
