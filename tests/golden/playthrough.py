"""Golden games: play one from its seed with a fixed, simple policy, write it as golden text, replay a file.

A golden game is named by a `Golden` (map, players, seed). Chance (every shuffle, hence every tunnel reveal)
comes from `random.Random(seed)`, handed to the engine; the moves come from `choose`, a rule over the legal
moves alone (never the view, whose shape is not the rules) drawing on its own `random.Random(f"moves:{seed}")`.
The legal moves are sorted by their codec encoding first, so the order `legal_moves` lists them in does not
matter: a golden file changes when the rules change, not when the engine is refactored.

`replay_text` plays a golden file's recorded moves (not the policy's) through the engine from the file's seed
and returns the lines that makes: the same lines, final scores included, when the file is a true record.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.codec import move_to_dict
from games.engine import Board, State, begin, legal_moves, load_board, score_ended, step
from games.engine.events import GameScored
from games.engine.moves import (
    BuildStation,
    ClaimRoute,
    DeclineTunnel,
    DrawCard,
    DrawTickets,
    KeepTickets,
    Move,
    PayTunnel,
)
from tests.golden.text import event_lines, move_line, parse_move_line

GOLDEN_DIR = Path(__file__).resolve().parent
ROOT = GOLDEN_DIR.parents[1]
MAX_DECISIONS = 2000  # far above a golden game's length; guards against a game that never ends
LONG_ENOUGH = 3  # shorter routes are claimed only now and then: the hand grows, and can pay a tunnel's extra
SHORT_CLAIM_CHANCE = 0.25
STATION_CHANCE = 0.05  # on a turn that claims no route
TICKET_CHANCE = 0.03  # on a turn that claims no route and builds no station
GAME_LINE = re.compile(r"game map=([a-z]+) players=(\d) seed=(\d+)")

Chooser = Callable[[State, int, int], Move]


@dataclass(frozen=True)
class Golden:
    """A golden game, and the rules (docs/RULES.md IDs) it is kept to exercise: `evidence.exercised` checks them."""

    map: str
    players: int
    seed: int
    rules: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / f"{self.map}_{self.players}p_seed{self.seed}.txt"


GAMES = (
    Golden("usa", 2, 7, rules=("U-SET-1", "C-DRW-4", "C-DRW-5", "C-TKT-1", "C-END-1", "C-LNG-1", "U-SCR-1", "U-WIN-1")),
    Golden(
        "europe", 3, 116,
        rules=(
            "E-SET-2", "C-DRW-4", "C-DRW-5", "C-TKT-1", "E-TUN-1", "E-TUN-2", "E-TUN-3", "E-FER-1", "E-STA-1",
            "E-STA-3", "E-STA-4", "C-END-1", "C-LNG-1", "E-SCR-1", "E-WIN-1",
        ),
    ),
)


def play(game: Golden) -> list[str]:
    """The golden lines of `game` as the policy plays it."""
    board = load_board(game.map)
    rng = random.Random(f"moves:{game.seed}")
    return record(game, lambda state, seat, number: choose(legal_moves(state, seat), board, rng))


def replay_text(text: str) -> list[str]:
    """The lines the moves recorded in a golden file make when played again from the file's seed."""
    found = next(m for line in text.splitlines() if (m := GAME_LINE.fullmatch(line)))
    game = Golden(found[1], int(found[2]), int(found[3]))
    recorded = iter([parsed for line in text.splitlines() if (parsed := parse_move_line(line))])
    return record(game, _recorded_chooser(recorded))


def record(game: Golden, chooser: Chooser) -> list[str]:
    chance = random.Random(game.seed)
    state, opening = begin(game.map, game.players, chance)
    lines = [*_header(game), "setup", *(line for event in opening for line in event_lines(event))]
    for number in range(1, MAX_DECISIONS + 1):
        if state.finished:
            break
        seat = min(state.deciders())  # setup: every seat keeps tickets at once; the lowest goes first
        move = chooser(state, seat, number)
        state, events = step(state, seat, move, chance)
        lines.append(move_line(number, seat, move))
        lines.extend(line for event in events for line in event_lines(event))
    assert state.finished, f"{game} did not end within {MAX_DECISIONS} decisions"
    scored = score_ended(state)  # what the server's workers append after game_ended
    return [*lines, "score", *event_lines(scored), *_final_block(scored, state.board)]


def choose(legal: list[Move], board: Board, rng: random.Random) -> Move:
    """Pay for a tunnel when possible; claim the longest route the hand pays for, with the fewest
    locomotives (a short one only now and then); now and then build a station or draw tickets; otherwise
    draw a card. Each kind of move is sorted by its codec encoding before a choice among them."""
    kinds: dict[type[Move], list[Move]] = {}
    for move in legal:
        kinds.setdefault(type(move), []).append(move)

    def of(kind: type[Move]) -> list[Any]:
        return sorted(kinds.get(kind, []), key=_move_key)

    if PayTunnel in kinds or DeclineTunnel in kinds:
        return min(of(PayTunnel), key=_locomotives, default=DeclineTunnel())
    if KeepTickets in kinds:
        return rng.choice(of(KeepTickets))
    if ClaimRoute in kinds:
        best = max(of(ClaimRoute), key=lambda m: (board.routes[m.route].length, -_locomotives(m)))
        if board.routes[best.route].length >= LONG_ENOUGH or rng.random() < SHORT_CLAIM_CHANCE:
            return best
    if BuildStation in kinds and rng.random() < STATION_CHANCE:
        return rng.choice(of(BuildStation))
    if DrawTickets in kinds and rng.random() < TICKET_CHANCE:
        return DrawTickets()
    return rng.choice(of(DrawCard) or sorted(legal, key=_move_key))


def _move_key(move: Move) -> str:
    return json.dumps(move_to_dict(move), sort_keys=True)


def _locomotives(move: ClaimRoute | PayTunnel) -> int:
    return dict(move.cards).get("locomotive", 0)


def _recorded_chooser(recorded: Iterator[tuple[int, int, Move]]) -> Chooser:
    def chooser(state: State, seat: int, number: int) -> Move:
        line = next(recorded, None)
        assert line is not None, f"the file has no move {number}, but the game goes on"
        assert line[:2] == (number, seat), f"the file's move {line[0]} is by seat {line[1]}; seat {seat} decides"
        return line[2]

    return chooser


def _header(game: Golden) -> list[str]:
    return [
        f"# Golden playthrough: {game.map}, {game.players} players, seed {game.seed}. Written by the engine: do not edit.",
        "# Update: UPDATE_GOLDEN=1 .venv/bin/pytest tests/golden   (or: python -m tests.golden.regenerate)",
        "# '<n> seat<s> <move>' is decision n; the indented lines under it are the events it caused.",
        f"game map={game.map} players={game.players} seed={game.seed}",
    ]


def _final_block(scored: GameScored, board: Board) -> list[str]:
    lines = ["final"]
    for s in scored.scores:
        done = sum(1 for t in s.tickets if t.completed)
        parts = [f"routes {s.route_points}", f"tickets {s.ticket_points} ({done} done, {len(s.tickets) - done} failed)"]
        if board.has_stations:
            parts.append(f"stations {s.station_points} ({s.stations_built} built)")
        parts.append(f"longest {s.longest_bonus} ({s.longest_path} trains)")
        lines.append(f"  seat{s.seat} place {s.place}: {s.total} = " + " + ".join(parts))
    return [*lines, "winner " + " ".join(f"seat{seat}" for seat in scored.winner_seats)]
