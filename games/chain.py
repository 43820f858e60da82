"""The hash chain of a game's log, as plain functions of its rows' fields (no Django: an offline verifier of an
exported audit log uses them as the server does, games/audit.py).

Each row's hash is SHA-256 of the previous row's hash followed by the canonical JSON of the row's content (keys
sorted, no spaces, UTF-8): its seq, type, seat, data, commitment, salt, time (`at`, ISO-8601 as stored) and,
only when it has one, a bot's reason."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

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


CHECKPOINT_DOMAIN = "ttr-checkpoint-v1"


def checkpoint_message(game_id: str, seq: int, head_hash: str) -> bytes:
    """What a checkpoint signs (docs/CHECKPOINTS.md): the domain, the game's id, its seq and its head hash, one to a
    line, UTF-8."""
    return f"{CHECKPOINT_DOMAIN}\n{game_id}\n{seq}\n{head_hash}".encode()


def moment(text: str) -> datetime:
    """An ISO-8601 time as the API and the keys write it ("Z" or an offset; none: UTC)."""
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
