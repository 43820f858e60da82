"""Provably fair randomness (docs/FAIRNESS.md): every random outcome of a game drawn from a stream of its seeds.

The server draws a secret server seed when a game is created and publishes its SHA-256; each person who sits
down may add a client seed; at the start the game seed is derived from the server seed and the client seeds in
seat order. The first player and every shuffle (the setup's deck and ticket piles, each reshuffle of the discards)
are then drawn from counter-mode SHA-256 streams of the game seed, one stream per outcome, with unbiased integer
sampling and Fisher-Yates. Once the game is over and the server seed revealed, anyone recomputes every outcome
(`outcomes_checked`) and compares it with the log; the command line (`main`) then plays the whole game again
under the rules with those orders (games/engine/replayed.py), so a hand dealt or a card drawn other than the
orders give is found too. Bots' own randomness is theirs, not drawn from here.

What it proves: the server could not choose the deck (it fixed its seed before the players chose theirs, and the
hash published at creation binds it). What it does not: the server still knows the order of the deck while the
game runs, as any dealer does.

Standard library only, like the rest of the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import events as ev
from .board import load_board
from .cards import CARD_KINDS, full_deck
from .evolve import evolve_in_place, initial_state

# The derivation itself is seeds.py's (replayed.py builds on it too).
from .seeds import (
    FIRST_SEAT,
    Seeds,
    Stream,
    shuffled,
)


@dataclass(frozen=True)
class Verdict:
    fair: bool
    checked: int  # random outcomes recomputed
    problem: str = ""  # the first outcome that differs


def outcomes_checked(
    events: Sequence[ev.Event], seeds: Seeds, *, published_hash: str, first_seat_drawn: bool = True
) -> Verdict:
    """Recompute every random outcome of a complete, unredacted log from the seeds and compare each with the log;
    the server seed revealed must be the one whose hash was published when the game was created.
    `first_seat_drawn`: False for a game whose first player was given (a rematch), not drawn."""
    if seeds.server_hash != published_hash:
        return Verdict(False, 0, "the server seed revealed is not the one whose hash was published")
    if not events or not isinstance(events[0], ev.GameStarted):
        return Verdict(False, 0, "a game's log starts with game_started")
    started = events[0]
    seed = seeds.game_seed()
    checked = 0
    if first_seat_drawn:
        drawn = Stream(seed, FIRST_SEAT).below(started.players)
        if drawn != started.first_seat:
            return Verdict(False, checked, f"first_seat is {started.first_seat}, the seeds draw {drawn}")
        checked += 1
    board = load_board(started.map)
    state = initial_state(started)
    number = 0
    for index, event in enumerate(events[1:], start=2):
        if isinstance(event, ev.DeckShuffled):
            if event.reason == "setup":
                canonical = full_deck()
            else:
                canonical = [kind for kind in CARD_KINDS for _ in range(state.discards.get(kind, 0))]
            expected = tuple(shuffled(seed, number, canonical))
            if event.cards != expected:
                return Verdict(False, checked, f"event {index} ({event.reason} shuffle {number}) differs from the seeds'")
            number, checked = number + 1, checked + 1
        elif isinstance(event, ev.TicketsShuffled):
            regular = tuple(shuffled(seed, number, board.regular_tickets))
            long_ = tuple(shuffled(seed, number + 1, board.long_tickets))
            if (event.tickets, event.long_tickets) != (regular, long_):
                return Verdict(False, checked, f"event {index} (tickets, shuffles {number} and {number + 1}) differs")
            number, checked = number + 2, checked + 2
        evolve_in_place(state, event)
    return Verdict(True, checked)


def revealed_seeds(events: Sequence[ev.Event]) -> Seeds | None:
    """The seeds a log commits to (`seeds_committed`) and reveals (`seeds_revealed`); None while they are not both
    there and readable (a game without fair chance, one not over, a log whose seeds are not hex of the right size)."""
    committed = next((e for e in events if isinstance(e, ev.SeedsCommitted)), None)
    revealed = next((e for e in events if isinstance(e, ev.SeedsRevealed)), None)
    if committed is None or revealed is None:
        return None
    try:
        return Seeds(bytes.fromhex(revealed.server_seed), tuple(bytes.fromhex(c) for c in committed.client_seeds))
    except ValueError:
        return None


def log_checked(events: Sequence[ev.Event]) -> Verdict | None:
    """A whole log's fairness from its own `seeds_committed` and `seeds_revealed`: None for a game that is not
    provably fair (it has no seeds), a Verdict otherwise (unfair while the server seed is not yet revealed)."""
    committed = next((e for e in events if isinstance(e, ev.SeedsCommitted)), None)
    if committed is None:
        return None
    revealed = next((e for e in events if isinstance(e, ev.SeedsRevealed)), None)
    if revealed is None:
        return Verdict(False, 0, "the server seed is not revealed yet: the game is not over")
    try:
        seeds = Seeds(bytes.fromhex(revealed.server_seed), tuple(bytes.fromhex(c) for c in committed.client_seeds))
    except ValueError as error:
        return Verdict(False, 0, f"the seeds cannot be read: {error}")
    return outcomes_checked(
        events, seeds, published_hash=committed.server_seed_hash, first_seat_drawn=committed.first_seat_drawn
    )


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m games.engine.fairness verify AUDIT.jsonl`: every random outcome recomputed from the seeds the log
    reveals, then the whole game played again under the rules with those orders and compared with the log, event
    by event and field by field, and every commitment checked against the outcome it hid. Exit 0 when all of it
    holds, 1 when something does not (the game, the seq and the field said), 2 when the game is not provably fair
    (no seeds) or the file cannot be read."""
    import argparse
    import json

    from games.engine.codec import event_from_dict

    # JSON and the audit lines live outside the engine, like the simulator's logs; both modules are pure.
    from games.engine.hash_chain import checkpoint_named, commitment_problem

    from .replayed import log_replayed

    parser = argparse.ArgumentParser(prog="python -m games.engine.fairness")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check a game's chance, moves and commitments from its audit log")
    verify.add_argument("audit", help="the game's audit log: GET /api/games/{id}/audit, one event a line")
    args = parser.parse_args(argv)
    try:
        with open(args.audit, encoding="utf-8") as file:
            lines = [json.loads(line) for line in file if line.strip()]
        events = [event_from_dict(line["data"]) for line in lines]
        problems = [problem for problem in map(commitment_problem, lines) if problem]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        print(f"cannot read {args.audit}: {error}")
        return 2
    game, key = checkpoint_named(lines)
    print(f"game {game}; its checkpoint names key {key} (python -m games.trust.offline_verify verify checks the signature)")
    verdict = log_checked(events)
    if verdict is None:
        print("not provably fair: the game has no seeds (it was created before fair chance, or without it)")
        return 2
    committed = next(e for e in events if isinstance(e, ev.SeedsCommitted))
    print(f"server seed hash {committed.server_seed_hash}: compare it with the one published when the game was created")
    if not verdict.fair:
        print(f"NOT fair: game {game}: {verdict.problem} ({verdict.checked} outcomes matched before it)")
        return 1
    seeds = revealed_seeds(events)
    assert seeds is not None  # (a fair verdict is one whose seeds were revealed and read)
    replayed = log_replayed(events, seeds.game_seed())
    if replayed.difference is not None:
        problems.insert(0, str(replayed.difference))
    elif not replayed.over:
        problems.append(f"the log ends at seq {len(events)}, before the game is scored")
    for problem in problems:
        print(f"NOT fair: game {game}: {problem}")
    if problems:
        return 1
    print(f"fair: all {verdict.checked} random outcomes are the seeds'; all {len(events)} events are what the rules give")
    print(f"({replayed.moves} moves decided again with the seeds' orders) and every commitment holds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
