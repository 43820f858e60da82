"""Playing by day through the API (docs/API.md): time control, private games and invitations, rematch, the inbox,
vacations, my games, and the clocks of daily games (docs/RULES.md X-TIME-1). Celery runs inline here; the queue's
concurrency and the real worker are tests/server/test_queue.py's."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from rest_framework.test import APIClient

from games.lobby import matchmaker
from games.lobby.models import QueueEntry
from games.people import inbox
from games.people.models import Notification
from games.play import sweep as sweeping
from games.store.models import Event, Game
from tests.server.helpers import (
    API,
    assert_error,
    body,
    create_game,
    finish_by_services,
    register,
    seated_game,
    url,
)

pytestmark = pytest.mark.django_db



def sweep_at(seconds: float) -> dict[str, int]:
    """The sweep as it would run `seconds` from now (the clocks read the log's times and this `now`)."""
    return sweeping.sweep(now=timezone.now() + timedelta(seconds=seconds))


def kinds(username: str) -> list[str]:
    return list(Notification.objects.filter(user__username=username).order_by("pk").values_list("kind", flat=True))


def inbox_of(client: Any, **params: Any) -> list[dict[str, Any]]:
    response = client.get(f"{API}/notifications", params)
    assert response.status_code == 200, response.content
    return list(body(response)["results"])


# time control


def test_a_daily_game_shows_its_time_control_and_bad_combinations_are_refused() -> None:
    alice = register("alice")
    game = create_game(alice, speed="daily", days_per_move=2, bank_days=5)
    assert (game["speed"], game["days_per_move"], game["bank_days"], game["turn_seconds"]) == ("daily", 2, 5, None)
    default = create_game(alice, speed="daily")
    assert (default["days_per_move"], default["bank_days"]) == (1, 3)
    live = create_game(alice, turn_seconds=60)
    assert (live["speed"], live["days_per_move"], live["bank_days"]) == ("live", None, None)
    before = Game.objects.count()
    for bad, field in [
        ({"speed": "daily", "turn_seconds": 60}, "turn_seconds"),
        ({"speed": "live", "bank_days": 2}, "speed"),
        ({"speed": "daily", "days_per_move": 15}, "days_per_move"),
        ({"speed": "daily", "bank_days": 31}, "bank_days"),
        ({"speed": "weekly"}, "speed"),
        ({"private": "yes"}, "private"),
    ]:
        response = alice.post(f"{API}/games", {"map": "europe", "players": 2, **bad}, format="json")
        assert assert_error(response, 400, "invalid")["field"] == field, bad
    assert Game.objects.count() == before


def test_x_time_1_a_daily_state_shows_the_deadline_and_every_seats_bank(settings: Any) -> None:
    table = seated_game("day", speed="daily", days_per_move=1, bank_days=2)
    view = table.state(1)["view"]
    assert set(view["banks"]) == {"0", "1"} or set(view["banks"]) == {0, 1}
    assert all(seconds == 2 * settings.TTR_DAY_SECONDS for seconds in view["banks"].values())
    assert view["deadline"]  # the setup decision's: a day and the bank from the start
    spectator = register("watcher")
    assert body(spectator.get(url(table.game_id, "state")))["view"]["deadline"] == view["deadline"]


def test_x_time_1_a_daily_decision_past_its_days_and_bank_is_played_by_the_fallback_bot(settings: Any) -> None:
    settings.TTR_DAY_SECONDS = 10  # a day of 10 s: a move's day and a bank of one day run out in 20 s
    table = seated_game("late", speed="daily", days_per_move=1, bank_days=1)
    sweep_at(19)
    assert not Event.objects.filter(game_id=table.game_id, type="turn_timed_out").exists()  # not yet
    sweep_at(21)
    timed_out = list(Event.objects.filter(game_id=table.game_id, type="turn_timed_out").values_list("seat", flat=True))
    assert sorted(timed_out) == [0, 1]  # both setup decisions ran out; each was played by the fallback bot
    assert Event.objects.filter(game_id=table.game_id, type="tickets_kept").count() == 2
    assert all(seconds == 0 for seconds in table.state(0)["view"]["banks"].values())


def test_x_time_1_a_vacation_stops_the_daily_clock(settings: Any) -> None:
    settings.TTR_DAY_SECONDS = 10
    table = seated_game("rest", speed="daily", days_per_move=1, bank_days=0)
    response = table.clients[0].post(f"{API}/me/vacation", {"days": 5}, format="json")  # 50 s of clock standing still
    assert response.status_code == 201, response.content
    vacation = body(response)
    assert vacation["until"] and vacation["days_left"] == settings.TTR_VACATION_DAYS - 5
    sweep_at(15)
    late = set(Event.objects.filter(game_id=table.game_id, type="turn_timed_out").values_list("seat", flat=True))
    assert late == {1}  # seat 1's day ran out; seat 0 is on vacation
    sweep_at(55)
    assert not Event.objects.filter(game_id=table.game_id, type="turn_timed_out", seat=0).exists()
    sweep_at(61)
    late = set(Event.objects.filter(game_id=table.game_id, type="turn_timed_out").values_list("seat", flat=True))
    assert late == {0, 1}  # the vacation is over and the day after it too


def test_my_games_tell_the_others_who_is_on_vacation_until_when_and_the_bank_apart(settings: Any) -> None:
    """Issue #33: a vacation moved a player's deadline and nobody else saw why. Each daily game of My games names
    its players on vacation now (`away`: until when, and its days), and the bank left of the seat whose deadline
    the row shows, so the move's own time and the bank read apart."""
    table = seated_game("away", speed="daily", days_per_move=2, bank_days=3)
    ann, bob = table.clients
    row = next(g for g in body(bob.get(f"{API}/me/games"))["results"] if g["id"] == table.game_id)
    assert row["away"] == [] and row["bank_left"] == 3 * settings.TTR_DAY_SECONDS
    taken = body(ann.post(f"{API}/me/vacation", {"days": 7}, format="json"))
    for client in (ann, bob):  # the others see it; so does the player
        row = next(g for g in body(client.get(f"{API}/me/games"))["results"] if g["id"] == table.game_id)
        assert [(a["seat"], a["username"], a["until"], a["days"]) for a in row["away"]] == [
            (0, "away0", taken["until"], 7)
        ]
    live = create_game(bob)  # a live game: no bank, nobody away
    assert next(g for g in body(bob.get(f"{API}/me/games"))["results"] if g["id"] == live["id"])["bank_left"] is None
    ann.delete(f"{API}/me/vacation")
    row = next(g for g in body(bob.get(f"{API}/me/games"))["results"] if g["id"] == table.game_id)
    assert row["away"] == []


def test_vacation_days_are_bounded_and_an_early_end_gives_the_rest_back(settings: Any) -> None:
    alice = register("alice")
    assert body(alice.get(f"{API}/me/vacation")) == {"until": None, "days_left": 30}
    assert body(alice.post(f"{API}/me/vacation", {"days": 20}, format="json"))["days_left"] == 10
    assert_error(alice.post(f"{API}/me/vacation", {"days": 11}, format="json"), 409, "no_vacation_left")
    assert body(alice.post(f"{API}/me/vacation", {"days": 10}, format="json"))["days_left"] == 0
    for bad in [{"days": 0}, {"days": 31}, {"days": "3"}, {}]:
        assert_error(alice.post(f"{API}/me/vacation", bad, format="json"), 400, "invalid")
    ended = body(alice.delete(f"{API}/me/vacation"))  # the day begun counts (finding 11 of #30), the rest comes back
    assert ended["until"] is None and ended["days_left"] == 29
    anonymous = APIClient()
    assert_error(anonymous.post(f"{API}/me/vacation", {"days": 1}, format="json"), 401, "not_authenticated")


def test_a_clock_running_out_is_told_once_at_80_percent(settings: Any) -> None:
    settings.TTR_DAY_SECONDS = 10
    table = seated_game("warn", speed="daily", days_per_move=1, bank_days=0)
    sweep_at(7.5)
    assert "clock_running_out" not in kinds("warn0")
    sweep_at(8.5)
    sweep_at(9)
    assert kinds("warn0").count("clock_running_out") == 1 and kinds("warn1").count("clock_running_out") == 1
    assert not Event.objects.filter(game_id=table.game_id, type="turn_timed_out").exists()


# private games and invitations


def test_a_private_game_is_not_in_the_lobby_and_seats_only_with_an_invitation() -> None:
    alice, bob, carol, dave = (register(name) for name in ("alice", "bob", "carol", "dave"))
    game = create_game(alice, players=3, private=True)
    assert game["private"] is True and game["invite"]
    assert "invite" not in body(bob.get(url(game["id"])))  # only the creator sees the link
    listed = [g["id"] for g in body(bob.get(f"{API}/games", {"status": "open"}))["results"]]
    assert game["id"] not in listed
    assert game["id"] in [g["id"] for g in body(alice.get(f"{API}/games", {"status": "open"}))["results"]]
    assert_error(bob.post(url(game["id"], "join"), {}, format="json"), 403, "invite_required")
    link = game["invite"]
    joined = bob.post(url(game["id"], "join"), {"invite": link}, format="json")
    assert joined.status_code == 200, joined.content
    assert_error(carol.post(url(game["id"], "join"), {"invite": link}, format="json"), 409, "invite_used")
    assert_error(carol.post(url(game["id"], "join"), {"invite": "nope"}, format="json"), 403, "invite_invalid")
    fresh = body(alice.get(url(game["id"])))["invite"]
    assert fresh and fresh != link  # a new link for the seat still free
    # an invitation by name is that person's alone, and reaches their inbox
    invited = alice.post(url(game["id"], "invite"), {"username": "carol"}, format="json")
    assert invited.status_code == 201, invited.content
    token = body(invited)["token"]
    note = inbox_of(carol)[0]
    assert note["kind"] == "invitation" and note["game"] == game["id"] and "alice" in note["text"]
    assert_error(dave.post(url(game["id"], "join"), {"invite": token}, format="json"), 403, "invite_invalid")
    assert carol.post(url(game["id"], "join"), {"invite": token}, format="json").status_code == 200
    seats = [s["username"] for s in body(alice.get(url(game["id"])))["seats"]]
    assert seats == ["alice", "bob", "carol"]
    assert_error(bob.post(url(game["id"], "invite"), {"username": "dave"}, format="json"), 403, "not_creator")
    assert_error(alice.post(url(game["id"], "invite"), {"username": "nobody9"}, format="json"), 404, "not_found")


# rematch


def test_a_rematch_starts_when_every_person_accepts_with_the_same_seats_and_the_next_first_player() -> None:
    alice, bob = register("alice"), register("bob")
    game = create_game(alice, players=3, speed="daily")
    assert bob.post(url(game["id"], "join"), {}, format="json").status_code == 200
    assert alice.post(url(game["id"], "bots"), {"level": "random"}, format="json").status_code == 200
    assert_error(alice.post(url(game["id"], "rematch")), 409, "not_finished")
    alice.post(url(game["id"], "start"), {}, format="json")
    finish_by_services(game["id"], random.Random(3))
    first = Game.objects.get(pk=game["id"]).events.get(seq=1).data["first_seat"]
    assert_error(register("carol").post(url(game["id"], "rematch")), 403, "not_a_player")
    offer = body(alice.post(url(game["id"], "rematch")))["offer"]
    assert offer == {"by": "alice", "accepted_by": ["alice"], "game": None}
    assert "rematch_offered" in kinds("bob") and "rematch_offered" not in kinds("alice")
    assert body(alice.post(url(game["id"], "rematch")))["offer"]["game"] is None  # asking twice is not everyone
    offer = body(bob.post(url(game["id"], "rematch")))["offer"]
    assert offer["accepted_by"] == ["alice", "bob"] and offer["game"]
    new = body(alice.get(url(offer["game"])))
    old = body(alice.get(url(game["id"])))
    assert new["status"] == "active" and new["rematch_of"] == game["id"] and old["rematch"]["game"] == offer["game"]
    assert [(s["username"], s["bot"]) for s in new["seats"]] == [(s["username"], s["bot"]) for s in old["seats"]]
    assert (new["map"], new["speed"], new["days_per_move"]) == (old["map"], "daily", old["days_per_move"])
    assert Game.objects.get(pk=offer["game"]).events.get(seq=1).data["first_seat"] == (first + 1) % 3
    assert body(bob.post(url(game["id"], "rematch")))["offer"]["game"] == offer["game"]  # no second game


# notifications


def test_daily_turns_and_the_end_are_notified_and_the_inbox_marks_them_read() -> None:
    table = seated_game("turn", speed="daily", ranked=True)
    assert kinds("turn0") == ["your_turn"] and kinds("turn1") == ["your_turn"]  # the setup: choose tickets
    finish_by_services(table.game_id, random.Random(5))
    for name in ("turn0", "turn1"):
        assert kinds(name).count("game_ended") == 1
        assert kinds(name).count("your_turn") >= 2
        unread_turns = Notification.objects.filter(user__username=name, kind="your_turn", read=False)
        assert unread_turns.count() == 1  # each new turn marks the one before read: one "your turn" a game
    ended = next(n for n in inbox_of(table.clients[0]) if n["kind"] == "game_ended")
    assert "Rating" in ended["text"] and ended["game"] == table.game_id
    client = table.clients[0]
    unread = inbox_of(client, unread=1)
    assert unread and all(not n["read"] for n in unread)
    assert client.post(f"{API}/notifications/read", {"ids": [unread[0]["id"]]}, format="json").status_code == 204
    assert len(inbox_of(client, unread=1)) == len(unread) - 1
    other = table.clients[1]
    their = inbox_of(other)[0]["id"]
    client.post(f"{API}/notifications/read", {"ids": [their]}, format="json")  # not mine: nothing happens
    assert not Notification.objects.get(pk=their).read
    assert client.post(f"{API}/notifications/read", {"all": True}, format="json").status_code == 204
    assert inbox_of(client, unread=1) == []
    for bad in [{}, {"ids": "1"}, {"ids": [1], "all": True}, {"all": False}]:
        assert_error(client.post(f"{API}/notifications/read", bad, format="json"), 400, "invalid")
    assert_error(client.get(f"{API}/notifications", {"unread": "maybe"}), 400, "invalid")


def test_a_notification_is_written_once_per_key() -> None:
    alice = register("alice")
    user_id = get_user_model().objects.get(username="alice").pk
    with transaction.atomic():
        assert inbox.send(user_id, "your_turn", "same", "one") is not None
        assert inbox.send(user_id, "your_turn", "same", "two") is None
    assert [n["text"] for n in inbox_of(alice)] == ["one"]


def test_my_games_show_the_games_awaiting_my_move_first() -> None:
    alice, bob = register("alice"), register("bob")
    games = []
    for _ in range(3):
        game = create_game(alice, speed="daily")
        bob.post(url(game["id"], "join"), {}, format="json")
        alice.post(url(game["id"], "start"), {}, format="json")
        games.append(game["id"])
    open_game = create_game(alice)["id"]
    # alice keeps her tickets in the first game: it then waits for bob only
    legal = body(alice.get(url(games[0], "legal-moves")))
    alice.post(url(games[0], "moves"), {"expected_seq": legal["seq"], "move": legal["moves"][0]}, format="json")
    mine = body(alice.get(f"{API}/me/games"))
    assert mine["your_turn"] == 2
    order = [(g["id"], g["your_move"]) for g in mine["results"]]
    assert {g for g, yours in order[:2]} == set(games[1:]) and all(yours for _, yours in order[:2])
    assert order[2] == (games[0], False) and order[3] == (open_game, False)
    assert all(g["deadline"] for g in mine["results"][:3])
    theirs = body(bob.get(f"{API}/me/games"))
    assert theirs["your_turn"] == 3
    first = next(g for g in theirs["results"] if g["id"] == games[0])
    assert first["new_moves"] > 0  # bob has not looked since alice moved
    bob.get(url(games[0], "state"))
    assert next(g for g in body(bob.get(f"{API}/me/games"))["results"] if g["id"] == games[0])["new_moves"] == 0


# the queue through the API (the worker's run called here; tests/server/test_queue.py runs it for real)


def test_two_compatible_players_are_seated_together_and_told() -> None:
    alice, bob, carol = register("alice"), register("bob"), register("carol")
    assert body(alice.get(f"{API}/queue")) == {"status": "none"}  # not queued: a state (issue #33), not a 404
    joined = alice.post(f"{API}/queue", {"map": "usa", "players": [2, 3], "ranked": True, "speed": "daily"}, format="json")
    assert joined.status_code == 201, joined.content
    assert body(joined)["status"] == "waiting" and body(joined)["waiting"] == 0
    assert_error(alice.post(f"{API}/queue", {"map": "usa", "players": [2]}, format="json"), 409, "already_queued")
    carol.post(f"{API}/queue", {"map": "europe", "players": [2], "speed": "daily", "ranked": True}, format="json")
    bob.post(f"{API}/queue", {"map": "usa", "players": [2], "ranked": True, "speed": "daily"}, format="json")
    assert body(alice.get(f"{API}/queue"))["waiting"] == 1
    formed = matchmaker.run()
    assert len(formed) == 1
    game = body(alice.get(url(str(formed[0].pk))))
    assert game["status"] == "active" and game["speed"] == "daily" and game["ranked"] and game["map"] == "usa"
    assert sorted(s["username"] for s in game["seats"]) == ["alice", "bob"]
    for client in (alice, bob):
        status = body(client.get(f"{API}/queue"))
        assert status["status"] == "matched" and status["game"] == game["id"]
        formed_note = next(n for n in inbox_of(client) if n["kind"] == "game_formed")
        assert formed_note["game"] == game["id"]
        assert_error(client.delete(f"{API}/queue"), 409, "already_matched")
    assert body(carol.get(f"{API}/queue"))["status"] == "waiting"  # another map: still waiting
    assert carol.delete(f"{API}/queue").status_code == 204
    assert_error(carol.delete(f"{API}/queue"), 404, "not_queued")
    again = alice.post(f"{API}/queue", {"map": "europe", "players": [2]}, format="json")  # after a match: anew
    assert again.status_code == 201 and body(again)["status"] == "waiting"


def test_the_queue_fills_with_bots_only_after_the_wait_a_player_chose() -> None:
    alice = register("alice")
    alice.post(f"{API}/queue", {"map": "europe", "players": [3], "bots_after": 60}, format="json")
    assert matchmaker.run() == []
    QueueEntry.objects.filter(user__username="alice").update(since=QueueEntry.objects.get().since.replace(year=2020))
    formed = matchmaker.run()
    assert len(formed) == 1
    seats = body(alice.get(url(str(formed[0].pk))))["seats"]
    assert sorted((s["username"] or "", s["bot"] or "") for s in seats) == [("", "greedy"), ("", "greedy"), ("alice", "")]


def test_hostile_queue_requests_are_refused_and_change_nothing() -> None:
    alice = register("alice")
    for bad in [
        {"map": "mars", "players": [2]},
        {"map": "europe", "players": []},
        {"map": "europe", "players": [1]},
        {"map": "europe", "players": [6]},
        {"map": "europe", "players": [2, 2]},
        {"map": "europe", "players": "2"},
        {"map": "europe", "players": [2], "speed": "slow"},
        {"map": "europe", "players": [2], "bots_after": -1},
    ]:
        assert_error(alice.post(f"{API}/queue", bad, format="json"), 400, "invalid")
    assert not QueueEntry.objects.exists()
    anonymous = APIClient()
    assert_error(anonymous.post(f"{API}/queue", {"map": "europe", "players": [2]}, format="json"), 401, "not_authenticated")
