"""Golden games: play one from its seeds, write it as golden text, replay a file.

A golden game is a `Golden`: a map, a number of seats, how the moves are chosen and two seeds. Chance (every
shuffle, hence every tunnel reveal) comes from `random.Random(game.chance)`, handed to the engine; the moves come
from a chooser drawing on its own `random.Random(game.moves)`, over the legal moves alone (never the view, whose
shape is not the rules): `choose`, a fixed, simple policy that reaches tunnels, ferries and stations, or
`choose_any`, any legal move, uniformly, which reaches the moves no policy would make. Each sorts the legal moves
first, so the order `legal_moves` lists them in does not matter: a golden file changes when the rules change, not
when the engine is refactored.

`course` is the game's events with the decisions that caused them; `record` writes it as golden text (who sees
what included); `replay_text` plays a golden file's recorded moves (not the chooser's) through the engine from the
file's seed and returns the lines that makes: the same lines, final scores included, when the file is a true record.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.engine import Board, begin, legal_moves, load_board, score_ended, step
from games.engine.codec import move_to_dict
from games.engine.events import Event, GameScored
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
from tests.golden.text import TOKEN, move_line, parse_move_line, parse_value, value_text
from tests.golden.views import Sight

GOLDEN_DIR = Path(__file__).resolve().parent
ROOT = GOLDEN_DIR.parents[1]
MAX_DECISIONS = 2000  # far above a golden game's length; guards against a game that never ends
LONG_ENOUGH = 3  # shorter routes are claimed only now and then: the hand grows, and can pay a tunnel's extra
SHORT_CLAIM_CHANCE = 0.25
STATION_CHANCE = 0.05  # on a turn that claims no route
TICKET_CHANCE = 0.03  # on a turn that claims no route and builds no station

Chooser = Callable[[list[Move], int, int], Move]  # (legal moves, seat, decision number) -> the move


@dataclass(frozen=True)
class Golden:
    """A golden game, and the rules (docs/RULES.md IDs) it is kept to exercise: `evidence.exercised` checks them."""

    map: str
    players: int
    chooser: str  # "policy" (`choose`) or "random" (`choose_any`)
    chance: int | str  # seeds the random.Random the engine shuffles with
    moves: str  # seeds the random.Random the chooser draws on
    rules: tuple[str, ...] = ()

    @classmethod
    def seeded(cls, map_name: str, players: int, seed: int, rules: tuple[str, ...] = ()) -> Golden:
        """A game the policy plays from one seed."""
        return cls(map_name, players, "policy", seed, f"moves:{seed}", rules)

    @classmethod
    def at_random(cls, map_name: str, players: int, rules: tuple[str, ...] = ()) -> Golden:
        """A game of any legal moves, its seeds named by its map and number of seats."""
        name = f"golden:{map_name}:{players}"
        return cls(map_name, players, "random", f"{name}:chance", f"{name}:moves", rules)

    @property
    def path(self) -> Path:
        how = f"seed{self.chance}" if self.chooser == "policy" else "random"
        return GOLDEN_DIR / f"{self.map}_{self.players}p_{how}.txt"


# The rules (docs/RULES.md IDs) the games show: evidence.py says how each is found in a file.
USA = ("U-SET-1", "C-DRW-4", "C-DRW-5", "C-TKT-1", "C-END-1", "C-LNG-1", "U-SCR-1", "U-WIN-1")
EUROPE_AT_RANDOM = (
    "E-SET-2", "C-DRW-4", "C-DRW-5", "C-TKT-1", "E-TUN-1", "E-TUN-3", "E-FER-1", "E-STA-1", "C-END-1", "C-LNG-1",
    "E-SCR-1", "E-WIN-1",
)
GAMES = (
    Golden.seeded("usa", 2, 7, rules=USA),
    Golden.seeded(
        "europe", 3, 116,
        rules=(
            "E-SET-2", "C-DRW-4", "C-DRW-5", "C-TKT-1", "E-TUN-1", "E-TUN-2", "E-TUN-3", "E-FER-1", "E-STA-1",
            "E-STA-3", "E-STA-4", "C-END-1", "C-LNG-1", "E-SCR-1", "E-WIN-1",
        ),
    ),
    Golden.at_random("europe", 2, rules=EUROPE_AT_RANDOM),
    Golden.at_random("europe", 5, rules=(*EUROPE_AT_RANDOM, "E-STA-3")),
    Golden.at_random("usa", 3, rules=USA),
    Golden.at_random("usa", 4, rules=USA),
)


@dataclass(frozen=True)
class Decision:
    number: int
    seat: int
    move: Move
    legal: int  # how many legal moves the seat had


def play(game: Golden) -> list[str]:
    """The golden lines of `game` as its chooser plays it."""
    return record(game, chooser_of(game))


def chooser_of(game: Golden) -> Chooser:
    rng = random.Random(game.moves)
    if game.chooser == "random":
        return lambda legal, seat, number: choose_any(legal, rng)
    board = load_board(game.map)
    return lambda legal, seat, number: choose(legal, board, rng)


def replay_text(text: str) -> list[str]:
    """The lines the moves recorded in a golden file make when played again from the file's seed."""
    line = next(line for line in text.splitlines() if line.startswith("game "))
    fields = {key: parse_value(value) for key, value in TOKEN.findall(line)}
    game = Golden(fields["map"], fields["players"], fields["chooser"], fields["chance"], fields["moves"])
    recorded = iter([parsed for line in text.splitlines() if (parsed := parse_move_line(line))])
    return record(game, _recorded_chooser(recorded))


