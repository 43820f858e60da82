"""Signed checkpoints (docs/CHECKPOINTS.md, games/trust/signing.py): a scored game's id, final seq and head hash signed
with the server's Ed25519 key; `/api/keys` publishes the keys with their validity; the audit log's last line
carries the checkpoint, and `python -m games.trust.offline_verify verify AUDIT.jsonl KEYS.json` checks it all
offline, without
Django: a log whose chain was recomputed after a change is caught, and a key rotation leaves old signatures
checkable."""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat
from rest_framework.test import APIClient

from games.engine.hash_chain import checkpoint_message, line_hash
from tests.server.helpers import assert_error, audit_lines, body, finish_by_services, seated_game, url

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def offline_check(tmp_path: Path, lines: list[dict[str, Any]], keys: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """The verifier in a process where Django cannot even be imported: it needs only the files."""
    audit, keys_file = tmp_path / "audit.jsonl", tmp_path / "keys.json"
    audit.write_text("".join(json.dumps(line) + "\n" for line in lines))
    keys_file.write_text(json.dumps(keys))
    code = (
        "import sys; sys.modules['django'] = None; from games.trust.offline_verify import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    command = [sys.executable, "-c", code, "verify", str(audit), str(keys_file)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)


def finished_game(prefix: str, seed: int) -> str:
    table = seated_game(prefix, "usa", 2)
    finish_by_services(table.game_id, random.Random(seed))
    return table.game_id


def test_a_scored_game_is_signed_and_its_exported_log_checks_offline_and_a_rewritten_one_does_not(
    tmp_path: Path,
) -> None:
    running = seated_game("cp-run", "usa", 2)
    assert_error(APIClient().get(url(running.game_id, "checkpoint")), 409, "not_finished")

    game_id = finished_game("cp", 11)
    checkpoint = body(APIClient().get(url(game_id, "checkpoint")))
    keys = body(APIClient().get("/api/keys"))
    lines = audit_lines(APIClient(), game_id)
    assert checkpoint == {**lines[-1]["checkpoint"]} and checkpoint["game"] == game_id
    assert (checkpoint["seq"], checkpoint["head_hash"]) == (lines[-1]["seq"], lines[-1]["hash"])
    key = next(k for k in keys["keys"] if k["id"] == checkpoint["key_id"])
    assert key["algorithm"] == "ed25519" and key["valid_to"] is None
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(key["public_key"]))
    signed = checkpoint_message(game_id, checkpoint["seq"], checkpoint["head_hash"])
    public.verify(base64.b64decode(checkpoint["signature"]), signed)
    assert body(APIClient().get(url(game_id, "checkpoint"))) == checkpoint  # signed once

    held = offline_check(tmp_path, lines, keys)
    assert held.returncode == 0 and "chain and signature hold" in held.stdout, held

    # The server rewrites history: one event changed and the whole chain recomputed to match.
    rewritten = [dict(line) for line in lines]
    at = next(i for i, line in enumerate(rewritten) if line["type"] == "route_claimed")
    rewritten[at]["data"] = {**rewritten[at]["data"], "points": rewritten[at]["data"]["points"] + 10}
    prev = rewritten[at - 1]["hash"]
    for line in rewritten[at:]:
        line["prev_hash"] = prev
        line["hash"] = prev = line_hash(line)
    caught = offline_check(tmp_path, rewritten, keys)
    assert caught.returncode == 1 and "another seq or head" in caught.stdout, caught
    rewritten[-1]["checkpoint"] = {**checkpoint, "head_hash": rewritten[-1]["hash"]}  # and the checkpoint's head too
    forged = offline_check(tmp_path, rewritten, keys)
    assert forged.returncode == 1 and "signature does not verify" in forged.stdout, forged
    edited = [dict(line) for line in lines]
    edited[3]["seat"] = 1 - (edited[3]["seat"] or 0)  # an edit without recomputing anything: the chain breaks
    assert "the hash does not match" in offline_check(tmp_path, edited, keys).stdout


def _private_text(key: Ed25519PrivateKey) -> str:
    return base64.b64encode(key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())).decode()


def _public_text(key: Ed25519PrivateKey) -> str:
    return base64.b64encode(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()


def test_after_a_key_rotation_old_checkpoints_still_check_and_new_ones_use_the_new_key(
    settings: Any, tmp_path: Path
) -> None:
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    since = "2026-01-01T00:00:00Z"
    settings.TTR_SIGNING_KEYS = json.dumps([{"id": "k-old", "private_key": _private_text(old), "valid_from": since}])
    first = finished_game("rot-a", 12)
    assert body(APIClient().get(url(first, "checkpoint")))["key_id"] == "k-old"
    first_lines = audit_lines(APIClient(), first)

    rotated = datetime.now(UTC).isoformat()
    settings.TTR_SIGNING_KEYS = json.dumps([
        {"id": "k-old", "public_key": _public_text(old), "valid_from": "2026-01-01T00:00:00Z", "valid_to": rotated},
        {"id": "k-new", "private_key": _private_text(new), "valid_from": rotated},
    ])
    second = finished_game("rot-b", 13)
    assert body(APIClient().get(url(second, "checkpoint")))["key_id"] == "k-new"
    keys = body(APIClient().get("/api/keys"))
    assert [(k["id"], k["valid_to"] is None) for k in keys["keys"]] == [("k-old", False), ("k-new", True)]
    assert offline_check(tmp_path, first_lines, keys).returncode == 0  # the old signature, checked by the old key
    assert offline_check(tmp_path, audit_lines(APIClient(), second), keys).returncode == 0
