"""The server's signing keys as `GET /api/keys` lists them (keys.json beside the dumps), and the checks of one
signature by one of them: that the key named exists, that it was valid at the moment the thing was signed, and
that the Ed25519 signature holds (games/audit/ed25519.py)."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from games.audit import ed25519
from games.engine.hash_chain import moment


@dataclass(frozen=True)
class Key:
    id: str
    public_key: bytes  # the 32 raw bytes
    valid_from: datetime
    valid_to: datetime | None  # None: still signing

    def valid_at(self, at: datetime) -> bool:
        return self.valid_from <= at and (self.valid_to is None or at < self.valid_to)


@dataclass(frozen=True)
class KeyRing:
    keys: tuple[Key, ...]

    def named(self, key_id: object) -> Key | None:
        return next((key for key in self.keys if key.id == key_id), None)


def key_ring(body: dict[str, Any]) -> KeyRing:
    """The keys of a `GET /api/keys` body; ValueError (or KeyError, TypeError) when it is not one."""
    return KeyRing(tuple(
        Key(
            id=str(entry["id"]),
            public_key=base64.b64decode(entry["public_key"], validate=True),
            valid_from=moment(entry["valid_from"]),
            valid_to=moment(entry["valid_to"]) if entry.get("valid_to") else None,
        )
        for entry in body["keys"]
    ))


def read_key_ring(path: Path) -> KeyRing:
    """keys.json read; OSError, ValueError, KeyError or TypeError when it cannot be read as one."""
    return key_ring(json.loads(path.read_text(encoding="utf-8")))


def signature_problems(ring: KeyRing, key_id: object, signed_at: str, message: bytes, signature: object) -> list[str]:
    """What is wrong with `signature` (base64) as key `key_id`'s signature of `message` made at `signed_at`
    (ISO-8601): no such key, a key not valid then, a signature that does not verify. [] when it holds."""
    key = ring.named(key_id)
    if key is None:
        return [f"no key {key_id!r} in the keys file"]
    problems = []
    try:
        if not key.valid_at(moment(signed_at)):
            problems.append(f"key {key.id} was not valid at {signed_at}")
    except (ValueError, TypeError, AttributeError):
        problems.append(f"the signing time {signed_at!r} cannot be read")
    try:
        raw = base64.b64decode(str(signature), validate=True)
    except (binascii.Error, ValueError):
        return [*problems, "the signature is not base64"]
    if not ed25519.verify(key.public_key, message, raw):
        problems.append(f"the signature does not verify under key {key.id}")
    return problems
