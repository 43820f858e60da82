"""Provably fair chance through the server (X-RNG-2, games/trust/chance.py, docs/FAIRNESS.md): a game's server seed is
fixed and its hash published when it is created, each person may add a seed when they join or start, the seeds
go into the log at the deal, the server seed only once the game is over, and then `/verify` and
`python -m games.engine.fairness verify AUDIT.jsonl` recompute every random outcome; a tampered audit, or a game
from before fair chance, is told apart."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from games.engine.codec import event_from_dict, event_to_dict
from games.store.models import Game
from tests.server.helpers import (
    assert_error,
    audit_lines,
    body,
    check_verified,
    create_game,
    finish_by_services,
    register,
    url,
)

pytestmark = pytest.mark.django_db


def fairness_cli(path: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "games.engine.fairness", "verify", str(path)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[2])


def test_x_rng_2_the_seeds_are_fixed_public_and_hidden_as_they_should_be_and_the_audit_proves_the_deal(
    tmp_path: Path,
) -> None:
    ann, bob = register("fair-ann"), register("fair-bob")
    game = create_game(ann, "europe", 2)
    published = game["server_seed_hash"]
    assert len(published) == 64 and int(published, 16) >= 0
    refused = assert_error(bob.post(url(game["id"], "join"), {"client_seed": "abc"}, format="json"), 400, "invalid")
    assert refused["field"] == "client_seed"
    assert body(APIClient().get(url(game["id"])))["seats"][1]["username"] is None  # the refusal changed nothing
    assert body(bob.post(url(game["id"], "join"), {"client_seed": "B0B0B0"}, format="json"))["server_seed_hash"] == published
    started = body(ann.post(url(game["id"], "start"), {"client_seed": "a1" * 32}, format="json"))
    assert started["server_seed_hash"] == published  # fixed at creation

    seed = Game.objects.get(pk=game["id"]).server_seed
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == published
    events = body(bob.get(url(game["id"], "events"), {"after": 0}))["events"]
    committed = events[1]
    assert committed["type"] == "seeds_committed"
    assert committed["data"]["client_seeds"] == ["a1" * 32, "b0b0b0"] and committed["data"]["server_seed_hash"] == published
    running = [bob.get(url(game["id"], tail)).content for tail in ("state", "events", "verify", "")]
    assert not any(seed.encode() in answer for answer in running)  # the secret stays secret while the game runs
    assert body(bob.get(url(game["id"], "verify")))["fair"] is None  # nothing to check before the reveal

    finish_by_services(game["id"], random.Random(5))
    lines = audit_lines(APIClient(), game["id"])
    assert [line["type"] for line in lines[-3:]] == ["game_ended", "seeds_revealed", "game_scored"]
    assert lines[-2]["data"]["server_seed"] == seed
    assert check_verified(APIClient(), game["id"], len(lines))["fair"] is True

    audit = tmp_path / "audit.jsonl"
    audit.write_text("".join(json.dumps(line) + "\n" for line in lines))
    checked = fairness_cli(audit)
    assert checked.returncode == 0 and "fair: all" in checked.stdout and published in checked.stdout, checked

    # One reshuffle's (or the deck's) two different cards swapped, the hash chain left as it was: refused.
    at = max(i for i, line in enumerate(lines) if line["type"] == "deck_shuffled")
    event = event_from_dict(lines[at]["data"])
    cards = list(event.cards)
    j = next(k for k in range(1, len(cards)) if cards[k] != cards[0])
    cards[0], cards[j] = cards[j], cards[0]
    changed = {**lines[at], "data": event_to_dict(dataclasses.replace(event, cards=tuple(cards)))}
    tampered = [*lines[:at], changed, *lines[at + 1 :]]
    audit.write_text("".join(json.dumps(line) + "\n" for line in tampered))
    refused_cli = fairness_cli(audit)
    assert refused_cli.returncode == 1 and "NOT fair" in refused_cli.stdout, refused_cli


def test_x_rng_2_a_game_from_before_fair_chance_still_plays_verifies_and_says_it_is_not_provably_fair(
    tmp_path: Path,
) -> None:
    ann, bob = register("old-ann"), register("old-bob")
    game = create_game(ann, "usa", 2)
    Game.objects.filter(pk=game["id"]).update(server_seed="")  # as every game created before the migration
    assert body(bob.post(url(game["id"], "join"), {}, format="json"))["server_seed_hash"] is None
    assert body(ann.post(url(game["id"], "start"), {}, format="json"))["status"] == "active"
    finish_by_services(game["id"], random.Random(6))
    lines = audit_lines(APIClient(), game["id"])
    assert not {"seeds_committed", "seeds_revealed"} & {line["type"] for line in lines}
    assert check_verified(APIClient(), game["id"], len(lines))["fair"] is None
    audit = tmp_path / "old.jsonl"
    audit.write_text("".join(json.dumps(line) + "\n" for line in lines))
    checked = fairness_cli(audit)
    assert checked.returncode == 2 and "not provably fair" in checked.stdout, checked
