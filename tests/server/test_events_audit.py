"""Events, history and audit (docs/API.md): /events?after=N, /replay?at=N, /audit, /verify, /score."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from games.store.models import Event
from tests.server.helpers import (
    assert_error,
    audit_lines,
    body,
    check_score,
    check_verified,
    finish_by_services,
    register,
    seated_game,
    url,
)

pytestmark = pytest.mark.django_db

EVENT_KEYS = {"seq", "type", "at", "seat", "data"}



def test_events_after() -> None:
    table = seated_game("p", "usa", 2)
    seq = table.seq()
    everything = table.get(0, "events", after=0)
    assert everything["seq"] == seq
    assert [e["seq"] for e in everything["events"]] == list(range(1, seq + 1))
    for event in everything["events"]:
        assert set(event) >= EVENT_KEYS and isinstance(event["data"], dict)
        assert event["data"].get("type") is None  # the type is beside the data, not repeated in it
    assert [e["type"] for e in everything["events"]][:3] == ["game_started", "seeds_committed", "deck_shuffled"]
    assert table.get(0, "events") == everything  # after defaults to 0
    assert table.get(0, "events", after=seq - 2)["events"] == everything["events"][-2:]
    assert table.get(0, "events", after=seq) == {"seq": seq, "events": []}
    assert table.get(0, "events", after=seq + 50) == {"seq": seq, "events": []}
    # Past 64 bits no database integer holds it: refused, naming the parameter (finding 8 of #30)
    far = table.clients[0].get(url(table.game_id, "events"), {"after": 10**30})
    assert far.status_code == 400 and body(far)["field"] == "after", far.content
    for bad in ("-1", "two", "1.5", ""):
        assert_error(table.clients[0].get(url(table.game_id, "events"), {"after": bad}), 400, "invalid")

    result = table.play(1, table.get(1, "legal-moves")["moves"][0])
    after = table.get(1, "events", after=seq)
    assert after["seq"] == seq + 1 == result["seq"]
    assert after["events"] == result["events"]
    # the other seat sees the same event, redacted
    [theirs] = table.get(0, "events", after=seq)["events"]
    assert theirs["type"] == "tickets_kept" and theirs["data"]["kept"] is None
    assert theirs["data"]["kept_count"] == len(result["events"][0]["data"]["kept"])


def test_events_of_an_open_game() -> None:
    table = seated_game("p", "usa", 2, start=False)
    assert table.get(0, "events", after=0) == {"seq": 0, "events": []}


def test_replay_at() -> None:
    table = seated_game("p", "europe", 2)
    seq = table.seq()
    offered = table.state(0)["view"]["offered_tickets"]
    keep = table.get(0, "legal-moves")["moves"][0]
    table.play(0, keep)
    now = table.get(0, "replay", at=seq + 1)
    assert now == table.state(0)
    assert now["view"]["tickets"] == keep["tickets"]
    before = table.get(0, "replay", at=seq)
    assert before["seq"] == seq and before["status"] == "active"
    assert before["view"]["tickets"] == [] and before["view"]["offered_tickets"] == offered
    assert before["view"]["deciding_seats"] == [0, 1]
    # seat 1 sees its own past, never seat 0's
    other = table.get(1, "replay", at=seq)["view"]
    assert other["your_seat"] == 1 and not set(offered) & set(other["offered_tickets"])
    spectator = body(APIClient().get(url(table.game_id, "replay"), {"at": seq}))["view"]
    assert spectator["hand"] == {} and spectator["tickets"] == [] and not spectator.get("offered_tickets")
    start = table.get(0, "replay", at=0)
    assert start["seq"] == 0 and start["view"]["routes"] == {}
    first = table.get(0, "replay", at=1)
    assert first["seq"] == 1 and first["view"]["phase"] == "setup_tickets"
    for bad in (-1, "x", "1.0", ""):
        assert_error(table.clients[0].get(url(table.game_id, "replay"), {"at": bad}), 400, "invalid")
    assert_error(table.clients[0].get(url(table.game_id, "replay")), 400, "invalid")  # `at` is required
    assert_error(table.clients[0].get(url(table.game_id, "replay"), {"at": seq + 2}), 404, "not_found")  # not yet


def test_audit_and_score_are_closed_before_the_end() -> None:
    table = seated_game("p", "usa", 2, start=False)
    for client in (*table.clients, register("spectator"), APIClient()):
        assert_error(client.get(url(table.game_id, "audit")), 409, "not_finished")
        assert_error(client.get(url(table.game_id, "score")), 409, "not_scored")
    assert table.clients[0].post(url(table.game_id, "start"), {}, format="json").status_code == 200
    for client in (*table.clients, register("spectator2"), APIClient()):
        assert_error(client.get(url(table.game_id, "audit")), 409, "not_finished")
        assert_error(client.get(url(table.game_id, "score")), 409, "not_scored")


def test_staff_may_audit_a_running_game() -> None:
    table = seated_game("p", "europe", 2)
    staff = register("staff")
    get_user_model().objects.filter(username="staff").update(is_staff=True)
    lines = audit_lines(staff, table.game_id)
    assert len(lines) == table.seq()
    assert lines[1]["type"] == "seeds_committed" and "server_seed" not in lines[1]["data"]  # revealed at the end
    assert lines[2]["type"] == "deck_shuffled" and len(lines[2]["data"]["cards"]) == 110
    assert_error(table.clients[0].get(url(table.game_id, "audit")), 409, "not_finished")


def test_verify_a_running_game() -> None:
    table = seated_game("p", "usa", 3)
    table.play(2, table.get(2, "legal-moves")["moves"][0])
    check_verified(APIClient(), table.game_id, table.seq())


def test_a_finished_game_is_public_audited_verified_and_scored() -> None:
    table = seated_game("p", "europe", 2)
    finish_by_services(table.game_id, random.Random(7))
    seq = table.seq()
    spectator = register("spectator")
    lines = audit_lines(spectator, table.game_id)
    assert len(lines) == seq == Event.objects.filter(game_id=table.game_id).count()
    assert [line["type"] for line in lines[-3:]] == ["game_ended", "seeds_revealed", "game_scored"]
    assert lines[2]["type"] == "deck_shuffled" and len(lines[2]["data"]["cards"]) == 110
    assert APIClient().get(url(table.game_id, "audit")).status_code == 200

    report = check_verified(spectator, table.game_id, seq)
    assert report["head_hash"] == lines[-1]["hash"]

    score = check_score(spectator, table.game_id)
    scored = lines[-1]["data"]
    assert [s["total"] for s in score["scores"]] == [s["total"] for s in scored["scores"]]
    assert score["winner_seats"] == scored["winner_seats"]

    # everything is public now, to everyone: /events shows the unredacted data
    for client in (spectator, APIClient(), table.clients[1]):
        events = body(client.get(url(table.game_id, "events"), {"after": 0}))["events"]
        assert [e["seq"] for e in events] == list(range(1, seq + 1))
        for event, line in zip(events, lines, strict=True):
            data = dict(event["data"])
            data.pop("commitment", None)
            assert {"type": event["type"], **data} == line["data"]
    final = body(spectator.get(url(table.game_id, "state")))
    assert final["status"] == "finished" and final["view"]["phase"] == "finished"
    assert len(final["view"]["hands"]) == 2 and len(final["view"]["player_tickets"]) == 2
    past = body(spectator.get(url(table.game_id, "replay"), {"at": 10}))["view"]
    assert "draw_pile" in past and "hands" in past

    assert table.get(0, "legal-moves") == {"seq": seq, "moves": []}
    assert_error(table.post_move(0, seq, {"type": "draw_tickets"}), 409, "not_active")
    assert table.seq() == seq
