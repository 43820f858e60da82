"""What the trust reads answer (docs/CHECKPOINTS.md, docs/API.md): a signed checkpoint, the signing keys and a
game's verification, each a frozen dataclass whose JSON and OpenAPI schema are read off its type hints
(games/api/typed_json.py, games/api/typed_schema.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from games.store.shape_marks import Schema

ALGORITHM = "ed25519"


@dataclass(frozen=True, slots=True, kw_only=True)
class SignedCheckpoint:
    """A game's id, seq and head hash, signed with one of the server's keys."""

    game: Annotated[str, Schema(format="uuid")]  # (text: the audit log's last line carries it too)
    seq: Annotated[int, Schema(minimum=1)]
    head_hash: Annotated[str, Schema(minLength=64, maxLength=64)]
    key_id: str
    signature: Annotated[
        str,
        Schema(
            "base64 Ed25519 signature of the UTF-8 text 'ttr-checkpoint-v1', the game id, the seq and the head hash, "
            "one to a line (docs/CHECKPOINTS.md)"
        ),
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class SigningKey:
    id: str
    algorithm: Annotated[str, Schema(enum=[ALGORITHM])]
    public_key: Annotated[str, Schema("base64 of the 32-byte Ed25519 public key")]
    valid_from: datetime
    valid_to: Annotated[datetime | None, Schema("null: still signing")]


@dataclass(frozen=True, slots=True, kw_only=True)
class SigningKeys:
    """Every key a checkpoint may name, with its validity."""

    keys: tuple[SigningKey, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Verification:
    """A game's record checked: the hash chain, the commitments, a full replay, the final scores, the chance."""

    ok: bool
    events: Annotated[int, Schema(minimum=0)]
    head_hash: str
    problems: tuple[str, ...]
    fair: Annotated[
        bool | None,
        Schema(
            "every random outcome recomputed from the seeds the log reveals (docs/FAIRNESS.md): null for a game from "
            "before provably fair chance, or one not over yet"
        ),
    ]