def course(game: Golden, chooser: Chooser) -> Iterator[tuple[Decision | None, tuple[Event, ...]]]:
    """The game's events in order, each batch with the decision that caused it: None for the setup, and for the
    game_scored that the server's workers append after game_ended."""
    chance = random.Random(game.chance)
    state, opening = begin(game.map, game.players, chance)
    yield None, opening
    for number in range(1, MAX_DECISIONS + 1):
        if state.finished:
            break
        seat = min(state.deciders())  # setup: every seat keeps tickets at once; the lowest goes first
        legal = legal_moves(state, seat)
        move = chooser(legal, seat, number)
        state, events = step(state, seat, move, chance)
        yield Decision(number, seat, move, len(legal)), events
    assert state.finished, f"{game} did not end within {MAX_DECISIONS} decisions"
    yield None, (score_ended(state),)


def record(game: Golden, chooser: Chooser) -> list[str]:
    sight = Sight(game.players)
    lines = _header(game)
    for decision, events in course(game, chooser):
        if decision is not None:
            lines.append(move_line(decision.number, decision.seat, decision.move, decision.legal))
        elif isinstance(events[0], GameScored):
            lines.append("score")
        else:
            lines.append("setup")
        lines.extend(sight.lines(events))
    scored = events[0]
    assert isinstance(scored, GameScored)
    return [*lines, *_final_block(scored, load_board(game.map))]


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


def choose_any(legal: list[Move], rng: random.Random) -> Move:
    """Any legal move, uniformly; the moves sorted by their repr (the order these games were first recorded in)."""
    moves = sorted(legal, key=repr)
    return moves[rng.randrange(len(moves))]


def _move_key(move: Move) -> str:
    return json.dumps(move_to_dict(move), sort_keys=True)


def _locomotives(move: ClaimRoute | PayTunnel) -> int:
    return dict(move.cards).get("locomotive", 0)


def _recorded_chooser(recorded: Iterator[tuple[int, int, Move]]) -> Chooser:
    def chooser(legal: list[Move], seat: int, number: int) -> Move:
        line = next(recorded, None)
        assert line is not None, f"the file has no move {number}, but the game goes on"
        assert line[:2] == (number, seat), f"the file's move {line[0]} is by seat {line[1]}; seat {seat} decides"
        assert line[2] in legal, f"the file's move {number} is not legal: {line[2]}"
        return line[2]

    return chooser


def _header(game: Golden) -> list[str]:
    how = "the policy's moves" if game.chooser == "policy" else "any legal moves, drawn at random"
    return [
        f"# Golden playthrough: {game.map}, {game.players} players, {how}. Written by the engine: do not edit.",
        "# Update: TTR_REGENERATE_GOLDEN=1 .venv/bin/pytest tests/golden, then review the diff.",
        "# '<n> seat<s> <move> (<k> legal)' is decision n, one of k legal moves; the lines indented under it are",
        "# the events it caused, each followed by how the viewers it is redacted for read it ('<viewers> see:')",
        "# and what changed in each viewer's view ('view all:', 'view <viewers>:'): tests/golden/views.py.",
        "game " + " ".join(
            f"{key}={value_text(value)}"
            for key, value in (("map", game.map), ("players", game.players), ("chooser", game.chooser),
                               ("chance", game.chance), ("moves", game.moves))
        ),
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
