"""A tournament through the HTTP API, its games played out by the bots that stand in for resigned seats (Celery eager
in these tests): create, join, start, rounds, the end, the standings, verify and the audit log."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from games.play import services as play
from games.store.models import Game
from games.tournaments import services
from games.tournaments.models import Tournament
from tests.server.helpers import assert_error, body, register

pytestmark = pytest.mark.django_db(transaction=True)


def create(client: APIClient, **extra: Any) -> dict[str, Any]:
    fields = {
        "name": "Friday Swiss", "format": "swiss", "map": "europe", "table_size": 2, "smaller_tables": False,
        "speed": "live", "turn_seconds": 60, "rounds": 2, "starts_at": (timezone.now() + timedelta(minutes=5)).isoformat(),
        "ranked": False, "bots_fill": True,
    } | extra
    response = client.post("/api/tournaments", fields, format="json")
    assert response.status_code == 201, response.content
    return body(response)  # type: ignore[no-any-return]


def start(tournament_id: str) -> None:
    Tournament.objects.filter(pk=tournament_id).update(starts_at=timezone.now())
    services.tick()


def play_out(tournament_id: str) -> None:
    """Every person resigns each table they are seated at: the fallback bot plays it to the end (eagerly)."""
    for _ in range(50):
        games = Game.objects.filter(tournament=tournament_id, status=Game.Status.ACTIVE)
        if not games.exists():
            services.tick()
            if not Game.objects.filter(tournament=tournament_id, status=Game.Status.ACTIVE).exists():
                return
            continue
        for game in games:
            for seat in game.seats.filter(user__isnull=False, stand_in__isnull=True):
                play.game_resign(game.pk, user=User.objects.get(pk=seat.user_id))
    raise AssertionError("the tournament's games did not end")


def test_a_swiss_of_five_at_tables_of_two_with_a_bot_runs_two_rounds_to_verified_standings() -> None:
    owner = register("organiser")
    made = create(owner)
    assert made["status"] == "upcoming" and made["players"] == 0 and len(made["server_seed_hash"]) == 64
    assert made["server_seed"] is None and made["standings"] == []
    clients = [register(f"player{n}") for n in range(5)]
    for client in clients:
        assert body(client.post(f"/api/tournaments/{made['id']}/join", {}, format="json"))["joined"] is True
    assert_error(clients[0].post(f"/api/tournaments/{made['id']}/join", {}, format="json"), 409, "already_joined")
    start(made["id"])
    detail = body(owner.get(f"/api/tournaments/{made['id']}"))
    assert detail["status"] == "running" and detail["round"] == 1
    tables = body(owner.get(f"/api/tournaments/{made['id']}/tables"))["results"]
    assert len(tables) == 3 and sum(seat == "bot:greedy" for t in tables for seat in t["seats"]) == 1
    seated = sorted(seat for t in tables for seat in t["seats"] if not seat.startswith("bot:"))
    assert seated == [f"player{n}" for n in range(5)]
    assert_error(register("late").post(f"/api/tournaments/{made['id']}/join", {}, format="json"), 409, "started")
    summary = body(owner.get(f"/api/games/{tables[0]['game']}"))
    assert summary["tournament"] == {"id": made["id"], "round": 1}
    play_out(made["id"])
    final = body(owner.get(f"/api/tournaments/{made['id']}"))
    assert final["status"] == "finished" and final["round"] == 2 and final["server_seed"]
    assert [row["rank"] for row in final["standings"]] == [1, 2, 3, 4, 5]
    assert all(row["games"] == 2 for row in final["standings"])
    points = [row["points"] for row in final["standings"]]
    assert points == sorted(points, reverse=True) and final["winners"] == [r["username"] for r in final["standings"][:3]]
    verdict = body(owner.get(f"/api/tournaments/{made['id']}/verify"))
    assert verdict == {"ok": True, "fair": True, "head_hash": verdict["head_hash"], "problems": []}
    audit = owner.get(f"/api/tournaments/{made['id']}/audit")
    lines = [json.loads(line) for line in b"".join(audit.streaming_content).decode().splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "created" and kinds[-1] == "ended" and kinds.count("round_paired") == 2
    assert kinds.count("game_finished") == 6 and lines[-1]["hash"] == verdict["head_hash"]
