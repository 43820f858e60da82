"""The strong bot's speed: playouts (a sampled game played from one candidate move to its end) per second, and
what a decision gets done within its time budget.

    .venv/bin/python bench/strong.py [--positions 20] [--players 2] [--seconds 1.5 | --samples N] [--seed 1] [--json]

Positions are the decisions the strong bot searches (which tickets to keep: at the start and after a draw) of
seat 0 in greedy games on both maps. For each, the search runs for `--seconds` (the budget the worker uses,
TTR_STRONG_SECONDS) and reports the sampled games it played, the candidates, the playouts (each candidate's
sampled games, until racing drops it) and its wall-clock time. Prints per map: playouts per second,
candidates, sampled games per decision (p10/p50), think time mean/p99/max in ms.

With `--samples N` the work is fixed instead of the time: each search plays at most N sampled games (fewer when
its race is decided, deterministically), so two versions of the code play the same games and their playouts per
second compare exactly (it also prints the playouts per CPU second of all its searches, the better figure on a
shared machine). It also prints a digest (sha256 of every position's tallies: each candidate, its
rewards, whether it was still sampled, and the chosen candidate): the same digest, the same games played.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots.policies import Decision
from bots.policies import strong as search
from bots.policies.belief import track
from bots.policies.greedy import choose_move
from bots.tournament import percentile
from games.engine import Event, State, begin, legal_moves, redact, step, view
from games.engine.board import MAP_NAMES


def positions(map_name: str, players: int, count: int, seed: int) -> list[tuple[State, list[Event]]]:
    found: list[tuple[State, list[Event]]] = []
    game = 0
    while len(found) < count:
        rng = random.Random(f"{seed}:{game}")
        state, opening = begin(map_name, players, rng)
        log = list(opening)
        while not state.finished and len(found) < count:
            seat = state.deciders()[0]
            moves = legal_moves(state, seat)
            if seat == 0 and state.phase in search.SEARCHED and len(moves) > 1:
                found.append((state.copy(), list(log)))
            state, events = step(state, seat, choose_move(view(state, seat), moves), rng, in_place=True)
            log.extend(events)
        game += 1
    return found


def measure(state: State, log: list[Event], seconds: float, seed: int, samples: int | None,
            digest: hashlib._Hash) -> dict[str, float]:
    """One position's search (`samples`: a fixed number of sampled games instead of `seconds`); its tallies and
    chosen candidate go into `digest`. Playouts count every candidate's game, a dropped one's too."""
    seen = view(state, 0)
    moves = legal_moves(state, 0)
    decision = Decision(seen, moves, random.Random(seed), tuple(redact(e, 0) for e in log), seconds, samples)
    started, cpu_started = time.perf_counter(), time.process_time()
    greedy = choose_move(seen, moves)
    candidates = search.candidates(seen, moves, greedy)
    tallies = search.search(decision, track(0, decision.history), candidates, random.Random(seed))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    chosen, _ = search._verdict(tallies, greedy)
    digest.update(repr(([(t.move, t.rewards, t.alive) for t in tallies], chosen)).encode())
    return {"samples": len(tallies[0].rewards), "candidates": len(candidates),
            "playouts": sum(len(t.rewards) for t in tallies), "seconds": elapsed, "cpu_seconds": cpu}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--players", type=int, choices=range(2, 6), default=2)
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--samples", type=int, default=None, help="sampled games per position instead of --seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result: dict[str, dict[str, float]] = {}
    digest = hashlib.sha256()
    everything: list[dict[str, float]] = []
    for map_name in MAP_NAMES:
        found = positions(map_name, args.players, args.positions, args.seed)
        runs = [measure(s, log, args.seconds, args.seed, args.samples, digest) for s, log in found]
        everything.extend(runs)
        ms = sorted(r["seconds"] * 1000 for r in runs)
        samples = sorted(r["samples"] for r in runs)
        result[map_name] = {
            "playouts_per_second": round(sum(r["playouts"] for r in runs) / sum(r["seconds"] for r in runs), 1),
            "candidates_mean": round(statistics.fmean(r["candidates"] for r in runs), 1),
            "samples_p10": percentile(samples, 0.10),
            "samples_p50": percentile(samples, 0.50),
            "think_ms_mean": round(statistics.fmean(ms), 1),
            "think_ms_p99": round(percentile(ms, 0.99), 1),
            "think_ms_max": round(ms[-1], 1),
        }
        r = result[map_name]
        budget = f"{args.samples} samples" if args.samples is not None else f"budget {args.seconds * 1000:.0f} ms"
        print(f"{map_name}, {args.players} players: {r['playouts_per_second']} playouts/s, "
              f"{r['candidates_mean']} candidates, "
              f"sampled games p10/p50 {r['samples_p10']}/{r['samples_p50']}, think ms mean/p99/max "
              f"{r['think_ms_mean']}/{r['think_ms_p99']}/{r['think_ms_max']} ({budget})")
    per_cpu_second = round(sum(r["playouts"] for r in everything) / sum(r["cpu_seconds"] for r in everything), 1)
    if args.samples is not None:
        # On a shared machine the CPU time a search took compares versions better than the wall clock.
        print(f"all searches: {per_cpu_second} playouts per CPU second")
        print(f"digest {digest.hexdigest()}")
    if args.json:
        print(json.dumps({"positions": args.positions, "players": args.players, "seconds": args.seconds,
                          "samples": args.samples, "digest": digest.hexdigest(), "maps": result,
                          "playouts_per_cpu_second": per_cpu_second}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
