"""A tournament through the HTTP API, its games played out by the bots that stand in for resigned seats (Celery eager
in these tests): create, join, start, rounds, the end, the standings, verify and the audit log."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from games.people.models import Notification
from games.play import services as play
from games.play import sweep
from games.store.models import Game, Seat
from games.tournaments import services
from games.tournaments.models import Tournament
from tests.server.helpers import PASSWORD, assert_error, body, create_tournament, register

pytestmark = pytest.mark.django_db(transaction=True)


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
    made = create_tournament(owner)
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
    lines = [json.loads(line) for line in audit.content.decode().splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "created" and kinds[-1] == "ended" and kinds.count("round_paired") == 2
    assert kinds.count("game_finished") == 6 and lines[-1]["hash"] == verdict["head_hash"]


def test_an_arena_seats_its_pool_at_once_and_games_running_at_the_end_finish_and_count() -> None:
    owner = register("organiser")
    arena = {"name": "Quick arena", "format": "arena", "minutes": 30, "rounds": None, "table_size": 3, "bots_fill": False}
    made = create_tournament(owner, **arena)
    clients = [register(f"racer{n}") for n in range(6)]
    for client in clients:
        client.post(f"/api/tournaments/{made['id']}/join", {"client_seed": "ab" * 8}, format="json")
    start(made["id"])
    tables = body(owner.get(f"/api/tournaments/{made['id']}/tables"))["results"]
    assert len(tables) == 2 and all(len(t["seats"]) == 3 and t["status"] == "active" for t in tables)
    late = register("late")
    joined = body(late.post(f"/api/tournaments/{made['id']}/join", {}, format="json"))
    assert joined["joined"] is True  # an arena takes latecomers
    # The window closes while both games run: no new table, and the two games still count.
    Tournament.objects.filter(pk=made["id"]).update(starts_at=timezone.now() - timedelta(minutes=30))
    assert_error(register("later").post(f"/api/tournaments/{made['id']}/join", {}, format="json"), 409, "finished")
    play_out(made["id"])
    final = body(owner.get(f"/api/tournaments/{made['id']}"))
    assert final["status"] == "finished" and final["round"] == 1
    assert sorted(row["games"] for row in final["standings"]) == [0, 1, 1, 1, 1, 1, 1]
    assert body(owner.get(f"/api/tournaments/{made['id']}/verify"))["fair"] is True


def test_withdrawing_resigns_the_running_game_and_the_next_round_leaves_the_person_out() -> None:
    owner = register("organiser")
    made = create_tournament(owner, rounds=2, bots_fill=False)
    clients = {name: register(name) for name in ("ann", "bob", "cyd", "dee")}
    for client in clients.values():
        client.post(f"/api/tournaments/{made['id']}/join", {}, format="json")
    start(made["id"])
    ann_game = body(clients["ann"].get(f"/api/tournaments/{made['id']}"))["my_game"]
    assert ann_game is not None
    response = clients["ann"].delete(f"/api/tournaments/{made['id']}/join")
    assert response.status_code == 204
    seats = body(owner.get(f"/api/games/{ann_game}"))["seats"]
    assert [s["resigned"] for s in seats if s["username"] == "ann"] == [True]
    assert_error(clients["ann"].delete(f"/api/tournaments/{made['id']}/join"), 404, "not_joined")
    mine = body(clients["ann"].get(f"/api/tournaments/{made['id']}"))
    assert mine["joined"] is True and mine["withdrawn"] is True and mine["my_game"] is None
    play_out(made["id"])
    second = body(owner.get(f"/api/tournaments/{made['id']}/tables?round=2"))["results"]
    assert "ann" not in {seat for table in second for seat in table["seats"]}
    final = body(owner.get(f"/api/tournaments/{made['id']}"))
    ann = next(row for row in final["standings"] if row["username"] == "ann")
    assert ann["withdrawn"] is True and ann["games"] == 1  # T-PTS-4: the result stays
    assert body(owner.get(f"/api/tournaments/{made['id']}/verify"))["ok"] is True


def test_a_swiss_without_bots_gives_the_odd_one_a_bye_worth_a_win() -> None:
    owner = register("organiser")
    made = create_tournament(owner, rounds=1, bots_fill=False)
    for n in range(3):
        register(f"odd{n}").post(f"/api/tournaments/{made['id']}/join", {}, format="json")
    start(made["id"])
    audit = owner.get(f"/api/tournaments/{made['id']}/audit").content.decode()
    paired = next(json.loads(line) for line in audit.splitlines() if '"round_paired"' in line)
    assert len(paired["data"]["tables"]) == 1 and len(paired["data"]["byes"]) == 1
    play_out(made["id"])
    final = body(owner.get(f"/api/tournaments/{made['id']}"))
    bye = next(row for row in final["standings"] if row["games"] == 0)
    assert bye["points"] == 1  # T-PTS-2


def test_a_daily_swiss_starts_its_next_round_at_the_next_daily_slot_once_the_round_is_over() -> None:
    owner = register("organiser")
    made = create_tournament(owner, speed="daily", turn_seconds=None, days_per_move=1, rounds=2)
    for n in range(2):
        register(f"day{n}").post(f"/api/tournaments/{made['id']}/join", {}, format="json")
    start(made["id"])
    begun = Tournament.objects.get(pk=made["id"]).starts_at
    games = list(Game.objects.filter(tournament=made["id"]))
    assert [g.speed for g in games] == ["daily"] and games[0].days_per_move == 1
    play_out_round(made["id"])
    waiting = body(owner.get(f"/api/tournaments/{made['id']}"))
    assert waiting["round"] == 1 and waiting["next_round_at"] is not None  # T-SWISS-2
    slot = Tournament.objects.get(pk=made["id"]).next_round_at
    assert slot is not None and slot - begun == timedelta(days=1)
    services.tick(now=slot - timedelta(seconds=1))
    assert Tournament.objects.get(pk=made["id"]).round == 1
    services.tick(now=slot)
    assert body(owner.get(f"/api/tournaments/{made['id']}"))["round"] == 2


def play_out_round(tournament_id: str) -> None:
    """Resign every person's running game (the bots finish them); no tick, so no next round is paired here."""
    for game in Game.objects.filter(tournament=tournament_id, status=Game.Status.ACTIVE):
        for seat in game.seats.filter(user__isnull=False, stand_in__isnull=True):
            play.game_resign(game.pk, user=User.objects.get(pk=seat.user_id))
    assert not Game.objects.filter(tournament=tournament_id, status=Game.Status.ACTIVE).exists()


