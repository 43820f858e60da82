"""How soon a bot answers a human: the time from a human's move to the bot's first event.

    .venv/bin/python bench/bot_latency.py [--stack embedded|redis|both] [--level greedy] [--turns 200]
                                          [--idle-seconds 10] [--redis-db 9] [--seed 1] [--json]

`--stack embedded` (the default) starts the server exactly as `make run` does (bench/live/embedded.py:
`manage.py runall` in a temporary var dir, SQLite, the filesystem broker, a real Celery worker). `--stack
redis` starts a production-like stack instead (bench/live/production.py `production_stack()`: a fresh PostgreSQL
database, migrated and dropped at the end; Redis db `--redis-db`, flushed, as channel layer and broker; one
uvicorn web process; one Celery worker, solo pool, on a queue of its own). `--stack both` measures the Redis
stack then the embedded one in the same run, and prints the ratio of their figures (this machine is shared
and noisy: a ratio taken in one run is steadier than two runs' figures).

On each stack it first measures the CPU the idle worker uses, then plays 2-seat Europe games through the HTTP
API as a human (random legal moves) against a `--level` bot until the human has handed the turn to the bot
`--turns` times. For each of those moves it takes, from `GET /events`, the `at` of the human's move and of
the bot's first event after it: both are written by the server's clock as each move is appended, so the
difference is exact (it includes the human's commit, the task's trip through the broker, the worker's
reading of the game and the bot's own move up to its append). Prints p50/p90/p99/max and the count. The
issue's target for the Redis stack: p50 under 50 ms, p99 under 200 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bench.live.api_client import client, my_decision  # noqa: E402
from bench.live.embedded import LiveServer, embedded_server  # noqa: E402
from bench.live.production import production_stack  # noqa: E402

POLL_SECONDS = 0.05  # the human's polling: gentle, the web process shares the cores with the worker
STACKS = ("embedded", "redis")
TARGET_MS = {"p50_ms": 50.0, "p99_ms": 200.0}  # the issue's, for the Redis stack


def idle_cpu(server: LiveServer, seconds: float) -> float:
    """The worker's CPU time over `seconds` of idleness, as a share of one core."""
    stat = Path(f"/proc/{server.bot_worker()}/stat")
    ticks = os.sysconf("SC_CLK_TCK")

    def used() -> float:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime

    time.sleep(8)  # let it finish starting up (imports, migrations check, the first sweeps)
    before, started = used(), time.monotonic()
    time.sleep(seconds)
    return (used() - before) / (time.monotonic() - started)


def play(human: httpx.Client, rng: random.Random, turns: int, level: str = "random") -> list[float]:
    """Play games against a `level` bot until the human has handed it the turn `turns` times; the latencies."""
    latencies: list[float] = []
    while len(latencies) < turns:
        game = human.post("/games", json={"map": "europe", "players": 2}).json()["id"]
        human.post(f"/games/{game}/start", json={"fill_with_bots": level}).raise_for_status()
        handed: list[int] = []  # seqs of the human's moves that ended the human's turn
        while len(latencies) + len(handed) < turns and my_decision(human, game, poll=POLL_SECONDS) is not None:
            legal = human.get(f"/games/{game}/legal-moves").json()
            answer = human.post(
                f"/games/{game}/moves", json={"expected_seq": legal["seq"], "move": rng.choice(legal["moves"])}
            )
            answer.raise_for_status()
            if hands_over(answer.json()["events"]):
                handed.append(answer.json()["seq"])
        my_decision(human, game, poll=POLL_SECONDS)  # the bot's answer to the last move is in the log
        latencies += answer_times(human, game, handed)
    return latencies[:turns]


def hands_over(events: list[dict[str, Any]]) -> bool:
    """The move ended the human's turn and not the game: the bot moves next."""
    types = {e["type"] for e in events}
    return "game_ended" not in types and any(e["type"] == "turn_ended" and e["data"]["next_seat"] != 0 for e in events)


