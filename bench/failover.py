"""PostgreSQL failover under load: `.venv/bin/python bench/failover.py [--games 100] [--kill-after 30] [--json F]`.

Every process is the drill's own, on loopback: a PostgreSQL primary and its synchronous streaming standby made with
`initdb` and `pg_basebackup` (bench/fault_stack/postgres_cluster.py: `synchronous_commit = remote_apply`, so a move
answered 201 is applied on both), and the production layout on them (bench/fault_stack/harness.py: web processes,
workers, beat, a Redis of its own) connecting with the multi-host URL
`postgres://postgres@127.0.0.1:P1,127.0.0.1:P2/<db>?target_session_attrs=read-write`. `--games` ranked games of
people (HTTP and sockets) and bots (bench/traffic/) play; `--kill-after` seconds after the first acknowledged move
the primary is SIGKILLed (postmaster and every backend), `--promote-after` seconds later the standby is promoted
(`pg_ctl promote`: what an operator or a failover manager does), and play goes on to the end of every game.

Figures: the seconds without writes (in the new primary's log, by commit time: the last event committed before the
kill to the first after it), the kill to the first move acknowledged to a client after the promotion, the longest
pause between acknowledged moves, every answer by status during the gap (the kill to that first acknowledged move)
and over the run, a probe's answers during the gap (each 503 must carry Retry-After), the acknowledged moves and
how many of them are missing from the new primary's log (read there directly), the games finished and verified
(bench/traffic/'s `check_games`: /verify, the audit's chain, every acknowledged move at its seq, every event
received), games scored other than once, 500s in any process's log, and `recompute_ratings --check` (the ratings
equal a recomputation from the games).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fault_stack.harness import Harness, harness  # noqa: E402
from bench.fault_stack.postgres_cluster import PostgresCluster, postgres_cluster, query  # noqa: E402
from bench.fault_stack.scenario import scored_apart_from_once  # noqa: E402
from bench.traffic.checks import check_games  # noqa: E402
from bench.traffic.play import play_games  # noqa: E402
from bench.traffic.recorder import Ack, Recorder  # noqa: E402
from bench.traffic.records import GameRecord  # noqa: E402


class TimedRecorder(Recorder):
    """A Recorder that also keeps when each HTTP status was seen (for the answers during the gap)."""

    def __init__(self, *, keep_bodies: bool = True) -> None:
        super().__init__(keep_bodies=keep_bodies)
        self.timed: list[tuple[float, int]] = []

    def status(self, code: int, method: str, url: str, body: str) -> None:
        super().status(code, method, url, body)
        with self._lock:
            self.timed.append((time.time(), code))


@dataclass
class Probe:
    """GETs the leaderboard (a database read for anyone) on every web process every `every` seconds while running:
    statuses, and the 503s that came without Retry-After."""

    urls: list[str]
    every: float = 0.2
    statuses: Counter[int] = field(default_factory=Counter)
    without_retry_after: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="probe", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        import httpx

        with httpx.Client(timeout=30, trust_env=False) as client:
            while not self._stop.is_set():
                for url in self.urls:
                    try:
                        answer = client.get(f"{url}/api/leaderboard", params={"map": "europe"})
                    except httpx.HTTPError as error:
                        self.errors[type(error).__name__] += 1
                        continue
                    self.statuses[answer.status_code] += 1
                    if answer.status_code == 503 and "Retry-After" not in answer.headers:
                        self.without_retry_after += 1
                self._stop.wait(self.every)


def lost_acks(cluster: PostgresCluster, database: str, acks: list[Ack]) -> list[str]:
    """The acknowledged moves the new primary's log does not reach: a game whose last seq there is below the seq a
    client was told (`check_games` then checks each is the mover's own move at its place)."""
    last = {
        str(row["game_id"]): row["last"]
        for row in query(cluster.standby.url(database), "SELECT game_id, max(seq) AS last FROM games_event GROUP BY game_id")
    }
    return [f"{a.game} seat {a.seat} seq {a.seq} ({a.path})" for a in acks if last.get(a.game, 0) < a.seq]


def write_gap(cluster: PostgresCluster, database: str, killed_at: float) -> tuple[float | None, float | None]:
    """The longest pause between consecutive commits (track_commit_timestamp) of events in the new primary's log
    from 5 s before the kill on: its start and end (the kill itself takes a moment: the last commits of the old
    primary can fall just after `killed_at`)."""
    row = query(
        cluster.standby.url(database),
        "WITH t AS (SELECT DISTINCT extract(epoch FROM pg_xact_commit_timestamp(xmin))::float AS at FROM games_event),"
        " w AS (SELECT lag(at) OVER (ORDER BY at) AS before, at FROM t WHERE at >= %s)"
        " SELECT before, at FROM w WHERE before IS NOT NULL ORDER BY at - before DESC LIMIT 1",
        killed_at - 5,
    )
    return (row[0]["before"], row[0]["at"]) if row else (None, None)



def log(message: str) -> None:
    print(f"{datetime.now():%H:%M:%S} {message}", file=sys.stderr, flush=True)


def drill(
    games: int, *, web: int = 2, kill_after: float = 30.0, promote_after: float = 10.0,
    think: tuple[float, float] = (0.5, 2.0), seed: int = 1, users: int = 40, human_share: float = 0.5,
    strong_share: float = 0.1, threads: int | None = None, name: str | None = None,
    extra_env: dict[str, str] | None = None, **play: Any,
) -> dict[str, Any]:
    """The drill (see the module's docstring); its figures, `problems` empty when every promise held. `extra_env`
    goes to the stack; `play`, to `play_games` (players, socket_share, bot_levels, stall_seconds...)."""
    database = name or f"ttr_failover_{os.getpid()}"
    with postgres_cluster() as cluster:
        extra = {
            "DATABASE_URL": cluster.multi_host_url(database, connect_timeout="3"),
            "AUTH_THROTTLE_RATE": "100000/min", "TTR_MAX_LIVE_GAMES": "100000", **(extra_env or {}),
        }
        with harness(database, web=web, admin_url=cluster.admin_url(), extra_env=extra) as h:
            return _under_load(h, cluster, database, games=games, kill_after=kill_after, promote_after=promote_after,
                               think=think, seed=seed, users=users, human_share=human_share, strong_share=strong_share,
                               threads=threads, play=play)
    raise AssertionError("unreachable")  # mypy: the with blocks return


def _under_load(h: Harness, cluster: PostgresCluster, database: str, *, games: int, kill_after: float,
                promote_after: float, think: tuple[float, float], seed: int, users: int, human_share: float,
                strong_share: float, threads: int | None, play: dict[str, Any]) -> dict[str, Any]:
    recorder = TimedRecorder()
    outcome: dict[str, Any] = {}

    def players() -> None:
        try:
            outcome["records"] = play_games(h.urls, games, recorder=recorder, **{
                "seed": seed, "think": think, "human_share": human_share, "strong_share": strong_share, "users": users,
                "threads": threads, "stall_seconds": 600, "score_seconds": 600, **play,
            })
        except BaseException as error:  # reported below, not lost in the thread
            outcome["error"] = error

    started = time.time()
    log("stack up; playing")
    thread = threading.Thread(target=players, name="players")
    thread.start()
    while not recorder.acks and thread.is_alive():
        time.sleep(0.1)
    first_ack = time.time()
    while time.time() < first_ack + kill_after and thread.is_alive():
        time.sleep(0.1)
    if not thread.is_alive():
        raise RuntimeError(f"every game ended before the kill: {outcome.get('error')}")
    before = cluster.replication()
    log(f"{len(recorder.acks)} moves acknowledged; the primary is killed now: {before}")
    probe = Probe(h.urls)
    probe.start()
    killed_at = time.time()
    killed = cluster.kill_primary()
    time.sleep(promote_after)
    promote_seconds = cluster.promote()
    promoted_at = time.time()
    log(f"standby promoted in {promote_seconds:.2f} s")
    while not [a for a in recorder.acks if a.at > promoted_at] and time.time() < promoted_at + 120:
        time.sleep(0.05)
    time.sleep(3)  # a few seconds of the probe after the first write
    probe.stop()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    records: list[GameRecord] = outcome["records"]
    log(f"play ended: {sum(1 for r in records if r.finished)}/{len(records)} finished; checking")
    ended = time.time()

    acks = sorted(recorder.acks, key=lambda a: a.at)
    resumed = next((a.at for a in acks if a.at > promoted_at), None)
    pauses = [b.at - a.at for a, b in itertools.pairwise(acks)]
    gap_end = resumed if resumed is not None else ended
    during = Counter(code for at, code in recorder.timed if killed_at <= at <= gap_end)
    overall = Counter(code for _, code in recorder.timed)

    h.stack.wait_ready()
    stats: dict[str, int] = {}
    problems = check_games(h.urls[0], records, recorder, tolerate_statuses=(503,), stats=stats)
    problems += [f"a 500 in the logs: {line}" for line in h.server_errors()]
    lost = lost_acks(cluster, database, acks)
    last_write, first_write = write_gap(cluster, database, killed_at)
    problems += [f"acknowledged move lost: {line}" for line in lost]
    scored = scored_apart_from_once(h)
    problems += [f"game {game} scored {count} times" for game, count in scored]
    ratings = h.manage("recompute_ratings", "--check")
    if ratings.returncode != 0:
        problems.append(f"recompute_ratings --check: {ratings.stdout[-500:]} {ratings.stderr[-500:]}")
    if probe.without_retry_after:
        problems.append(f"{probe.without_retry_after} answers 503 without Retry-After")
    if overall.get(500) or during.get(500):
        problems.append(f"{overall.get(500, 0)} answers 500")
    return {
        "games": len(records), "finished": sum(1 for r in records if r.finished),
        "verified": stats.get("games", 0),
        "seconds": round(ended - started, 1),
        "primary_killed_at_s": round(killed_at - started, 1), "processes_killed": len(killed),
        "replication_before_kill": before,
        "promote_after_s": promote_after, "promote_seconds": round(promote_seconds, 2),
        "seconds_without_writes": round(first_write - last_write, 2) if first_write and last_write else None,
        "kill_to_first_write_s": round(first_write - killed_at, 2) if first_write else None,  # the longest pause's end
        "kill_to_first_ack_after_promotion_s": round(gap_end - killed_at, 2),
        "longest_pause_between_acks_s": round(max(pauses, default=0.0), 2),
        "answers_during_gap": dict(sorted(during.items())),
        "answers_overall": dict(sorted(overall.items())),
        "probe_during_gap": {"statuses": dict(sorted(probe.statuses.items())), "transport_errors": dict(probe.errors),
                             "503_without_retry_after": probe.without_retry_after},
        "acknowledged_moves": len(acks), "acknowledged_after_failover": sum(1 for a in acks if a.at > killed_at),
        "acknowledged_moves_lost": len(lost),
        "checked": stats,
        "scored_other_than_once": len(scored),
        "recompute_ratings_check": ratings.returncode == 0,
        "counters": dict(recorder.tallies()[2]),
        "problems": len(problems), "problem_examples": problems[:10],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--web", type=int, default=2)
    parser.add_argument("--kill-after", type=float, default=30.0, help="seconds after the first acknowledged move")
    parser.add_argument("--promote-after", type=float, default=10.0, help="seconds from the kill to the promotion")
    parser.add_argument("--think", type=float, nargs=2, default=[0.5, 2.0], metavar=("MIN", "MAX"))
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--human-share", type=float, default=0.5)
    parser.add_argument("--strong-share", type=float, default=0.1)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    report = {
        "date": datetime.now().isoformat(timespec="minutes"), "args": vars(args) | {"json": None},
        **drill(args.games, web=args.web, kill_after=args.kill_after, promote_after=args.promote_after,
                think=(args.think[0], args.think[1]), seed=args.seed, users=args.users, human_share=args.human_share,
                strong_share=args.strong_share, threads=args.threads),
    }
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    print(json.dumps(report, default=str))
    sys.exit(1 if report["problems"] else 0)


if __name__ == "__main__":
    main()
