"""Play whole games with uniformly random legal moves and print what happened.

    python -m games.engine.simulate --map europe --players 5 --games 200 --seed 1 [--fair] [--json] [--log-dir DIR]

Standard library only, so it runs from a bare checkout. Each game is checked as it is played (every move
comes from `legal_moves`' distribution and must be accepted by `decide`); a game that raises or does not
finish within a bound counts as an error. `--log-dir` writes each game's event log as JSON Lines. `--fair`
draws each game's chance from seeds (seeds.py, X-RNG-2: a server seed from the game's seed, empty client
seeds) as a provably fair game does; the moves stay the seed's random choices.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from . import events as ev
from .board import MAP_NAMES
from .decide import score_ended, step
from .draws import Draws
from .evolve import evolve_in_place
from .legal import random_legal_move
from .seeds import FairDraws, Seeds
from .setup import begin
from .state import FINISHED, State

MAX_DECISIONS = 5000  # far above any real game; guards against a game that never ends


@dataclass
class GameRecord:
    events: list[ev.Event] = field(default_factory=list)
    decisions: int = 0
    state: State | None = None


def play_random_game(map_name: str, players: int, rng: random.Random, *, fair: bool = False) -> GameRecord:
    """One complete game of uniformly random legal moves (setup choices in seat order); `fair`: its chance drawn
    from seeds, as a provably fair game's is."""
    game_seed = Seeds(rng.randbytes(32), (b"",) * players).game_seed() if fair else b""
    chance: Draws = FairDraws(game_seed) if fair else rng
    state, opening = begin(map_name, players, chance)
    record = GameRecord(events=list(opening))
    while state.phase != FINISHED and record.decisions < MAX_DECISIONS:
        seat = state.current if state.current is not None else state.deciders()[0]  # (the setup: the first seat)
        move = random_legal_move(state, seat, rng)
        if move is None:
            raise RuntimeError(f"seat {seat} must decide but has no legal move in phase {state.phase}")
        state, new_events = step(state, seat, move, chance, in_place=True)  # (a FairDraws counts its shuffles)
        record.events.extend(new_events)
        record.decisions += 1
    if state.finished:  # the server's workers score an ended game: here the simulator does
        scored = score_ended(state)
        evolve_in_place(state, scored)
        record.events.append(scored)
    record.state = state
    return record


def run(
    map_name: str, players: int, games: int, seed: int, log_dir: Path | None, *, fair: bool = False
) -> dict[str, object]:
    started = time.perf_counter()
    finished = errors = events = turns = 0
    scores: list[int] = []
    for number in range(games):
        rng = random.Random(f"{seed}:{number}")
        try:
            record = play_random_game(map_name, players, rng, fair=fair)
        except Exception:  # a crash is a finding: count it, show it, keep going
            errors += 1
            traceback.print_exc(file=sys.stderr)
            continue
        events += len(record.events)
        turns += sum(1 for e in record.events if isinstance(e, ev.TurnEnded))
        assert record.state is not None
        if record.state.finished:
            finished += 1
            scores.extend(score.total for score in record.state.scores)
        else:
            errors += 1
        if log_dir is not None:
            _write_log(log_dir / f"{map_name}-{players}p-seed{seed}-{number:05d}.jsonl", record.events)
    seconds = time.perf_counter() - started
    return {
        "map": map_name,
        "players": players,
        "fair": fair,
        "games": games,
        "finished": finished,
        "errors": errors,
        "events": events,
        "events_per_game": round(events / max(1, games - errors), 1),
        "seconds": round(seconds, 3),
        "games_per_second": round(games / seconds, 1) if seconds else None,
        "mean_score": round(sum(scores) / len(scores), 1) if scores else None,
        "max_score": max(scores) if scores else None,
        "mean_turns": round(turns / max(1, finished), 1),
    }


def _write_log(path: Path, events: list[ev.Event]) -> None:
    from games.engine.codec import event_to_json  # the codec lives outside the engine (docs/STYLE.md)

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(event_to_json(e) + "\n" for e in events))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map", choices=MAP_NAMES, default="europe")
    parser.add_argument("--players", type=int, choices=range(2, 6), default=4)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fair", action="store_true", help="draw each game's chance from seeds (X-RNG-2)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--log-dir", type=Path, help="write each game's event log as JSON Lines here")
    args = parser.parse_args(argv)
    result = run(args.map, args.players, args.games, args.seed, args.log_dir, fair=args.fair)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>17}: {value}")
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
