"""The greedy bot's think time per move, beside the random bot's in the same games, on both maps, one core.

    python bench/greedy.py [--games 100] [--players 2] [--seed 1] [--json]

Plays `--games` games per map, greedy against random (seats rotating, as `bots.tournament` plays them), and
times each policy call alone (not `legal_moves` or `view`, which the engine pays for whoever decides). Prints
mean, p50, p99 and max in milliseconds per policy, and greedy's mean as a multiple of random's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.tournament import percentile, play_games
from games.engine.board import MAP_NAMES

POLICIES = ("greedy", "random")


def think_times(map_name: str, players: int, games: int, seed: int) -> dict[str, list[float]]:
    bots = [POLICIES[seat % 2] for seat in range(players)]
    times: dict[str, list[float]] = {name: [] for name in POLICIES}
    for game in play_games(map_name, bots, seed, games, jobs=1):
        for name, ms in game.think_ms.items():
            times[name].extend(ms)
    return times


def figures(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "moves": len(ordered),
        "mean": round(statistics.fmean(ordered), 3),
        "p50": round(percentile(ordered, 0.50), 3),
        "p99": round(percentile(ordered, 0.99), 3),
        "max": round(ordered[-1], 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, choices=range(2, 6), default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result: dict[str, dict[str, object]] = {}
    for map_name in MAP_NAMES:
        times = think_times(map_name, args.players, args.games, args.seed)
        per_policy: dict[str, object] = {name: figures(ms) for name, ms in times.items()}
        per_policy["greedy_over_random"] = round(statistics.fmean(times["greedy"]) / statistics.fmean(times["random"]))
        result[map_name] = per_policy
    if args.json:
        print(json.dumps({"games": args.games, "players": args.players, "think_ms": result}))
        return 0
    print(f"think time per move, ms ({args.games} games per map, {args.players} players, greedy against random)")
    print(f"{'map':<8}{'policy':<8}{'moves':>8}{'mean':>9}{'p50':>9}{'p99':>9}{'max':>9}")
    for map_name, per_policy in result.items():
        for name in POLICIES:
            f = per_policy[name]
            assert isinstance(f, dict)
            print(f"{map_name:<8}{name:<8}{f['moves']:>8}{f['mean']:>9.3f}{f['p50']:>9.3f}{f['p99']:>9.3f}{f['max']:>9.3f}")
        print(f"{map_name:<8}greedy's mean is {per_policy['greedy_over_random']}x random's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
