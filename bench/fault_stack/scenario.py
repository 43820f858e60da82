"""Games played on the production layout while it is broken, one fault after another, then every promise checked.

`run(harness, ...)` plays games with scripted people (HTTP and socket) and bots through the real workers
(bench/traffic/) and, meanwhile, injects each fault of `faults` in turn, `gap` seconds apart:

- `strong_worker_killed`: the strong bot's worker SIGKILLed (its search is lost with it).
- `worker_killed_while_scoring`: the default queue's worker stopped (SIGSTOP) until a game has ended and waits for
  its score (45 s at most), then SIGKILLed: the scoring task it held is lost with it.
- `worker_terminated`: the default queue's worker given SIGTERM (a warm shutdown: it finishes its task).
- `redis_restarted`: Redis killed and started again a second later, empty (queued tasks, presence, subscriptions
  gone).
- `web_killed`: a web process SIGKILLed with its sockets open (clients reconnect to another one).
- `db_connections_terminated`: every app connection to PostgreSQL cut by the server (`pg_terminate_backend`).
- `beat_restarted`: beat SIGKILLed.
- `database_refused`: no new connection for 3 s (requests wait for the pool, DB_POOL_TIMEOUT, and go on; a
  longer outage answers 503, which `tolerate` then allows).

The stack starts every killed process again, as compose's restart policy does. Then `problems()` lists
everything that broke a promise: a game that did not finish, verify, or was scored other than once; a gap or
duplicate seq; a move a client was told succeeded that is not in the log; any 5xx answer (503 only where the
caller tolerates them); any hidden card or ticket in anything received by a seat that may not see it;
a 500 in any process's log; `recompute_ratings --check` failing.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.fault_stack.harness import Harness
from bench.traffic.checks import check_games
from bench.traffic.play import play_games
from bench.traffic.recorder import Recorder
from bench.traffic.records import GameRecord

FAULTS = (  # the worker stopped while a score waits comes last: by then games are ending
    "strong_worker_killed", "redis_restarted", "web_killed", "db_connections_terminated", "database_refused",
    "beat_restarted", "worker_terminated", "worker_killed_while_scoring",
)


@dataclass
class Report:
    records: list[GameRecord]
    recorder: Recorder
    injected: list[dict[str, Any]]
    seconds: float
    problems: list[str] = field(default_factory=list)


def _unscored(h: Harness) -> int:
    return int(h.query("SELECT count(*) FROM games_game WHERE status = 'finished' AND scored_at IS NULL")[0][0])


def _finished(h: Harness) -> int:
    return int(h.query("SELECT count(*) FROM games_game WHERE status = 'finished'")[0][0])


def strong_worker_killed(h: Harness) -> str:
    h.stack.kill("worker-strong-0")
    return "SIGKILL worker-strong-0"


def worker_killed_while_scoring(h: Harness, wait: float = 45.0) -> str:
    h.stack.signal("worker-0", signal.SIGSTOP)
    finished = _finished(h)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and _finished(h) == finished:
        time.sleep(0.1)
    held = "a game ended and waits for its score" if _unscored(h) else "no game ended meanwhile"
    h.stack.kill("worker-0")  # SIGKILL reaches a stopped process
    return f"SIGSTOP then SIGKILL worker-0 ({held})"


def worker_terminated(h: Harness) -> str:
    h.stack.signal("worker-0", signal.SIGTERM)
    return "SIGTERM worker-0"


def redis_restarted(h: Harness) -> str:
    h.redis.restart(down_seconds=1.0)
    return "Redis killed, back 1 s later, empty"


def web_killed(h: Harness) -> str:
    name = list(h.stack.children)[len(h.urls) - 1]  # the last web process
    h.stack.kill(name)
    return f"SIGKILL {name}"


def db_connections_terminated(h: Harness) -> str:
    return f"pg_terminate_backend: {h.terminate_connections()} connections"


def beat_restarted(h: Harness) -> str:
    h.stack.kill("beat")
    return "SIGKILL beat"


def database_refused(h: Harness) -> str:
    h.refuse_connections(3.0)
    return "database refused connections for 3 s"


INJECT: dict[str, Callable[[Harness], str]] = {
    "strong_worker_killed": strong_worker_killed,
    "worker_killed_while_scoring": worker_killed_while_scoring,
    "worker_terminated": worker_terminated,
    "redis_restarted": redis_restarted,
    "web_killed": web_killed,
    "db_connections_terminated": db_connections_terminated,
    "beat_restarted": beat_restarted,
    "database_refused": database_refused,
}


def run(
    h: Harness, *, games: int, seed: int, faults: Sequence[str] = FAULTS, gap: float = 4.0, first_after: float = 3.0,
    scoring_wait: float = 45.0, tolerate: Sequence[int] = (), **play: Any,
) -> Report:
    """`scoring_wait`: how long the stopped worker waits for a game to end (longer games need longer);
    `tolerate`: statuses that are not problems (503 when the database is kept away longer than the pool waits)."""
    recorder = Recorder()
    outcome: dict[str, Any] = {}

    def players() -> None:
        try:
            outcome["records"] = play_games(h.urls, games, seed=seed, recorder=recorder, **play)
        except BaseException as error:  # reported below, not lost in the thread
            outcome["error"] = error

    started = time.monotonic()
    thread = threading.Thread(target=players, name="players")
    thread.start()
    injected = []
    time.sleep(first_after)
    for fault in faults:
        if not thread.is_alive():
            injected.append({"fault": fault, "skipped": "every game had ended"})
            continue
        at = time.monotonic() - started
        inject = INJECT[fault]
        what = worker_killed_while_scoring(h, scoring_wait) if inject is worker_killed_while_scoring else inject(h)
        injected.append({"fault": fault, "at_s": round(at, 1), "what": what})
        time.sleep(gap)
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    report = Report(outcome["records"], recorder, injected, time.monotonic() - started)
    report.problems = problems(h, report, tolerate=tolerate)
    return report


def problems(h: Harness, report: Report, tolerate: Sequence[int] = ()) -> list[str]:
    h.stack.wait_ready()
    found = check_games(h.urls[0], report.records, report.recorder, tolerate_statuses=tolerate)
    found += [f"a 500 in the logs: {line}" for line in h.server_errors()]
    ratings = h.manage("recompute_ratings", "--check")
    if ratings.returncode != 0:
        found.append(f"recompute_ratings --check: {ratings.stdout[-500:]} {ratings.stderr[-500:]}")
    found += [f"game {game} scored {count} times" for game, count in scored_apart_from_once(h)]
    return found


SCORED_WITHIN = 300.0  # a lost scoring task is queued again by the sweep; on a loaded machine that takes a while


def scored_apart_from_once(h: Harness, seconds: float = SCORED_WITHIN) -> list[tuple[Any, ...]]:
    """(game, times) of each finished game not scored exactly once (`game_scored` events), once none is left
    unscored or `seconds` have passed: a game whose scoring task died with its worker (or with a failed-over
    database or Redis) is scored when the sweep queues it again, which a loaded machine may delay. The fault suite
    and both failover drills ask this."""
    deadline = time.monotonic() + seconds
    while True:
        counts = h.query(
            "SELECT g.id, count(e.seq) FROM games_game g LEFT JOIN games_event e ON e.game_id = g.id"
            " AND e.type = 'game_scored' WHERE g.status = 'finished' GROUP BY g.id HAVING count(e.seq) <> 1"
        )
        if all(count > 1 for _, count in counts) or time.monotonic() > deadline:
            return counts
        time.sleep(0.5)
