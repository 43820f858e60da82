"""Signed checkpoints (docs/CHECKPOINTS.md): a finished game's id, final seq and head hash, signed with one of the
server's Ed25519 keys, so that a log exported today can be shown tomorrow to be the one the server held, even if
the server recomputed a whole hash chain in between.

The keys are a JSON list of `{"id", "private_key" (base64 of the 32-byte seed), "valid_from", "valid_to"?}`; a
retired key may keep only its `"public_key"`, so old signatures stay checkable after a rotation. The key that
signs is the newest one with a private key that is valid now. They come from the setting `TTR_SIGNING_KEYS`, else
from the file `TTR_SIGNING_KEYS_FILE` (`manage.py signing_keys --generate` or the stack's first start writes it,
`--rotate` rotates it; read again when it changes). Outside production that file is generated on first use; in
production no file is an error. They are never derived from SECRET_KEY: that made them as public as its default.
"""

from __future__ import annotations

import base64
import dataclasses
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache, lru_cache
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from games.engine.hash_chain import checkpoint_message, moment
from games.store.models import Game
from games.trust.models import Checkpoint
from games.trust.shapes import ALGORITHM, SignedCheckpoint, SigningKey, SigningKeys
from ttr_server import local_secrets


@dataclass(frozen=True)
class Key:
    id: str
    public: Ed25519PublicKey
    private: Ed25519PrivateKey | None  # None: a retired key, kept to check old signatures
    valid_from: datetime
    valid_to: datetime | None

    @property
    def public_text(self) -> str:
        return base64.b64encode(self.public.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()

    def valid_at(self, at: datetime) -> bool:
        return self.valid_from <= at and (self.valid_to is None or at < self.valid_to)


def keys() -> tuple[Key, ...]:
    if settings.TTR_SIGNING_KEYS:
        return _parsed(settings.TTR_SIGNING_KEYS)
    path = Path(settings.TTR_SIGNING_KEYS_FILE)
    if not path.exists():
        if settings.PRODUCTION:
            raise ImproperlyConfigured(
                f"no signing keys: set TTR_SIGNING_KEYS or generate {path} with `manage.py signing_keys --generate`"
            )
        local_secrets.ensure_signing_keys(path)
    return _file_keys(str(path), path.stat().st_mtime_ns)


@lru_cache(maxsize=4)
def _file_keys(path: str, version: int) -> tuple[Key, ...]:
    """The file's keys, read once per version (its modification time): a rotation is seen without a restart."""
    return _parsed(Path(path).read_text())


@cache
def _parsed(configured: str) -> tuple[Key, ...]:
    return tuple(_key(entry) for entry in json.loads(configured))


def _key(entry: dict[str, str]) -> Key:
    private = None
    if entry.get("private_key"):
        private = Ed25519PrivateKey.from_private_bytes(base64.b64decode(entry["private_key"]))
        public = private.public_key()
    else:
        public = Ed25519PublicKey.from_public_bytes(base64.b64decode(entry["public_key"]))
    valid_to = entry.get("valid_to")
    return Key(
        entry["id"], public, private, moment(entry["valid_from"]), moment(valid_to) if valid_to else None
    )


def signing_key(now: datetime | None = None) -> Key:
    at = now or datetime.now(UTC)
    usable = [key for key in keys() if key.private is not None and key.valid_at(at)]
    if not usable:
        raise RuntimeError("no signing key is valid now: see TTR_SIGNING_KEYS (games/trust/signing.py)")
    return max(usable, key=lambda key: key.valid_from)


def sign(game: Game) -> Checkpoint:
    """The game's checkpoint at its seq and head as they stand (a finished, scored game's: written once)."""
    found = Checkpoint.objects.filter(game=game).first()
    if found is not None:
        return found
    key = signing_key()
    assert key.private is not None
    signature = key.private.sign(checkpoint_message(str(game.pk), game.seq, game.head_hash))
    checkpoint, _ = Checkpoint.objects.get_or_create(
        game=game,
        defaults={
            "seq": game.seq, "head_hash": game.head_hash, "key_id": key.id,
            "signature": base64.b64encode(signature).decode(),
        },
    )
    return checkpoint


def signed(checkpoint: Checkpoint) -> SignedCheckpoint:
    return SignedCheckpoint(
        game=str(checkpoint.game_id), seq=checkpoint.seq, head_hash=checkpoint.head_hash, key_id=checkpoint.key_id,
        signature=checkpoint.signature,
    )


def checkpoint_json(checkpoint: Checkpoint) -> dict[str, str | int]:
    """The checkpoint as plain data (the last line of the audit log: games/play/selectors.py `audit_lines`)."""
    return dataclasses.asdict(signed(checkpoint))


def signing_keys() -> SigningKeys:
    """GET /api/keys: every key a checkpoint may name, with its validity."""
    return SigningKeys(keys=tuple(
        SigningKey(
            id=key.id, algorithm=ALGORITHM, public_key=key.public_text, valid_from=key.valid_from,
            valid_to=key.valid_to,
        )
        for key in keys()
    ))
