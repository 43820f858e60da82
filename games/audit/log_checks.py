"""The checks of one game's audit log (`GET /api/games/{id}/audit`, one dict a line), each a plain function that
returns what does not hold ([] when all of it does): the monthly dumps' verifier runs them on every game, and the
single-game offline verifier (games/trust/offline_verify.py) checks the same things.

- `chain_problems`: seq 1..N, each line's prev_hash the previous line's hash, each hash the line's own;
- `commitment_problems`: every commitment against the outcome it hid;
- `checkpoint_problems`: the signed checkpoint on the last line names this seq and head, under a key of the keys
  file valid when the game was scored (the last line's time), and its Ed25519 signature holds;
- `rules_problems`: the whole game played again under the rules and compared with the log, which must reach the
  game's end (scored, or aborted);
- `fairness_problems`: every random outcome recomputed from the seeds the log reveals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.audit.keys import KeyRing, signature_problems
from games.engine import Event, redact
from games.engine.codec import event_from_dict, event_to_dict
from games.engine.fairness import log_checked, revealed_seeds
from games.engine.hash_chain import GENESIS_HASH, checkpoint_message, commitment_of, hidden_fields, line_hash
from games.engine.replayed import log_replayed

READ_ERRORS = (KeyError, IndexError, TypeError, ValueError, AttributeError, AssertionError)  # a malformed line's


def chain_problems(lines: Sequence[dict[str, Any]]) -> list[str]:
    """The hash chain: seq 1..N in order, each prev_hash the previous line's hash (the genesis hash first), and
    each line's hash the SHA-256 of its previous hash and its own content."""
    problems, prev = [], GENESIS_HASH
    for expected, line in enumerate(lines, start=1):
        if line.get("seq") != expected:
            problems.append(f"line {expected}: seq {line.get('seq')}, expected {expected}")
        if line.get("prev_hash") != prev:
            problems.append(f"line {expected}: prev_hash is not the previous line's hash")
        try:
            holds = line_hash(line) == line.get("hash")
        except READ_ERRORS as error:
            problems.append(f"line {expected}: cannot be hashed ({error!r})")
        else:
            if not holds:
                problems.append(f"line {expected}: the hash does not match the line (it was changed)")
        prev = line.get("hash", "")
    return problems


def decoded_events(lines: Sequence[dict[str, Any]]) -> tuple[list[Event] | None, list[str]]:
    """The engine events the lines hold; None and the problem when one cannot be read as an event."""
    events = []
    for line in lines:
        try:
            events.append(event_from_dict(line["data"]))
        except READ_ERRORS as error:
            return None, [f"seq {line.get('seq')}: the event cannot be read ({error!r})"]
    return events, []


def commitment_problems(lines: Sequence[dict[str, Any]], events: Sequence[Event]) -> list[str]:
    """Each line's commitment against the hidden fields its data reveals, as games/engine/hash_chain.py's
    `commitment_problem` checks one, from the events already decoded (`decoded_events`): an event that hides
    something (its public form, `redact(event, None)`, is another) must carry the hash of its salt and its hidden
    fields; one that hides nothing carries none."""
    problems = []
    for line, event in zip(lines, events, strict=True):
        public = redact(event, None)
        hidden = {} if public is event else hidden_fields(line["data"], event_to_dict(public))
        where = f"seq {line.get('seq')} ({line.get('type')}), field commitment"
        if not hidden:
            if line.get("commitment"):
                problems.append(f"{where}: the event hides nothing, yet carries one")
        elif not line.get("commitment"):
            problems.append(f"{where}: the event hides {', '.join(sorted(hidden))} but carries no commitment")
        elif commitment_of(str(line.get("salt", "")), hidden) != line["commitment"]:
            problems.append(f"{where}: its salt and hidden fields ({', '.join(sorted(hidden))}) give another hash")
    return problems


def checkpoint_problems(lines: Sequence[dict[str, Any]], ring: KeyRing) -> list[str]:
    """The signed checkpoint on the last line: it names the last line's seq and hash, a key of `ring` valid when
    the game was scored (the last line's `at`), and its signature of (game, seq, head) holds."""
    if not lines:
        return ["the log is empty"]
    last, checkpoint = lines[-1], lines[-1].get("checkpoint")
    if not isinstance(checkpoint, dict):
        return ["the last line carries no signed checkpoint (the game is not scored yet, or the log is cut short)"]
    problems = []
    if (checkpoint.get("seq"), checkpoint.get("head_hash")) != (last.get("seq"), last.get("hash")):
        problems.append("the checkpoint names another seq or head than the log's last line")
    try:
        message = checkpoint_message(str(checkpoint["game"]), int(checkpoint["seq"]), str(checkpoint["head_hash"]))
    except READ_ERRORS as error:
        return [*problems, f"the checkpoint cannot be read ({error!r})"]
    found = signature_problems(ring, checkpoint.get("key_id"), str(last.get("at")), message, checkpoint.get("signature"))
    return [*problems, *(f"checkpoint: {problem}" for problem in found)]


def rules_problems(events: Sequence[Event]) -> list[str]:
    """The whole game played again and compared with the log (with the seeds' orders once they are revealed, the
    log's own shuffles for a game without seeds); the log must reach the game's end."""
    seeds = revealed_seeds(events)
    replayed = log_replayed(events, seeds.game_seed() if seeds is not None else None)
    if replayed.difference is not None:
        return [f"rules: {replayed.difference}"]
    if not replayed.over:
        return [f"rules: the log ends at seq {len(events)}, before the game is over (scored or aborted)"]
    return []


def fairness_problems(events: Sequence[Event]) -> tuple[bool | None, list[str]]:
    """Every random outcome recomputed from the seeds the log reveals: None for a game without seeds (not
    provably fair), else whether all of them are the seeds'."""
    verdict = log_checked(events)
    if verdict is None:
        return None, []
    return verdict.fair, ([] if verdict.fair else [f"chance: {verdict.problem}"])
