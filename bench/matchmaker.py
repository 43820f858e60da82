"""The matchmaking rule's speed (games/lobby/pairing.py): one `form_tables` run over a crowded random queue, one core.

    python bench/matchmaker.py [--players 1000 10000 100000] [--repeats 5] [--seed 1] [--json]

Each queue: players spread over both maps, ranked or not, live or daily, each accepting a random non-empty set of
table sizes, ratings uniform in 0..40, joined uniformly over the last 10 minutes, a third never accepting bots and
the others after 1 to 10 minutes. Prints per queue size the median CPU seconds (time.process_time) and wall seconds
over the repeats, the tables formed (with bots), the players seated, and the mean and max rating spread of a table.
Every table is checked against `matching.problem` (outside the timing). Runs from a bare checkout (standard
library only).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.lobby.pairing import Table, Waiting, form_tables, problem

NOW = 1_800_000_000.0


def random_queue(players: int, rng: random.Random) -> list[Waiting]:
    queue = []
    for n in range(players):
        counts = frozenset(size for size in (2, 3, 4, 5) if rng.random() < 0.5) or frozenset({rng.randint(2, 5)})
        queue.append(
            Waiting(
                id=n, rating=rng.uniform(0, 40), since=NOW - rng.uniform(0, 600), map=rng.choice(("europe", "usa")),
                counts=counts, ranked=rng.random() < 0.5, speed=rng.choice(("live", "daily")),
                bots_after=None if rng.random() < 1 / 3 else rng.uniform(60, 600),
            )
        )
    return queue


def bench(players: int, repeats: int, seed: int) -> dict[str, object]:
    queue = random_queue(players, random.Random(seed))
    cpu, wall = [], []
    tables: list[Table] = []
    for _ in range(repeats):
        started_cpu, started_wall = time.process_time(), time.perf_counter()
        tables = form_tables(queue, NOW)
        cpu.append(time.process_time() - started_cpu)
        wall.append(time.perf_counter() - started_wall)
    by_id = {player.id: player for player in queue}
    broken = [table for table in tables if problem(table, by_id, NOW) is not None]
    assert not broken, f"{len(broken)} tables break the rule, e.g. {broken[0]}: {problem(broken[0], by_id, NOW)}"
    seated = [m for table in tables for m in table.members]
    assert len(seated) == len(set(seated)), "a player seated twice"
    spreads = [max(by_id[m].rating for m in t.members) - min(by_id[m].rating for m in t.members) for t in tables]
    return {
        "players": players,
        "cpu_s": round(statistics.median(cpu), 4),
        "wall_s": round(statistics.median(wall), 4),
        "tables": len(tables),
        "tables_with_bots": sum(1 for table in tables if table.bots),
        "seated": len(seated),
        "left_waiting": players - len(seated),
        "mean_spread": round(statistics.fmean(spreads), 3) if spreads else 0.0,
        "max_spread": round(max(spreads), 3) if spreads else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    command = " ".join(["python", "bench/matchmaker.py", *sys.argv[1:]])
    date = datetime.now().isoformat(timespec="minutes")
    rows = [bench(players, args.repeats, args.seed) for players in args.players]
    if args.json:
        print(json.dumps({"command": command, "date": date, "python": sys.version.split()[0], "runs": rows}))
        return 0
    print(f"$ {command}  ({date}, Python {sys.version.split()[0]}, median of {args.repeats})")
    for row in rows:
        print("  ".join(f"{key} {value}" for key, value in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
