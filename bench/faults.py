"""Faults during load: `.venv/bin/python bench/faults.py [--games 40] [--rounds 1] [--scoring-wait 240]`.

The fault suite's scenario (bench/fault_stack/scenario.py; `make test` runs it with 6 games) at a larger size: games
played by scripted people over HTTP and sockets and by greedy and strong bots through the real workers, on the
production layout (2 web processes, a worker per queue, beat, a Redis of its own, a scratch database), while each
fault happens in turn (`--rounds` times): the strong worker SIGKILLed mid-search, the default worker stopped and
SIGKILLed while a score waits, Redis killed and started again empty, a web process SIGKILLed with its sockets
open, every database connection terminated, the database refusing connections for 3 s, beat SIGKILLed, a worker
given SIGTERM. No 5xx is allowed.

Prints what was injected when, the traffic's figures, and every problem the checks found (none is the aim):
games not finished, not verifying, not scored exactly once, seq gaps, acknowledged moves missing from the log,
5xx answers, 500s in any process's log, leaks of hidden cards or tickets, `recompute_ratings --check`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fault_stack import scenario  # noqa: E402
from bench.fault_stack.harness import harness  # noqa: E402
from bench.traffic.figures import summary  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=1, help="how many times each fault happens")
    parser.add_argument("--gap", type=float, default=8.0, help="seconds between faults")
    parser.add_argument("--scoring-wait", type=float, default=240.0,
                        help="how long the stopped worker waits for a game to end (this size's games last minutes)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    faults = list(scenario.FAULTS) * args.rounds
    extra = {"AUTH_THROTTLE_RATE": "100000/min"}
    with harness(f"ttr_faults_bench_{os.getpid()}", web=2, extra_env=extra) as h:
        report = scenario.run(
            h, games=args.games, seed=args.seed, faults=faults, gap=args.gap, first_after=10.0, players=(2, 5),
            scoring_wait=args.scoring_wait,
            think=(0.0, 0.5), socket_share=0.5, strong_share=0.15, users=40, stall_seconds=600, score_seconds=600,
        )
        figures = summary(report.recorder)
    finished = sum(1 for record in report.records if record.finished)
    print(json.dumps({
        "games": args.games, "finished": finished, "seconds": round(report.seconds, 1), "injected": report.injected,
        "moves": figures["moves"], "latency_ms": figures["latency_ms"], "5xx": figures["5xx"],
        "counters": figures["counters"], "problems": len(report.problems), "problem_examples": report.problems[:10],
    }, indent=1))
    sys.exit(1 if report.problems else 0)


if __name__ == "__main__":
    main()
