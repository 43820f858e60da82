"""Check an exported audit log offline, without the server and without Django (docs/CHECKPOINTS.md):

    python -m games.trust.offline_verify verify AUDIT.jsonl KEYS.json

AUDIT.jsonl is `GET /api/games/{id}/audit` (or `manage.py export_game`), KEYS.json is `GET /api/keys`. It trusts
nobody: it checks the hash chain line by line, every commitment against the outcome it hid, the signed checkpoint
on the last line (the game's id, final seq and head hash under the key it names, a key valid when the game was
scored), plays the whole game again under the rules and compares every event with the log's, field by field
(games/engine/replayed.py: with the orders derived from the seeds the log reveals, for a provably fair game, and
every random outcome recomputed from them, games/engine/fairness.py). It names the game and the key it checked.
Exit 0: all of it holds; 1: something does not (each on a line of its own: the seq, the field, both values);
2: the files cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from games.audit import log_checks
from games.audit.keys import key_ring
from games.audit.log_checks import chain_problems, fairness_problems, rules_problems
from games.engine.codec import event_from_dict  # pure Python, like the engine
from games.engine.hash_chain import checkpoint_named, commitment_problem

__all__ = ["chain_problems", "checkpoint_problems", "fairness_problems", "main", "rules_problems"]


def checkpoint_problems(lines: Sequence[dict[str, Any]], keys: Sequence[dict[str, Any]]) -> list[str]:
    """The signed checkpoint on the last line, under the keys of `GET /api/keys` (its `keys` list): the dumps'
    verifier's check (games/audit/log_checks.py), its own Ed25519 included."""
    return log_checks.checkpoint_problems(lines, key_ring({"keys": list(keys)}))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.trust.offline_verify")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check an audit log's chain, signature, moves, commitments and chance")
    verify.add_argument("audit", help="GET /api/games/{id}/audit, one event a line")
    verify.add_argument("keys", help="GET /api/keys")
    args = parser.parse_args(argv)
    try:
        with open(args.audit, encoding="utf-8") as file:
            lines = [json.loads(line) for line in file if line.strip()]
        with open(args.keys, encoding="utf-8") as file:
            keys = json.load(file)["keys"]
        problems = chain_problems(lines) + checkpoint_problems(lines, keys)
        events = [event_from_dict(line["data"]) for line in lines]
        records = [problem for problem in map(commitment_problem, lines) if problem] + rules_problems(events)
        fair, unfair = fairness_problems(events)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        print(f"cannot read the files: {error}")
        return 2
    game, key = checkpoint_named(lines)
    print(f"game {game}, checkpoint key {key}")
    for problem in [*problems, *records, *unfair]:
        print(f"game {game}: {problem}")
    chance = {True: "every random outcome is the seeds'", False: "NOT the seeds'", None: "not provably fair"}[fair]
    rules = "every event is what the rules give" if not records else "do NOT hold"
    print(
        f"game {game}: {len(lines)} events; chain and signature {'hold' if not problems else 'do NOT hold'} "
        f"(key {key}); rules and commitments: {rules}; chance: {chance}"
    )
    return 1 if problems or records or unfair else 0


if __name__ == "__main__":
    sys.exit(main())