def test_bad_bodies_and_states_are_refused_with_the_field_or_rule_and_change_nothing() -> None:
    owner = register("organiser")
    base = {
        "name": "Bad", "format": "swiss", "map": "europe", "table_size": 2, "speed": "live", "rounds": 2,
        "starts_at": (timezone.now() + timedelta(minutes=5)).isoformat(), "ranked": False, "bots_fill": False,
    }
    for change, field in [
        ({"table_size": 6}, "table_size"), ({"rounds": None}, "rounds"), ({"rounds": 16}, "rounds"),
        ({"format": "arena", "minutes": 5}, "minutes"), ({"format": "knockout"}, "format"),
        ({"starts_at": (timezone.now() - timedelta(hours=1)).isoformat()}, "starts_at"),
        ({"starts_at": (timezone.now() + timedelta(days=40)).isoformat()}, "starts_at"),
        ({"speed": "daily", "turn_seconds": 60}, "turn_seconds"), ({"name": ""}, "name"),
        ({"name": "Evil \u202eemaN"}, "name"), ({"name": "Bell\u0007s"}, "name"),
    ]:
        data = assert_error(owner.post("/api/tournaments", base | change, format="json"), 400, "invalid")
        assert data.get("field") == field, (change, data)
    assert Tournament.objects.count() == 0
    assert_error(APIClient().post("/api/tournaments", base, format="json"), 401, "not_authenticated")
    made = create_tournament(owner, max_players=2)
    for n in range(2):
        register(f"full{n}").post(f"/api/tournaments/{made['id']}/join", {}, format="json")
    assert_error(register("third").post(f"/api/tournaments/{made['id']}/join", {}, format="json"), 409, "full")
    assert_error(owner.post(f"/api/tournaments/{made['id']}/join", {"client_seed": "xyz"}, format="json"), 400, "invalid")
    assert_error(owner.get("/api/tournaments/00000000-0000-0000-0000-000000000000"), 404, "not_found")
    assert_error(owner.get("/api/tournaments?status=past"), 400, "invalid")


def test_the_lists_show_public_tournaments_by_status_and_the_private_one_only_by_its_link() -> None:
    owner = register("organiser")
    soon = create_tournament(owner, name="Soon", starts_at=(timezone.now() + timedelta(minutes=5)).isoformat())
    later = create_tournament(owner, name="Later", starts_at=(timezone.now() + timedelta(hours=5)).isoformat())
    hidden = create_tournament(owner, name="Hidden", private=True)
    listed = body(APIClient().get("/api/tournaments?status=upcoming"))
    assert [row["id"] for row in listed["results"]] == [soon["id"], later["id"]] and listed["count"] == 2
    assert "standings" not in listed["results"][0]
    assert body(APIClient().get(f"/api/tournaments/{hidden['id']}"))["private"] is True
    assert body(APIClient().get("/api/tournaments?status=running"))["results"] == []


def test_two_games_in_a_row_without_a_move_of_ones_own_withdraw_a_person(settings: Any) -> None:
    owner = register("organiser")
    made = create_tournament(owner, rounds=3, bots_fill=True)
    absent = register("absent")
    absent.post(f"/api/tournaments/{made['id']}/join", {}, format="json")
    register("present").post(f"/api/tournaments/{made['id']}/join", {}, format="json")
    start(made["id"])
    absent_user, present_user = User.objects.get(username="absent"), User.objects.get(username="present")
    for _ in range(2):
        game = Game.objects.get(tournament=made["id"], status=Game.Status.ACTIVE, seats__user=absent_user)
        play.game_resign(game.pk, user=present_user)  # the present player's seat goes on by its bot
        time_out_every_decision_of(game)
        services.tick()
    final = body(owner.get(f"/api/tournaments/{made['id']}"))
    assert next(row for row in final["standings"] if row["username"] == "absent")["withdrawn"] is True
    lines = owner.get(f"/api/tournaments/{made['id']}/audit").content.decode().splitlines()
    assert any('"why":"no_shows"' in line.replace(" ", "") for line in lines)


