"""The queue on the production layout: `.venv/bin/python bench/by_day.py [--tables 100] [--size 2] [--bulk 10000]`.

Starts what docker-compose runs (ttr_server/stack.py through bench/fault_stack/harness.py: its own Redis, a scratch
PostgreSQL database, a web process, the workers and beat) and measures:

- `told`: for `--tables` tables, one after the other, `--size` people each with their socket (`/ws/me/`) open join
  the queue with the same choices; the figure is the time from the answer to the last join (the last seat filled)
  until every member's socket has its `game_formed` notification (the worker forms the table and starts the game
  in between): p50, p99, max.
- `bulk`: `--bulk` rows put straight into the queue table (mixed maps, speeds, ranked, sizes, ratings, joined
  over the last 10 minutes), then one matchmaker run in the worker's code (games.lobby.matchmaker.run, in this process
  on the stack's database): the seconds to read the rows and to form the tables (the rule of games/lobby/pairing.py),
  the CPU of both, and the seconds to seat every table (lock its rows, create and start its game, notify). The
  stack's own worker runs the matchmaker meanwhile too (beat, every 2 s), as it would in production: the two
  runs share the tables (a table whose rows the other run took is skipped), so `games_started_here` is this
  run's share and `players_matched_by_every_run` counts everyone seated.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from bench.fault_stack.harness import Harness, harness  # noqa: E402
from bench.traffic.client import register_users  # noqa: E402
from bench.traffic.recorder import Recorder  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)


def told(h: Harness, tables: int, size: int) -> dict[str, Any]:
    url = h.urls[0]
    users = register_users([url], tables * size, Recorder(), prefix="queue")
    ws = url.replace("http://", "ws://")
    latencies: list[float] = []
    with httpx.Client(base_url=url, timeout=30) as http:
        for table in range(tables):
            members = users[table * size : (table + 1) * size]
            sockets = [connect(f"{ws}/ws/me/?token={token}", open_timeout=10).__enter__() for _, token in members]
            for socket in sockets:
                json.loads(socket.recv(timeout=10))  # hello
            choice = {"map": "europe", "players": [size], "ranked": False, "speed": "daily"}
            for _, token in members:
                answer = http.post("/api/queue", json=choice, headers={"Authorization": f"Token {token}"})
                assert answer.status_code == 201, answer.text
            filled = time.perf_counter()
            last = filled
            for socket in sockets:
                while True:
                    message = json.loads(socket.recv(timeout=10))
                    if message.get("kind") == "game_formed":
                        last = max(last, time.perf_counter())
                        break
                socket.close()
            latencies.append(last - filled)
    return {
        "phase": "told", "tables": tables, "size": size, "p50_ms": _pct(latencies, 0.5), "p99_ms": _pct(latencies, 0.99),
        "max_ms": round(max(latencies) * 1000, 1),
    }


def bulk(h: Harness, count: int) -> dict[str, Any]:
    """Put `count` rows in the queue and time one run of the matchmaker on them (in this process)."""
    os.environ.update(h.env)
    os.environ["DJANGO_SETTINGS_MODULE"] = "ttr_server.settings"
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.utils import timezone

    from games.lobby import matchmaker, pairing
    from games.lobby.models import QueueEntry

    rng = random.Random(1)
    password = make_password(None)
    users = get_user_model().objects.bulk_create(
        [get_user_model()(username=f"bulk{n}", password=password) for n in range(count)], batch_size=2000
    )
    now = timezone.now()
    QueueEntry.objects.bulk_create(
        [
            QueueEntry(
                user=user, map=rng.choice(["europe", "usa"]), counts=sorted(rng.sample([2, 3, 4, 5], rng.randint(1, 3))),
                ranked=rng.random() < 0.5, speed=rng.choice(["live", "daily"]), bots_after=rng.choice([None, None, 300]),
                rating=rng.uniform(0, 40), since=now - timezone.timedelta(seconds=rng.uniform(0, 600)),
            )
            for user in users
        ],
        batch_size=2000,
    )
    started = time.perf_counter()
    cpu = time.process_time()
    waiting = [matchmaker._waiting(row) for row in QueueEntry.objects.filter(status="waiting")]  # as a run reads
    read = time.perf_counter()
    tables = pairing.form_tables(waiting, now.timestamp())
    formed = time.perf_counter()
    form_cpu = time.process_time() - cpu
    games_started = time.perf_counter()
    games = matchmaker.run(now=now)
    done = time.perf_counter()
    time.sleep(2)  # the notices sent after the commits go out before the stack (and its Redis) stops
    matched = QueueEntry.objects.filter(status="matched").count()
    return {
        "phase": "bulk", "queued": count, "read_s": round(read - started, 3),
        "form_tables_s": round(formed - read, 3), "form_and_read_cpu_s": round(form_cpu, 3), "tables": len(tables),
        "seated": sum(len(t.members) for t in tables), "games_started_here": len(games),
        "players_matched_by_every_run": matched,
        "start_games_s": round(done - games_started, 2),
        "games_per_s": round(len(games) / max(done - games_started, 1e-9), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--size", type=int, default=2)
    parser.add_argument("--bulk", type=int, default=10000, help="rows for the bulk run (0: none)")
    args = parser.parse_args()
    report: dict[str, Any] = {"date": datetime.now().isoformat(timespec="minutes"), "args": vars(args)}
    extra = {"AUTH_THROTTLE_RATE": "100000/min"}
    with harness(f"ttr_queue_{os.getpid()}", web=1, extra_env=extra) as h:
        if args.tables:
            print(json.dumps(told(h, args.tables, args.size)), flush=True)
        if args.bulk:
            print(json.dumps(bulk(h, args.bulk)), flush=True)
        report["server_errors_in_logs"] = len(h.server_errors())
    print(json.dumps(report))


if __name__ == "__main__":
    main()
