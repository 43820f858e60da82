"""Every bot move says why (Event.reason): stored on the move's first event row, covered by the row's hash,
shown as "reason" in /events and the audit log; people's moves and the rest of a move's rows carry none, and
rows written before reasons existed still verify. A reason names the bot's tickets, so until the game ends only
its own seat's viewer reads it (docs/RULES.md X-SEC-1)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from rest_framework.test import APIClient

from bench.traffic.people import choose
from games.store.event_log import row_hash
from games.store.models import Event
from tests.server.helpers import audit_lines, body, create_game, register, url

pytestmark = pytest.mark.django_db(transaction=True)  # bot tasks run after the commit



def game_against_a_greedy_bot(moves: int) -> tuple[Any, str]:
    """Ann (seat 0) against a greedy bot (seat 1) on the USA map, Ann's first `moves` moves played at random;
    the bot's turns are played at once (eager tasks)."""
    ann = register("ann")
    game = create_game(ann, "usa", 2)
    ann.post(url(game["id"], "bots"), {"seat": 1, "level": "greedy"}, format="json")
    ann.post(url(game["id"], "start"), {}, format="json")
    rng = random.Random(3)
    for _ in range(moves):
        legal = body(ann.get(url(game["id"], "legal-moves")))
        if not legal["moves"]:
            break
        ann.post(url(game["id"], "moves"), {"expected_seq": legal["seq"], "move": choose(legal["moves"], rng)},
                 format="json")
    return ann, game["id"]


def test_the_other_seats_and_spectators_read_no_reason_while_the_game_is_played() -> None:
    # X-SEC-1: "keeps tickets Denver-El Paso" and "ticket Denver-El Paso needs it" would tell the bot's tickets
    ann, game_id = game_against_a_greedy_bot(12)
    assert Event.objects.filter(game_id=game_id).exclude(reason="").exists()
    for reader in (ann, APIClient()):
        events = body(reader.get(url(game_id, "events"), {"after": 0}))["events"]
        assert events and not [e for e in events if "reason" in e]


def test_a_bot_move_s_first_event_says_why_and_a_person_s_moves_say_nothing() -> None:
    ann, game_id = game_against_a_greedy_bot(1000)
    assert body(ann.get(url(game_id)))["status"] == "finished"
    events = body(ann.get(url(game_id, "events"), {"after": 0}))["events"]
    explained = [e for e in events if "reason" in e]
    assert explained and all(isinstance(e["reason"], str) and e["reason"] for e in explained)
    # the move's first event is the bot's own, or the reshuffle of the discards that its draw needed first
    mine = [e for e in explained if e["seat"] == 1 or e["data"].get("seat") == 1 or e["type"] == "deck_shuffled"]
    assert mine == explained, [e for e in explained if e not in mine][:3]
    kinds = {e["reason"].split()[0] for e in explained}
    assert kinds <= {"keeps", "claims", "draws", "takes", "pays", "declines", "builds", "a", "the"}
    assert any(e["reason"].startswith("keeps tickets ") for e in explained)
    # One reason per bot move: never on the turn_ended or market rows that follow the move's first event.
    assert not [e for e in explained if e["type"] in ("turn_ended", "market_revealed", "game_started")]


def test_the_reason_is_covered_by_the_row_hash_and_old_rows_without_one_hash_as_before() -> None:
    ann, game_id = game_against_a_greedy_bot(6)
    row = Event.objects.filter(game_id=game_id).exclude(reason="").first()
    assert row is not None
    args = (row.prev_hash, row.seq, row.type, row.seat, row.data, row.commitment, row.salt, row.created_at)
    assert row_hash(*args, row.reason) == row.hash
    assert row_hash(*args, row.reason + "!") != row.hash  # a changed reason breaks the chain
    plain = Event.objects.filter(game_id=game_id, reason="").first()
    assert plain is not None
    assert row_hash(plain.prev_hash, plain.seq, plain.type, plain.seat, plain.data, plain.commitment, plain.salt,
                    plain.created_at) == plain.hash  # the old formula, for rows without a reason
    assert body(ann.get(url(game_id, "verify")))["ok"]


def test_the_audit_log_of_a_finished_game_shows_the_reasons() -> None:
    ann, game_id = game_against_a_greedy_bot(1000)
    assert body(ann.get(url(game_id)))["status"] == "finished"
    lines = audit_lines(ann, game_id)
    assert any(line.get("reason") for line in lines)