def answer_times(human: httpx.Client, game: str, handed: list[int]) -> list[float]:
    events = {e["seq"]: e for e in human.get(f"/games/{game}/events", params={"after": 0}).json()["events"]}
    return [
        (datetime.fromisoformat(events[seq + 1]["at"]) - datetime.fromisoformat(events[seq]["at"])).total_seconds()
        for seq in handed
        if seq + 1 in events
    ]


def log_without_requests(server: LiveServer, chars: int = 8000) -> str:
    """The end of the server's logs, without uvicorn's line per request: the errors, the worker's tasks."""
    logs = sorted(server.var_dir.glob("*.log"))
    lines = [line for log in logs for line in log.read_text(errors="replace").splitlines() if ' HTTP/1.1" ' not in line]
    return "\n".join(lines)[-chars:]


def percentile(ordered: list[float], share: float) -> float:
    """The value below which `share` of the sorted sample lies (nearest rank, as p90 always was here)."""
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def measure(stack: str, args: argparse.Namespace) -> dict[str, Any]:
    """Start `stack`, measure its idle worker and its bot's answers; its figures."""
    started = time.monotonic()
    name = f"ttr_bench_{os.getpid()}"
    with production_stack(redis_db=args.redis_db, name=name) if stack == "redis" else embedded_server() as server:
        idle = idle_cpu(server, args.idle_seconds)
        human = client(server, "bench-human")
        try:
            latencies = sorted(play(human, random.Random(args.seed), args.turns, args.level))
        except (AssertionError, httpx.HTTPError) as error:  # a bot that never answered, a 500: say why
            raise SystemExit(f"{stack} stack: {error!r}\n{log_without_requests(server)}") from error
        finally:
            human.close()
    return {
        "stack": stack,
        "level": args.level,
        "count": len(latencies),
        "p50_ms": round(statistics.median(latencies) * 1e3, 1),
        "p90_ms": round(percentile(latencies, 0.9) * 1e3, 1),
        "p99_ms": round(percentile(latencies, 0.99) * 1e3, 1),
        "max_ms": round(latencies[-1] * 1e3, 1),
        "idle_worker_cpu_percent": round(idle * 100, 2),
        "wall_seconds": round(time.monotonic() - started, 1),
    }


def report(figures: dict[str, Any]) -> str:
    line = (
        f"{figures['stack']} stack, {figures['level']} bot: its first event after the human's move, "
        f"{figures['count']} moves: p50 {figures['p50_ms']} ms, p90 {figures['p90_ms']} ms, "
        f"p99 {figures['p99_ms']} ms, max {figures['max_ms']} ms; idle worker {figures['idle_worker_cpu_percent']} % "
        f"of one core"
    )
    if figures["stack"] == "redis":
        met = all(figures[key] < limit for key, limit in TARGET_MS.items())
        line += f"\n  target p50 < 50 ms, p99 < 200 ms: {'met' if met else 'NOT met'}"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stack", choices=(*STACKS, "both"), default="embedded")
    parser.add_argument("--level", default="greedy", help="the bot's level (fill_with_bots)")
    parser.add_argument("--turns", type=int, default=200, help="human moves handing the turn to the bot")
    parser.add_argument("--idle-seconds", type=float, default=10)
    parser.add_argument("--redis-db", type=int, default=9, help="the Redis db the redis stack owns (flushed)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    stacks = ("redis", "embedded") if args.stack == "both" else (args.stack,)
    results = {}
    for stack in stacks:
        results[stack] = measure(stack, args)
        if not args.json:
            print(report(results[stack]), flush=True)  # now: the next stack may fail
    if len(results) == 1:
        if args.json:
            print(json.dumps(results[args.stack]))
        return
    ratio = {
        key: round(results["redis"][key] / results["embedded"][key], 2) if results["embedded"][key] else None
        for key in ("p50_ms", "p90_ms", "p99_ms", "max_ms")
    }
    if args.json:
        print(json.dumps({**results, "redis_over_embedded": ratio}))
        return
    print("redis / embedded: " + ", ".join(f"{key.removesuffix('_ms')} {value}" for key, value in ratio.items()))


if __name__ == "__main__":
    main()
