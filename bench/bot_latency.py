"""How soon a bot answers a human under `make run`: the time from a human's move to the bot's first event.

    .venv/bin/python bench/bot_latency.py [--turns 100] [--idle-seconds 10] [--seed 1] [--json]

Starts the embedded server exactly as `make run` does (tests/server/live.py: `manage.py runall` in a
temporary var dir, SQLite, the filesystem broker, a real Celery worker), first measures the CPU the idle
worker uses, then plays 2-seat Europe games through the HTTP API as a human (random legal moves) against a
`random` bot until the human has handed the turn to the bot `--turns` times. For each of those moves it
takes, from `GET /events`, the `at` of the human's move and of the bot's first event after it: both are
written by the server's clock as each move is appended, so the difference is exact (it includes the
human's commit, the task's trip through the broker and the bot's own move up to its append). Prints
p50/p90/max and the count.
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

from tests.server.live import LiveServer, client, embedded_server, my_decision  # noqa: E402

POLL_SECONDS = 0.05  # the human's polling: gentle, the web process shares the cores with the worker


def idle_cpu(server: LiveServer, seconds: float) -> float:
    """The worker's CPU time over `seconds` of idleness, as a share of one core."""
    stat = Path(f"/proc/{server.worker().pid}/stat")
    ticks = os.sysconf("SC_CLK_TCK")

    def used() -> float:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime

    time.sleep(2)  # let it finish starting up
    before, started = used(), time.monotonic()
    time.sleep(seconds)
    return (used() - before) / (time.monotonic() - started)


def play(human: httpx.Client, rng: random.Random, turns: int) -> list[float]:
    """Play games against a random bot until the human has handed it the turn `turns` times; the latencies."""
    latencies: list[float] = []
    while len(latencies) < turns:
        game = human.post("/games", json={"map": "europe", "players": 2}).json()["id"]
        human.post(f"/games/{game}/start", json={"fill_with_bots": "random"}).raise_for_status()
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=100, help="human moves handing the turn to the bot")
    parser.add_argument("--idle-seconds", type=float, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with embedded_server() as server:
        idle = idle_cpu(server, args.idle_seconds)
        latencies = sorted(play(client(server, "bench-human"), random.Random(args.seed), args.turns))
    figures = {
        "count": len(latencies),
        "p50_ms": round(statistics.median(latencies) * 1e3, 1),
        "p90_ms": round(latencies[int(len(latencies) * 0.9)] * 1e3, 1),
        "max_ms": round(latencies[-1] * 1e3, 1),
        "idle_worker_cpu_percent": round(idle * 100, 2),
    }
    if args.json:
        print(json.dumps(figures))
        return
    print(f"bot's first event after the human's move, {figures['count']} moves: p50 {figures['p50_ms']} ms, "
          f"p90 {figures['p90_ms']} ms, max {figures['max_ms']} ms")
    print(f"idle worker: {figures['idle_worker_cpu_percent']} % of one core")


if __name__ == "__main__":
    main()
