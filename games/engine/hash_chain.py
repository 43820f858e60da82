"""The hash chain of a game's log, as plain functions of its rows' fields (no Django: an offline verifier of an
exported audit log uses them as the server does, games/trust/offline_verify.py).

Each row's hash is SHA-256 of the previous row's hash followed by the canonical JSON of the row's content (keys
sorted, no spaces, UTF-8): its seq, type, seat, data, commitment, salt, time (`at`, ISO-8601 as stored) and,
only when it has one, a bot's reason. An event that hides a random outcome (a card dealt or drawn blind, a shuffle,
tickets dealt or kept) also carries a commitment: SHA-256 of its salt and the canonical JSON of the hidden fields
(`commitment_problem` checks one line of an audit log against it).
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

from games.engine import redact
from games.engine.codec import event_from_dict, event_to_dict  # pure, like the engine: no Django here

GENESIS_HASH = "0" * 64  # the prev_hash of a log's first row


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def row_hash(
    prev_hash: str, seq: int, type_: str, seat: int | None, data: dict[str, Any], commitment: str, salt: str,
    at: str, reason: str = "",
) -> str:
    body = {"seq": seq, "type": type_, "seat": seat, "data": data, "commitment": commitment, "salt": salt, "at": at}
    if reason:  # only when set: rows without one (every row written before reasons existed) hash as they did
        body["reason"] = reason
    return sha256(prev_hash + canonical_json(body))


def line_hash(line: dict[str, Any]) -> str:
    """The hash of one line of an audit log (docs/API.md: seq, type, at, seat, data, commitment, salt, prev_hash)."""
    return row_hash(
        line["prev_hash"], line["seq"], line["type"], line["seat"], line["data"], line["commitment"], line["salt"],
        line["at"], line.get("reason", ""),
    )


def hidden_fields(data: dict[str, Any], public: dict[str, Any]) -> dict[str, Any]:
    """The fields of an event that a spectator does not see (`public`: the event as a spectator gets it)."""
    return {key: value for key, value in data.items() if public.get(key) != value}


def commitment_of(salt: str, hidden: dict[str, Any]) -> str:
    return sha256(salt + canonical_json(hidden))


def commitment_problem(line: dict[str, Any]) -> str | None:
    """One audit line's commitment against the hidden fields its data reveals (None: it holds). An event that
    hides something must carry one; one that hides nothing carries none."""
    data = line["data"]
    hidden = hidden_fields(data, event_to_dict(redact(event_from_dict(data), None)))
    where = f"seq {line.get('seq')} ({line.get('type')}), field commitment"
    if not hidden:
        return f"{where}: the event hides nothing, yet carries one" if line.get("commitment") else None
    if not line.get("commitment"):
        return f"{where}: the event hides {', '.join(sorted(hidden))} but carries no commitment"
    if commitment_of(str(line.get("salt", "")), hidden) != line["commitment"]:
        return f"{where}: its salt and hidden fields ({', '.join(sorted(hidden))}) give another hash"
    return None


CHECKPOINT_DOMAIN = "ttr-checkpoint-v1"


def checkpoint_message(game_id: str, seq: int, head_hash: str) -> bytes:
    """What a checkpoint signs (docs/CHECKPOINTS.md): the domain, the game's id, its seq and its head hash, one to a
    line, UTF-8."""
    return f"{CHECKPOINT_DOMAIN}\n{game_id}\n{seq}\n{head_hash}".encode()


def moment(text: str) -> datetime:
    """An ISO-8601 time as the API and the keys write it ("Z" or an offset; none: UTC)."""
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def checkpoint_named(lines: list[dict[str, Any]]) -> tuple[str, str]:
    """The game and the key an audit log's checkpoint (on its last line) names, for a verifier to say what it
    checked; a stand-in text for each when the log carries none (a game not scored, a file cut short)."""
    checkpoint = lines[-1].get("checkpoint") if lines else None
    if not isinstance(checkpoint, dict):
        return "unknown (the log carries no checkpoint)", "none"
    return str(checkpoint.get("game", "unknown")), str(checkpoint.get("key_id", "none"))
