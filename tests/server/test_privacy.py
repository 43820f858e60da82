"""A person's data (docs/API.md, Trust): `GET /api/me/export` gives everything stored about them, and
`DELETE /api/me` erases it (games/staff/privacy.py) while every log, audit export, checkpoint and rating history still
verifies, and their old name appears in no answer."""

from __future__ import annotations

import json
import random
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from games.store.models import Game, Seat
from games.trust.offline_verify import chain_problems
from games.trust.verify import verify_game
from tests.server.helpers import (
    PASSWORD,
    assert_error,
    audit_lines,
    body,
    create_game,
    finish_by_services,
    register,
    url,
)

pytestmark = pytest.mark.django_db


def ranked_game(ann: APIClient, bob: APIClient) -> str:
    game = create_game(ann, "usa", 2, ranked=True)
    assert body(bob.post(url(game["id"], "join"), {}, format="json"))["status"] == "open"
    assert body(ann.post(url(game["id"], "start"), {}, format="json"))["status"] == "active"
    return str(game["id"])


def test_the_export_holds_what_is_stored_about_the_person_and_never_their_token() -> None:
    ann, bob = register("exp-ann"), register("exp-bob")
    game_id = ranked_game(ann, bob)
    finish_by_services(game_id, random.Random(3))
    assert body(bob.post(url(game_id, "rematch"), {}, format="json"))["offer"]["by"] == "exp-bob"
    assert ann.post(url(game_id, "analysis")).status_code in (200, 202)
    assert APIClient().get("/api/me/export").status_code == 401
    exported = body(ann.get("/api/me/export"))
    assert exported["account"]["username"] == "exp-ann"
    assert [(s["game"], s["seat"]) for s in exported["seats"]] == [(game_id, 0)]
    assert exported["games_created"] == [game_id]
    assert {r["map"] for r in exported["ratings"]} == {"usa"} and len(exported["rating_changes"]) == 1
    assert {n["kind"] for n in exported["notifications"]} >= {"game_ended", "rematch_offered"}
    assert exported["analyses_requested"] == [game_id]
    assert len(exported["tokens"]) == 1 and ann.token not in json.dumps(exported)  # type: ignore[attr-defined]


def test_an_erased_player_of_a_finished_ranked_game_is_gone_from_every_answer_and_every_log_still_verifies() -> None:
    ann, bob = register("erase-ann"), register("erase-bob")
    game_id = ranked_game(ann, bob)
    finish_by_services(game_id, random.Random(4))
    ann.post(url(game_id, "rematch"), {}, format="json")
    assert b"erase-ann offers a rematch" in bob.get("/api/notifications").content  # Bob's inbox names Ann
    running = ranked_game(ann, bob)  # and a game still in play, which Ann leaves by being erased
    checkpoint = body(APIClient().get(url(game_id, "checkpoint")))

    refused = assert_error(ann.delete("/api/me", {"password": "not-it"}, format="json"), 400, "bad_credentials")
    assert refused["field"] == "password" and body(ann.get("/api/me"))["username"] == "erase-ann"
    assert ann.delete("/api/me", {"password": PASSWORD}, format="json").status_code == 204
    assert ann.get("/api/me").status_code == 401  # the token is gone
    login = {"username": "erase-ann", "password": PASSWORD}
    assert APIClient().post("/api/auth/login", login, format="json").status_code == 400

    # Nothing that verified stops verifying.
    for game in (game_id, running):
        report = verify_game(Game.objects.get(pk=game))
        assert report["ok"] is True, report
    lines = audit_lines(APIClient(), game_id)
    assert chain_problems(lines) == [] and lines[-1]["checkpoint"] == checkpoint
    out = StringIO()
    call_command("recompute_ratings", "--check", stdout=out)
    assert "every stored rating matched" in out.getvalue()
    # Her seat in the running game is the fallback bot's now.
    assert Seat.objects.get(game_id=running, number=0).stand_in

    # The old name is in no answer: the games, the leaderboard, Bob's inbox, the audit, her profile.
    answers = [
        APIClient().get(url(game_id)).content, APIClient().get(url(running)).content,
        APIClient().get("/api/leaderboard", {"map": "usa"}).content, bob.get("/api/notifications").content,
        APIClient().get(url(game_id, "audit")).content, bob.get("/api/me/games").content,
    ]
    assert not any(b"erase-ann" in answer for answer in answers)
    pseudonym = body(APIClient().get(url(game_id)))["seats"][0]["username"]
    assert pseudonym.startswith("player-") and APIClient().get(f"/api/users/{pseudonym}").status_code == 200
    assert APIClient().get("/api/users/erase-ann").status_code == 404
