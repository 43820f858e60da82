"""Post-game analysis: how long a game takes to judge, and whether the judge tells strong play from weak.

    .venv/bin/python bench/analysis.py [--samples 48 --single 2] [--time-players 4] [--games 50] [--players 2]
                                       [--strong-iterations 48] [--jobs 2] [--seed 1] [--json PATH]
                                       [--against DIR]

1. Time: one Europe game of `--time-players` greedy seats, analysed at the budget (`--samples` sampled games a
   decision where the search compares candidates, `--single` where the move played is its only one: the server's
   defaults, TTR_ANALYSIS_SAMPLES and TTR_ANALYSIS_SINGLE), on one core: CPU seconds (what one analysis worker
   spends), wall seconds, and the moves its playouts made (the work itself, whatever else the machine runs).
   `--against DIR`: the same, just before, with the analysis of another checkout (at its own default budget), for
   a ratio measured in one run.
2. Marks: `--games` 2-player Europe games of greedy seats and as many of strong seats (the strong bot at a fixed
   `--strong-iterations` sampled games a searched decision, so the games are the same every run), each analysed
   at the budget: the share of decisions marked (inaccuracy, mistake or blunder), the marks by kind, and the mean
   points lost per decision, with a 95 % interval over games. The analysis should mark strong play clearly less.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

sys.path.insert(0, os.environ.get("TTR_BENCH_ROOT") or str(Path(__file__).resolve().parents[1]))

import bots.policies.rollout as rollout
from bots.analysis import Budget, analyse
from bots.tournament import Budget as PlayBudget
from bots.tournament import logged_game


@dataclass
class Judged:
    level: str
    decisions: int
    marked: int
    kinds: dict[str, int]
    loss: float
    cpu: float


def judged_game(level: str, number: int, *, budget: Budget, players: int, seed: int, iterations: int) -> Judged:
    log = logged_game("europe", [level] * players, seed * 100_000 + number, PlayBudget(iterations=iterations))
    cpu = time.process_time()
    result = analyse(log, budget, seed=f"{seed}:{number}")
    cpu = time.process_time() - cpu
    marks = [j.mark for j in result.judgements if j.mark]
    kinds = {kind: marks.count(kind) for kind in ("inaccuracy", "mistake", "blunder")}
    return Judged(level, len(result.judgements), len(marks), kinds, sum(j.loss for j in result.judgements), cpu)


def counting_playout_moves() -> list[int]:
    """From now on, count the moves the playouts make (every playout steps the engine through rollout.step)."""
    count = [0]
    step = rollout.step

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        count[0] += 1
        return step(*args, **kwargs)

    rollout.step = counted
    return count


def mean_interval(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95 % interval (normal approximation over games)."""
    mean = statistics.fmean(values)
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, 1.96 * spread / math.sqrt(len(values))


def summary(games: list[Judged]) -> dict[str, object]:
    share, share_ci = mean_interval([g.marked / g.decisions for g in games])
    loss, loss_ci = mean_interval([g.loss / g.decisions for g in games])
    return {
        "games": len(games), "decisions": sum(g.decisions for g in games),
        "marked_share": round(share, 4), "marked_share_ci95": round(share_ci, 4),
        "marks": {kind: sum(g.kinds[kind] for g in games) for kind in ("inaccuracy", "mistake", "blunder")},
        "mean_loss": round(loss, 3), "mean_loss_ci95": round(loss_ci, 3),
        "cpu_seconds_per_game": round(statistics.fmean(g.cpu for g in games), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=Budget().samples)
    parser.add_argument("--single", type=int, default=Budget().single)
    parser.add_argument("--time-players", type=int, default=4)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--strong-iterations", type=int, default=48)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--against", type=Path)
    args = parser.parse_args(argv)
    budget = Budget(args.samples, args.single)
    report: dict[str, object] = {"budget": budget.as_dict()}

    if args.against:
        other = [sys.executable, __file__, "--games", "0", "--time-players", str(args.time_players),
                 "--seed", str(args.seed)]
        print(subprocess.run(other, env={**os.environ, "TTR_BENCH_ROOT": str(args.against)}, check=True,
                             capture_output=True, text=True).stdout.strip().replace("analysis of", f"{args.against}:"))
    log = logged_game("europe", ["greedy"] * args.time_players, args.seed)
    moves = counting_playout_moves()
    wall, cpu = time.perf_counter(), time.process_time()
    timed = analyse(log, budget, seed="time")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    report["time"] = {"players": args.time_players, "decisions": len(timed.judgements), "events": len(log),
                      "cpu_seconds": round(cpu, 1), "wall_seconds": round(wall, 1), "playout_moves": moves[0]}
    print(f"analysis of a {args.time_players}-player Europe game ({len(timed.judgements)} decisions, {len(log)} "
          f"events) at samples={budget.samples} single={budget.single}: {cpu:.1f} s CPU, {wall:.1f} s wall, "
          f"{moves[0]} playout moves", flush=True)

    if args.games:
        levels = {}
        with multiprocessing.Pool(args.jobs) as pool:
            for level in ("greedy", "strong"):
                judge = partial(judged_game, level, budget=budget, players=args.players, seed=args.seed,
                                iterations=args.strong_iterations)
                levels[level] = summary(pool.map(judge, range(args.games)))
                row = levels[level]
                print(f"{level:6} {row['games']} games, {row['decisions']} decisions: marked "
                      f"{100 * row['marked_share']:.2f} % +- {100 * row['marked_share_ci95']:.2f} {row['marks']}, "
                      f"mean loss {row['mean_loss']:.3f} +- {row['mean_loss_ci95']:.3f} points a decision, "
                      f"{row['cpu_seconds_per_game']} s CPU a game", flush=True)
        report["levels"] = levels
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
