"""Tournament pairing's speed (games/tournaments/pairing.py, seating.py, standings.py): the pure functions only, one core.

    python bench/tournaments.py [--players 10000] [--sizes 2 4] [--rounds 5] [--arena 500] [--arena-size 4]
                                [--arena-hours 1] [--seed 1] [--json]

Swiss: `--players` entrants (ratings uniform in 0..40) paired at each table size with smaller tables and bots allowed;
round 1 is paired, then every round after it from the standings and meetings of the rounds before, each table's
result drawn at random (scores 0..3, equal scores share a place), up to round `--rounds`. For round 1 and the last
round it prints the CPU seconds (time.process_time) of `standings` and of `pair_swiss`, the tables, byes, and the
repeated meetings the seating left (pairs at a table who had met before).

Arena: `--arena` people in one pool, tables of `--arena-size` with smaller tables and bots allowed, a live arena's
20 s wait (services.ARENA_WAIT_SECONDS), paired every 5 simulated seconds as beat does; a game lasts a normal draw of
20 +- 8 minutes of simulated time (at least 3), and its people go back to the pool when it ends. After an hour's warm-up
it measures `--arena-hours` of simulated time: the pairing runs per CPU second (the pool's standings as
reading.pool_of builds them, and `pair_arena`), the CPU of each part, the tables a run forms, and each person's wait
from the end of their game to their next table (p50, p95, max, in simulated seconds), and the share of tables formed
with fewer people than the size (a smaller table or bots, after the wait).

Every pairing is checked (outside the timing): nobody seated twice, no withdrawn or absent person seated, no two
people of an arena table who were at each other's previous table. Runs from a bare checkout (standard library only).
"""

from __future__ import annotations

import argparse
import heapq
import json
import random
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine.seeds import Stream
from games.tournaments import pairing, seating, standings

SEED = bytes(range(32))
ARENA_WAIT = 20.0  # services.ARENA_WAIT_SECONDS["live"]
BEAT = 5.0  # seconds between two pairings of an arena's pool
WARM_UP = 3600.0
GAME_MEAN, GAME_SPREAD, GAME_SHORTEST = 20 * 60.0, 8 * 60.0, 3 * 60.0


def places_of(scores: list[int]) -> tuple[int, ...]:
    """Places as the rule book gives them: 1 + how many scored more (equal scores share a place)."""
    return tuple(1 + sum(1 for other in scores if other > mine) for mine in scores)


def play(game: str, number: int, seats: tuple[str, ...], rng: random.Random) -> standings.Result:
    scores = [rng.randint(0, 3) for _ in seats]
    return standings.Result(game, number, seats, places_of(scores), tuple(scores))


def table_repeats(tables: tuple[tuple[str, ...], ...], met: seating.Met) -> int:
    return sum(seating.repeats([s for s in table if not standings.is_bot(s)], met) for table in tables)


def check_swiss(drawn: pairing.Pairing, entrants: list[standings.Entrant]) -> None:
    seated = [s for table in drawn.tables for s in table if not standings.is_bot(s)] + list(drawn.byes)
    assert sorted(seated) == sorted(e.player for e in entrants if not e.withdrawn), "a person seated twice or left out"


