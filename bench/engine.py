"""Engine speed, 4-player Europe, one core: random games, replay, legal moves, longest path; against a peer engine.

    python bench/engine.py [--games 200] [--networks 2000] [--json]
    python bench/engine.py --peer /work/peer-trains [--baseline /tmp/engine-before] [--rounds 10] [--per-round 20]

Runs from a bare checkout (standard library only). Every figure is process time (`time.process_time`, one core).
Figures go in docs/PERFORMANCE.md ("Rules engine").

One of our games is `games.engine.simulate.play_random_game("europe", 4, rng)`: set-up included (it deals the
destination tickets and each seat keeps some), uniformly random legal moves to the end, final scoring (exact longest
path and station assignment).

`--peer PATH` times the peer engine TinyPablo/trains-game-engine in the same process: PATH is a checkout of its
`develop` branch, made beforehand (this bench fetches nothing and no peer code is committed here), e.g.

    git clone -q -b develop https://github.com/TinyPablo/trains-game-engine /work/peer-trains

Its unit is one game of its `scripts/stress_test.py` (`run_simulation(seed)`: load the Europe map from its JSON,
4 players, deal, random legal moves until the last round ends or 500 turns, score; no destination tickets). The
rounds alternate: `--per-round` of our games, then as many of the peer's, `--rounds` times; the ratio (our games a
second over the peer's) is given per round as a median and range. `--baseline PATH` adds another checkout of this
repository (e.g. `git worktree add /tmp/engine-before <rev>`), its engine loaded under another package name and
timed in the same rounds, for before/after figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

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

clock = time.process_time


def bench_games(games: int) -> tuple[dict[str, float], list[list]]:
    logs = []
    started = clock()
    for n in range(games):
        logs.append(play_random_game(MAP, PLAYERS, random.Random(f"bench:{n}")).events)
    seconds = clock() - started
    events = sum(len(log) for log in logs)
    return {"games": games, "games_per_second": round(games / seconds, 1), "events_per_game": events / games}, logs


def bench_replay(logs: list[list]) -> dict[str, float]:
    events = sum(len(log) for log in logs)
    started = clock()
    for log in logs:
        replay(log)
    seconds = clock() - started
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
    started = clock()
    for state in states:
        counts.append(len(legal_moves(state, state.deciders()[0])))
    seconds = clock() - started
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
        started = clock()
        longest_trail(edges)
        times.append(clock() - started)
    return {
        "longest_path_networks": networks,
        "longest_path_mean_routes": round(statistics.mean(sizes), 1),
        "longest_path_mean_ms": round(statistics.mean(times) * 1e3, 3),
        "longest_path_max_ms": round(max(times) * 1e3, 3),
    }


# Against the peer engine (and an older checkout of ours), in alternating rounds.

Game = Callable[[int], object]


def our_game(simulate: ModuleType) -> Game:
    def play(n: int) -> object:
        return simulate.play_random_game(MAP, PLAYERS, random.Random(f"peer-bench:{n}"))

    return play


def load_baseline(root: Path) -> ModuleType:
    """`games.engine.simulate` of another checkout, imported as the package `baseline_engine` (the engine's own
    imports are relative, so it runs beside ours without sharing a module)."""
    package = root / "games" / "engine"
    spec = importlib.util.spec_from_file_location(
        "baseline_engine", package / "__init__.py", submodule_search_locations=[str(package)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["baseline_engine"] = module
    spec.loader.exec_module(module)
    return importlib.import_module("baseline_engine.simulate")


def peer_game(root: Path) -> Game:
    """The peer's `run_simulation(seed)` from its scripts/stress_test.py. Its package is a top-level `engine`,
    which this file's own name would shadow: the peer's root goes first on the path while it loads."""
    sys.path.insert(0, str(root))
    try:
        spec = importlib.util.spec_from_file_location("peer_stress_test", root / "scripts" / "stress_test.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(root))
    run: Game = module.run_simulation
    return run


def bench_peer(contenders: dict[str, Game], rounds: int, per_round: int) -> dict[str, object]:
    """Games a second of each contender per round (process time), `per_round` games each in turn, after one game
    each untimed (what a process does once: boards loaded, tables built)."""
    for play in contenders.values():
        play(-1)
    rates: dict[str, list[float]] = {name: [] for name in contenders}
    for r in range(rounds):
        for name, play in contenders.items():
            started = clock()
            for n in range(r * per_round, (r + 1) * per_round):
                play(n)
            rates[name].append(per_round / (clock() - started))
    result: dict[str, object] = {"rounds": rounds, "games_per_round": per_round}
    for name, values in rates.items():
        result[f"{name}_games_per_second"] = round(statistics.median(values), 1)
    for name in contenders:
        if name != "peer":
            ratios = [ours / peer for ours, peer in zip(rates[name], rates["peer"], strict=True)]
            result[f"{name}_over_peer"] = _spread(ratios)
    if "baseline" in contenders:
        ratios = [new / old for new, old in zip(rates["ours"], rates["baseline"], strict=True)]
        result["ours_over_baseline"] = _spread(ratios)
    return result


def _spread(ratios: list[float]) -> str:
    return f"{statistics.median(ratios):.2f}x (min {min(ratios):.2f}, max {max(ratios):.2f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--networks", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--peer", type=Path, help="a checkout of the peer engine's develop branch")
    parser.add_argument("--baseline", type=Path, help="another checkout of this repository, timed in the same rounds")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--per-round", type=int, default=20)
    parser.add_argument("--peer-only", action="store_true", help="only the rounds against the peer")
    args = parser.parse_args()
    result: dict[str, object] = {"map": MAP, "players": PLAYERS, "python": sys.version.split()[0]}
    if args.peer is not None:
        contenders = {"ours": our_game(sys.modules["games.engine.simulate"])}
        if args.baseline is not None:
            contenders["baseline"] = our_game(load_baseline(args.baseline))
        contenders["peer"] = peer_game(args.peer)
        result |= bench_peer(contenders, args.rounds, args.per_round)
    if not args.peer_only:
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
