"""The offline verifiers trust nobody (docs/FAIRNESS.md, docs/CHECKPOINTS.md): `python -m games.engine.fairness verify`
and `python -m games.trust.offline_verify verify` play a real finished game's exported audit log again under the
rules with the
orders derived from its revealed seeds and compare every event and every commitment, and each names the game and
the key it checked. Finding 9 of #30: a dealt hand changed at seq 4, its commitment recomputed, the chain re-hashed
and the checkpoint re-signed with the server's own key passed both; now both refuse it, naming the game, the seq and
the field, and so does the server's `/verify`."""

from __future__ import annotations

import base64
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from django.db import transaction
from rest_framework.test import APIClient

from games.engine import redact
from games.engine.codec import event_from_dict, event_to_dict
from games.engine.hash_chain import checkpoint_message, commitment_of, commitment_problem, hidden_fields, line_hash, row_hash
from games.store.models import Event, Game
from games.trust import signing
from games.trust.offline_verify import chain_problems, checkpoint_problems
from tests.server.helpers import append_only_trigger_disabled, audit_lines, body, finish_by_services, seated_game, url

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
DEALT = 4  # seq 4: game_started, seeds_committed, deck_shuffled, then seat 0's cards_dealt


@pytest.fixture
def signing_key_id(settings: Any) -> str:
    """The server's signing key for this test (whatever the environment holds): the forger below has it too."""
    private = Ed25519PrivateKey.generate().private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    key = {"id": "k-replay", "private_key": base64.b64encode(private).decode(), "valid_from": "2026-01-01T00:00:00Z"}
    settings.TTR_SIGNING_KEYS = json.dumps([key])
    return "k-replay"


def finished_game(seed: int) -> str:
    table = seated_game("replay", "europe", 2)
    finish_by_services(table.game_id, random.Random(seed))
    return table.game_id


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """A verifier as anyone runs it, in a process of its own without the server's settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    command = [sys.executable, "-m", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)


def both_verifiers(
    tmp_path: Path, lines: list[dict[str, Any]], keys: dict[str, Any]
) -> list[subprocess.CompletedProcess[str]]:
    audit, keys_file = tmp_path / "audit.jsonl", tmp_path / "keys.json"
    audit.write_text("".join(json.dumps(line) + "\n" for line in lines))
    keys_file.write_text(json.dumps(keys))
    return [
        cli("games.engine.fairness", "verify", str(audit)),
        cli("games.trust.offline_verify", "verify", str(audit), str(keys_file)),
    ]


def another_card(cards: list[str]) -> tuple[int, list[str]]:
    """One card of a hand changed: the first that is not a locomotive becomes one (a hand of four: purple)."""
    k = next((i for i, card in enumerate(cards) if card != "locomotive"), 0)
    changed = list(cards)
    changed[k] = "locomotive" if cards[k] != "locomotive" else "purple"
    return k, changed


def recommitted(data: dict[str, Any], salt: str) -> str:
    public = event_to_dict(redact(event_from_dict(data), None))
    return commitment_of(salt, hidden_fields(data, public))


def forged(lines: list[dict[str, Any]], game_id: str) -> tuple[int, list[dict[str, Any]]]:
    """Seq 4's dealt hand changed as a forger holding the server's key would: the commitment recomputed with the
    line's own salt, every hash from there on recomputed, the checkpoint re-signed over the new head."""
    lines = [dict(line) for line in lines]
    dealt = lines[DEALT - 1]
    assert dealt["type"] == "cards_dealt" and dealt["seq"] == DEALT
    k, cards = another_card(dealt["data"]["cards"])
    dealt["data"] = {**dealt["data"], "cards": cards}
    dealt["commitment"] = recommitted(dealt["data"], dealt["salt"])
    for line in lines[DEALT - 1 :]:
        line["prev_hash"] = lines[line["seq"] - 2]["hash"]
        line["hash"] = line_hash(line)
    key = signing.signing_key()
    assert key.private is not None
    head = lines[-1]["hash"]
    signature = key.private.sign(checkpoint_message(game_id, lines[-1]["seq"], head))
    lines[-1]["checkpoint"] = {
        **lines[-1]["checkpoint"], "head_hash": head, "signature": base64.b64encode(signature).decode(),
    }
    return k, lines