def swiss(players: int, size: int, rounds: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    entrants = [standings.Entrant(f"p{n}", round(rng.uniform(0, 40), 2)) for n in range(players)]
    settings = pairing.Settings(size, smaller_tables=True, bots_fill=True)
    results: list[standings.Result] = []
    byes: dict[str, int] = {}
    rows = []
    for number in range(1, rounds + 1):
        started = time.process_time()
        table = standings.standings(entrants, results, byes, SEED)
        met = standings.meetings(results)
        standings_cpu = time.process_time() - started
        started = time.process_time()
        drawn = pairing.pair_swiss(table, met, settings, Stream(SEED, f"round:{number}"))
        pairing_cpu = time.process_time() - started
        check_swiss(drawn, entrants)
        if number in (1, rounds):
            rows.append({
                "format": "swiss", "players": players, "table_size": size, "round": number,
                "standings_cpu_s": round(standings_cpu, 3), "pairing_cpu_s": round(pairing_cpu, 3),
                "tables": len(drawn.tables), "byes": len(drawn.byes), "repeats": table_repeats(drawn.tables, met),
            })
        for name in drawn.byes:
            byes[name] = byes.get(name, 0) + 1
        results.extend(play(f"r{number}t{k}", number, seats, rng) for k, seats in enumerate(drawn.tables))
    return rows


@dataclass
class Person:
    since: float | None  # in the pool since (None: at a table)
    last_table: frozenset[str] = frozenset()
    played: bool = False  # back from a game (the first wait, from the start, is not a wait after a game)


def arena(players: int, size: int, hours: float, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    entrants = [standings.Entrant(f"p{n}", round(rng.uniform(0, 40), 2)) for n in range(players)]
    settings = pairing.Settings(size, smaller_tables=True, bots_fill=True)
    people = {e.player: Person(0.0) for e in entrants}
    results: list[standings.Result] = []
    ending: list[tuple[float, int, tuple[str, ...]]] = []  # (ends at, game, seats): a heap
    end = WARM_UP + hours * 3600.0
    standings_cpu = pairing_cpu = 0.0
    runs, formed, short, waits, games = 0, [], 0, [], 0
    now = 0.0
    while now < end:
        while ending and ending[0][0] <= now:
            at, game, seats = heapq.heappop(ending)
            result = play(f"g{game}", 0, seats, rng)
            results.append(result)
            for name in seats:
                if name in people:
                    people[name].since, people[name].played = at, True
        started = time.process_time()
        table = {row.player: row for row in standings.standings(entrants, results, {}, SEED)}
        pool = [
            pairing.Waiter(name, table[name].points, table[name].rating, table[name].draw, p.since, p.last_table)
            for name, p in people.items() if p.since is not None
        ]
        pool.sort(key=lambda w: w.since)
        middle = time.process_time()
        drawn = pairing.pair_arena(pool, settings, Stream(SEED, f"pairing:{runs + 1}"), now=now, wait_limit=ARENA_WAIT)
        done = time.process_time()
        check_arena(drawn, pool)
        measured = now >= WARM_UP
        if measured:
            standings_cpu += middle - started
            pairing_cpu += done - middle
            runs += 1
            formed.append(len(drawn.tables))
            short += sum(1 for seats in drawn.tables if len(standings_people(seats)) < size)
        for seats in drawn.tables:
            games += 1
            heapq.heappush(ending, (now + max(GAME_SHORTEST, rng.gauss(GAME_MEAN, GAME_SPREAD)), games, seats))
            for name in seats:
                if name not in people:
                    continue
                person = people[name]
                if measured and person.since is not None and person.played:
                    waits.append(now - person.since)
                person.since, person.last_table = None, frozenset(seats) - {name}
        now += BEAT
    waits.sort()
    return {
        "format": "arena", "players": players, "table_size": size, "simulated_h": hours, "runs": runs,
        "runs_per_cpu_s": round(runs / (standings_cpu + pairing_cpu), 1),
        "standings_cpu_ms": round(1000 * standings_cpu / runs, 2), "pairing_cpu_ms": round(1000 * pairing_cpu / runs, 2),
        "tables_per_run": round(statistics.fmean(formed), 2), "short_tables": round(short / max(1, sum(formed)), 3),
        "games": len(results),
        "wait_p50_s": quantile(waits, 0.50), "wait_p95_s": quantile(waits, 0.95), "wait_max_s": quantile(waits, 1.0),
    }


def standings_people(seats: tuple[str, ...]) -> list[str]:
    return [name for name in seats if not standings.is_bot(name)]


def quantile(values: list[float], q: float) -> float:
    return round(values[min(len(values) - 1, int(q * len(values)))], 1) if values else 0.0


def check_arena(drawn: pairing.Pairing, pool: list[pairing.Waiter]) -> None:
    by_name = {w.player: w for w in pool}
    seated = [s for table in drawn.tables for s in table if not standings.is_bot(s)]
    assert len(seated) == len(set(seated)) and set(seated) <= set(by_name), "a person seated twice, or not waiting"
    for table in drawn.tables:
        names = [s for s in table if not standings.is_bot(s)]
        for one in names:
            assert not by_name[one].last_table & (set(names) - {one}), f"{one} meets their previous table again"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--arena", type=int, default=500)
    parser.add_argument("--arena-size", type=int, default=4)
    parser.add_argument("--arena-hours", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    command = " ".join(["python", "bench/tournaments.py", *sys.argv[1:]])
    date = datetime.now().isoformat(timespec="minutes")
    rows = [row for size in args.sizes for row in swiss(args.players, size, args.rounds, args.seed)]
    if args.arena:
        rows.append(arena(args.arena, args.arena_size, args.arena_hours, args.seed))
    if args.json:
        print(json.dumps({"command": command, "date": date, "python": sys.version.split()[0], "runs": rows}))
        return 0
    print(f"$ {command}  ({date}, Python {sys.version.split()[0]})")
    for row in rows:
        print("  ".join(f"{key} {value}" for key, value in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