def time_out_every_decision_of(game: Game) -> None:
    """Every person's clock runs out at each of their decisions (the sweep's timeout, as a worker finds it, a day on),
    until the game is over: the fallback bot plays each; nobody moves."""
    for _ in range(2000):
        game = Game.objects.get(pk=game.pk)
        if game.status != Game.Status.ACTIVE:
            return
        sweep.time_out(game, now=timezone.now() + timedelta(days=1))
    raise AssertionError("the game did not end")


def test_staff_feature_a_tournament_in_the_admin_and_it_is_listed_first() -> None:
    owner = register("organiser")
    first = create_tournament(owner, name="First", starts_at=(timezone.now() + timedelta(minutes=5)).isoformat())
    second = create_tournament(owner, name="Second", starts_at=(timezone.now() + timedelta(hours=2)).isoformat())
    staff = User.objects.create_user("op-tess", password="staff-password-1", is_staff=True, is_superuser=True)
    admin = Client()
    admin.force_login(staff)
    response = admin.post("/admin/games/tournament/", {"action": "feature", "_selected_action": [second["id"]]})
    assert response.status_code == 302
    listed = body(APIClient().get("/api/tournaments"))["results"]
    assert [row["id"] for row in listed] == [second["id"], first["id"]] and listed[0]["featured"] is True
    assert b"server_seed" not in admin.get(f"/admin/games/tournament/{first['id']}/change/").content


def test_an_erased_person_withdraws_their_export_lists_their_tournaments_and_the_log_still_verifies() -> None:
    owner = register("organiser")
    made = create_tournament(owner, rounds=1, bots_fill=True)
    gone = register("gone")
    gone.post(f"/api/tournaments/{made['id']}/join", {"client_seed": "0a" * 16}, format="json")
    register("stays").post(f"/api/tournaments/{made['id']}/join", {}, format="json")
    exported = body(gone.get("/api/me/export"))
    assert [row["tournament"] for row in exported["tournaments"]] == [made["id"]]
    start(made["id"])
    assert gone.delete("/api/me", {"password": PASSWORD}, format="json").status_code == 204
    play_out(made["id"])
    final = body(owner.get(f"/api/tournaments/{made['id']}"))
    assert final["status"] == "finished" and "gone" not in {row["username"] for row in final["standings"]}
    assert sum(row["withdrawn"] for row in final["standings"]) == 1
    assert body(owner.get(f"/api/tournaments/{made['id']}/verify"))["fair"] is True


def test_the_command_verifies_a_tournament_and_names_what_differs() -> None:
    owner = register("organiser")
    made = create_tournament(owner, rounds=1, bots_fill=True)
    for name in ("cmd1", "cmd2"):
        register(name).post(f"/api/tournaments/{made['id']}/join", {}, format="json")
    start(made["id"])
    play_out(made["id"])
    out = StringIO()
    call_command("verify_tournament", made["id"], stdout=out)
    assert f"{made['id']} ok fair" in out.getvalue()
    # A game's record that no longer seats the table paired (a seat handed to someone else behind the log's back):
    game = Game.objects.get(tournament=made["id"])
    Seat.objects.filter(game=game, number=0).update(user=User.objects.get(username="organiser"), bot=None)
    with pytest.raises(CommandError):
        call_command("verify_tournament", made["id"], stdout=(out := StringIO()))
    assert "does not seat the table paired" in out.getvalue()


def test_each_person_hears_ten_minutes_before_of_each_table_and_of_their_place_once() -> None:
    owner = register("organiser")
    made = create_tournament(owner, rounds=1, bots_fill=True)
    people = {name: register(name) for name in ("nia", "oto")}
    for client in people.values():
        client.post(f"/api/tournaments/{made['id']}/join", {}, format="json")
    starts = Tournament.objects.get(pk=made["id"]).starts_at
    services.tick(now=starts - timedelta(minutes=11))
    assert Notification.objects.filter(kind="tournament_starting").count() == 0
    services.tick(now=starts - timedelta(minutes=9))
    services.tick(now=starts - timedelta(minutes=8))
    start(made["id"])
    play_out(made["id"])
    for name, client in people.items():
        kinds = [row["kind"] for row in body(client.get("/api/notifications"))["results"]]
        assert sorted(k for k in kinds if k.startswith("tournament_")) == [
            "tournament_ended", "tournament_starting", "tournament_table"
        ], (name, kinds)
        table = next(r for r in body(client.get("/api/notifications"))["results"] if r["kind"] == "tournament_table")
        assert table["game"] and table["data"] == {"tournament": made["id"], "name": "Friday Swiss", "round": 1}
