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
import base64
import json
import sys
from collections.abc import Sequence
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from games.engine import Event
from games.engine.codec import event_from_dict  # pure Python, like the engine
from games.engine.fairness import log_checked, revealed_seeds
from games.engine.hash_chain import GENESIS_HASH, checkpoint_message, checkpoint_named, commitment_problem, line_hash, moment
from games.engine.replayed import log_replayed


def chain_problems(lines: Sequence[dict[str, Any]]) -> list[str]:
    problems, prev = [], GENESIS_HASH
    for expected, line in enumerate(lines, start=1):
        if line.get("seq") != expected:
            problems.append(f"line {expected}: seq {line.get('seq')}, expected {expected}")
        if line.get("prev_hash") != prev:
            problems.append(f"line {expected}: prev_hash is not the previous line's hash")
        if line_hash(line) != line.get("hash"):
            problems.append(f"line {expected}: the hash does not match the line (it was changed)")
        prev = line.get("hash", "")
    return problems


def checkpoint_problems(lines: Sequence[dict[str, Any]], keys: Sequence[dict[str, Any]]) -> list[str]:
    if not lines:
        return ["the log is empty"]
    last, checkpoint = lines[-1], lines[-1].get("checkpoint")
    if not isinstance(checkpoint, dict):
        return ["the last line carries no signed checkpoint (the game is not scored yet, or the file is cut short)"]
    problems = []
    if (checkpoint.get("seq"), checkpoint.get("head_hash")) != (last.get("seq"), last.get("hash")):
        problems.append("the checkpoint names another seq or head than the log's last line")
    key = next((k for k in keys if k.get("id") == checkpoint.get("key_id")), None)
    if key is None:
        return [*problems, f"no key {checkpoint.get('key_id')!r} in the keys file"]
    signed_at = moment(last["at"])
    valid_to = moment(key["valid_to"]) if key.get("valid_to") else None
    if signed_at < moment(key["valid_from"]) or (valid_to is not None and signed_at >= valid_to):
        problems.append(f"key {key['id']} was not valid when the game was scored ({last['at']})")
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(key["public_key"]))
    try:
        message = checkpoint_message(str(checkpoint["game"]), int(checkpoint["seq"]), str(checkpoint["head_hash"]))
        public.verify(base64.b64decode(checkpoint["signature"]), message)
    except (InvalidSignature, ValueError, KeyError):
        problems.append("the signature does not verify")
    return problems


def fairness_problems(events: Sequence[Event]) -> tuple[bool | None, list[str]]:
    verdict = log_checked(events)
    if verdict is None:
        return None, []
    return verdict.fair, ([] if verdict.fair else [f"chance: {verdict.problem}"])


def rules_problems(events: Sequence[Event]) -> list[str]:
    """The whole game played again and compared with the log (with the seeds' orders once they are revealed, the
    log's own shuffles for a game without seeds), and the log must reach the game's end."""
    seeds = revealed_seeds(events)
    replayed = log_replayed(events, seeds.game_seed() if seeds is not None else None)
    if replayed.difference is not None:
        return [f"rules: {replayed.difference}"]
    if not replayed.over:
        return [f"rules: the log ends at seq {len(events)}, before the game is over (scored or aborted)"]
    return []


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
