"""Engine speed, 4-player Europe, one core: random games, replay, legal moves, longest path.

    python bench/engine.py [--games 200] [--networks 2000] [--json]

Runs from a bare checkout (standard library only). Figures go in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine.board import Board, load_board
from games.engine.decide import step
from games.engine.evolve import replay
from games.engine.legal import legal_moves, random_legal_move
from games.engine.paths import longest_trail
from games.engine.setup import begin
from games.engine.simulate import play_random_game

MAP = "europe"
PLAYERS = 4
TRAINS = 45


def bench_games(games: int) -> tuple[dict[str, float], list[list]]:
    logs = []
    started = time.perf_counter()
    for n in range(games):
        logs.append(play_random_game(MAP, PLAYERS, random.Random(f"bench:{n}")).events)
    seconds = time.perf_counter() - started
    return {"games": games, "games_per_second": round(games / seconds, 1)}, logs


def bench_replay(logs: list[list]) -> dict[str, float]:
    events = sum(len(log) for log in logs)
    started = time.perf_counter()
    for log in logs:
        replay(log)
    seconds = time.perf_counter() - started
    return {"replay_events": events, "replay_us_per_event": round(seconds / events * 1e6, 2)}


def bench_legal_moves(games: int = 20) -> dict[str, float]:
    """legal_moves for the deciding seat at every decision of a few random games."""
    rng = random.Random(7)
    states = []
    for _ in range(games):
        state, _ = begin(MAP, PLAYERS, rng)
        while not state.finished:
            states.append(state)
            seat = state.deciders()[0]
            move = random_legal_move(state, seat, rng)
            assert move is not None
            state, _ = step(state, seat, move, rng)
    counts = []
    started = time.perf_counter()
    for state in states:
        counts.append(len(legal_moves(state, state.deciders()[0])))
    seconds = time.perf_counter() - started
    return {
        "legal_moves_us": round(seconds / len(states) * 1e6, 1),
        "legal_moves_mean_count": round(statistics.mean(counts), 1),
    }


def dense_network(board: Board, rng: random.Random) -> list[tuple[str, str, int]]:
    """One player's full 45-train network grown in one region, short routes first: many cycles."""
    start = rng.choice(list(board.cities))
    frontier = {start: None}  # dicts, not sets: the same seed grows the same network in every run
    taken: dict[str, None] = {}
    trains = 0
    while True:
        options = [
            r for c in frontier for r in board.city_routes[c]
            if r.id not in taken and (r.twin is None or r.twin not in taken) and trains + r.length <= TRAINS
        ]
        if not options:
            break
        shortest = min(r.length for r in options)
        route = rng.choice([r for r in options if r.length <= shortest + 1])
        taken[route.id] = None
        trains += route.length
        frontier |= {route.a: None, route.b: None}
    return [(board.routes[r].a, board.routes[r].b, board.routes[r].length) for r in taken]


def bench_longest_path(networks: int) -> dict[str, float]:
    board = load_board(MAP)
    rng = random.Random(11)
    times = []
    sizes = []
    for _ in range(networks):
        edges = dense_network(board, rng)
        sizes.append(len(edges))
        started = time.perf_counter()
        longest_trail(edges)
        times.append(time.perf_counter() - started)
    return {
        "longest_path_networks": networks,
        "longest_path_mean_routes": round(statistics.mean(sizes), 1),
        "longest_path_mean_ms": round(statistics.mean(times) * 1e3, 3),
        "longest_path_max_ms": round(max(times) * 1e3, 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--networks", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, object] = {"map": MAP, "players": PLAYERS, "python": sys.version.split()[0]}
    games, logs = bench_games(args.games)
    result |= games
    result |= bench_replay(logs)
    result |= bench_legal_moves()
    result |= bench_longest_path(args.networks)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>26}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