def test_both_verifiers_pass_a_true_game_naming_it_and_its_key_and_refuse_a_re_signed_forged_deal(
    tmp_path: Path, signing_key_id: str
) -> None:
    """Finding 9 of #30 (and of 11: the audit CLI never said which game it verified)."""
    game_id = finished_game(21)
    lines = audit_lines(APIClient(), game_id)
    keys = body(APIClient().get("/api/keys"))
    assert lines[-1]["checkpoint"]["key_id"] == signing_key_id

    for checked in both_verifiers(tmp_path, lines, keys):
        assert checked.returncode == 0, checked
        assert game_id in checked.stdout and signing_key_id in checked.stdout, checked.stdout
        assert "seq" not in checked.stdout  # no problem named
    fairness, audit = both_verifiers(tmp_path, lines, keys)
    assert "fair: all" in fairness.stdout and "chain and signature hold" in audit.stdout

    k, tampered = forged(lines, game_id)
    # What the old verifiers checked holds: the chain, the commitments, the signature, the shuffles.
    assert chain_problems(tampered) == [] and checkpoint_problems(tampered, keys["keys"]) == []
    assert all(commitment_problem(line) is None for line in tampered)
    for refused in both_verifiers(tmp_path, tampered, keys):
        assert refused.returncode == 1, refused
        out = refused.stdout
        assert game_id in out and f"seq {DEALT} (cards_dealt), field cards[{k}]" in out, out
        assert signing_key_id in out, out


def test_a_commitment_that_does_not_hold_is_named_by_both_verifiers(tmp_path: Path, signing_key_id: str) -> None:
    """Finding 9 of #30: every commitment compared with the outcome it hid (the fairness CLI did not look)."""
    game_id = finished_game(22)
    lines = [dict(line) for line in audit_lines(APIClient(), game_id)]
    keys = body(APIClient().get("/api/keys"))
    at = next(i for i, line in enumerate(lines) if line["type"] == "card_drawn" and line["commitment"])
    lines[at]["commitment"] = "0" * 64
    for line in lines[at:]:
        line["prev_hash"] = lines[line["seq"] - 2]["hash"]
        line["hash"] = line_hash(line)
    fairness, audit = both_verifiers(tmp_path, lines, keys)
    for refused in (fairness, audit):
        assert refused.returncode == 1 and f"seq {at + 1} (card_drawn), field commitment" in refused.stdout, refused


def test_the_servers_verify_finds_a_forged_deal_whose_chain_and_commitment_were_recomputed(
    signing_key_id: str,
) -> None:
    """Finding 9 of #30: `/verify` shares the replay; a finished game's difference is told with its values."""
    game_id = finished_game(23)
    rows = list(Event.objects.filter(game_id=game_id).order_by("seq"))
    dealt = rows[DEALT - 1]
    k, cards = another_card(dealt.data["cards"])
    data = {**dealt.data, "cards": cards}
    prev = rows[DEALT - 2].hash
    with transaction.atomic(), append_only_trigger_disabled():
        for row in rows[DEALT - 1 :]:
            if row.seq == DEALT:
                row.data, row.commitment = data, recommitted(data, row.salt)
            row.prev_hash = prev
            row.hash = prev = row_hash(
                prev, row.seq, row.type, row.seat, row.data, row.commitment, row.salt, row.created_at.isoformat(),
                row.reason,
            )
            Event.objects.filter(game_id=row.game_id, seq=row.seq).update(
                data=row.data, commitment=row.commitment, prev_hash=row.prev_hash, hash=row.hash
            )
        Game.objects.filter(pk=game_id).update(head_hash=prev)
    report = body(APIClient().get(url(game_id, "verify")))
    assert report["ok"] is False, report
    assert report["problems"] == [report["problems"][0]] and report["problems"][0].startswith(
        f"seq {DEALT}: the rules give another event: seq {DEALT} (cards_dealt), field cards[{k}]"
    ), report
