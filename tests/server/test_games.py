"""Games (docs/API.md): create, list (status, mine, pagination), get, join, bots, start."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.store.models import Event, Game
from tests.server.helpers import API, assert_error, body, create_game, register, url

pytestmark = pytest.mark.django_db


SUMMARY_KEYS = {"id", "map", "players", "ranked", "status", "seats", "created_by", "seq"}


def summary_of(client: APIClient, game_id: str) -> dict[str, Any]:
    response = client.get(url(game_id))
    assert response.status_code == 200
    return body(response)


def assert_summary(data: dict[str, Any]) -> None:
    assert set(data) >= SUMMARY_KEYS, data
    uuid.UUID(data["id"])
    assert data["map"] in ("europe", "usa")
    assert data["status"] in ("open", "active", "finished")
    assert [s["seat"] for s in data["seats"]] == list(range(data["players"]))
    for seat in data["seats"]:
        assert set(seat) >= {"seat", "username", "bot"}
        assert seat["bot"] in (None, "random", "greedy", "strong")


# Create.


def test_create_game_summary() -> None:
    ada = register("ada")
    data = create_game(ada, "usa", 4, ranked=True, turn_seconds=60)
    assert_summary(data)
    assert data["map"] == "usa" and data["players"] == 4 and data["ranked"] is True
    assert data["status"] == "open" and data["seq"] == 0 and data["created_by"] == "ada"
    assert data["seats"] == [
        {"seat": 0, "username": "ada", "bot": None, "resigned": False, "hints": 0},
        *({"seat": n, "username": None, "bot": None, "resigned": False, "hints": 0} for n in range(1, 4)),
    ]
    assert summary_of(ada, data["id"]) == data


def test_create_defaults() -> None:
    data = create_game(register("ada"), "europe", 5)
    assert data["ranked"] is False and data["players"] == 5 and len(data["seats"]) == 5
    assert data["turn_seconds"] is None and data["fallback_bot"] == "greedy"


@pytest.mark.parametrize(
    "payload",
    [
        {"map": "mars", "players": 2},
        {"map": "europe", "players": 1},
        {"map": "europe", "players": 6},
        {"map": "europe", "players": "two"},
        {"map": "europe"},
        {"players": 3},
        {"map": "europe", "players": 2, "ranked": "perhaps"},
        {"map": "europe", "players": 2, "turn_seconds": 1},
        {"map": "europe", "players": 2, "turn_seconds": "soon"},
        {"map": ["europe"], "players": 2},
    ],
)
def test_create_invalid(payload: dict[str, Any]) -> None:
    response = register("ada").post(f"{API}/games", payload, format="json")
    assert_error(response, 400, "invalid")
    assert not Game.objects.exists()


@pytest.mark.parametrize("raw", [b"{", b"[]", b"42", b"null", b'"europe"'])
def test_create_garbage_body(raw: bytes) -> None:
    response = register("ada").post(f"{API}/games", raw, content_type="application/json")
    assert_error(response, 400, "invalid")
    assert not Game.objects.exists()


# Get.


def test_get_unknown_game_is_not_found() -> None:
    client = register("ada")
    assert_error(client.get(url(str(uuid.uuid4()))), 404, "not_found")
    assert_error(client.get(url("not-a-uuid")), 404, "not_found")
    assert_error(APIClient().get(url("12345")), 404, "not_found")


# List.


def test_list_status_filter_and_mine() -> None:
    ada, bob = register("ada"), register("bob")
    open_ada = create_game(ada)
    open_bob = create_game(bob, "usa", 3)
    active = create_game(bob)
    assert ada.post(url(active["id"], "join"), {}, format="json").status_code == 200
    assert bob.post(url(active["id"], "start"), {}, format="json").status_code == 200

    def ids(client: APIClient, **params: Any) -> set[str]:
        response = client.get(f"{API}/games", params)
        assert response.status_code == 200
        data = body(response)
        for game in data["results"]:
            assert_summary(game)
        return {g["id"] for g in data["results"]}

    assert ids(ada) == {open_ada["id"], open_bob["id"], active["id"]}
    assert ids(ada, status="open") == {open_ada["id"], open_bob["id"]}
    assert ids(ada, status="active") == {active["id"]}
    assert ids(ada, status="finished") == set()
    assert ids(ada, mine=1) == {open_ada["id"], active["id"]}
    assert ids(bob, mine=1) == {open_bob["id"], active["id"]}
    assert ids(bob, mine=1, status="open") == {open_bob["id"]}
    assert ids(APIClient(), mine=1) == set()
    assert ids(register("cyd"), mine=1) == set()
    assert_error(ada.get(f"{API}/games", {"status": "paused"}), 400, "invalid")


def test_list_is_paginated_with_next(settings: Any) -> None:
    settings.TTR_MAX_LIVE_GAMES = 30  # more open games than a page holds, and than one person may have at once
    ada = register("ada")
    created = {create_game(ada)["id"] for _ in range(23)}
    seen: list[str] = []
    page_url: str | None = f"{API}/games"
    pages = 0
    while page_url:
        response = ada.get(page_url)
        assert response.status_code == 200
        data = body(response)
        assert "next" in data and "results" in data
        assert data["results"], "a page is never empty"
        seen.extend(g["id"] for g in data["results"])
        page_url = data["next"]
        pages += 1
        assert pages < 10
    assert pages >= 2, "23 games fit on one page: pagination is not working"
    assert len(seen) == len(set(seen)) == 23
    assert set(seen) == created
    assert_error(ada.get(f"{API}/games", {"page": 99}), 404, "not_found")


# Join.


def test_join_first_free_and_chosen_seat() -> None:
    ada = register("ada")
    game = create_game(ada, "europe", 4)
    response = register("bob").post(url(game["id"], "join"), {}, format="json")
    assert response.status_code == 200
    data = body(response)
    assert_summary(data)
    assert data["seats"][1]["username"] == "bob"
    response = register("cyd").post(url(game["id"], "join"), {"seat": 3}, format="json")
    assert response.status_code == 200
    assert [s["username"] for s in body(response)["seats"]] == ["ada", "bob", None, "cyd"]


def test_join_errors() -> None:
    ada, bob, cyd, dan = register("ada"), register("bob"), register("cyd"), register("dan")
    game = create_game(ada, "usa", 3)
    gid = game["id"]
    assert bob.post(url(gid, "join"), {"seat": 2}, format="json").status_code == 200
    assert_error(cyd.post(url(gid, "join"), {"seat": 2}, format="json"), 409, "seat_taken")
    assert_error(cyd.post(url(gid, "join"), {"seat": 0}, format="json"), 409, "seat_taken")
    assert_error(cyd.post(url(gid, "join"), {"seat": 3}, format="json"), 409, "no_such_seat")  # a 3-seat game
    assert_error(cyd.post(url(gid, "join"), {"seat": "one"}, format="json"), 400, "invalid")
    assert_error(cyd.post(url(gid, "join"), {"seat": -1}, format="json"), 400, "invalid")
    assert_error(bob.post(url(gid, "join"), {}, format="json"), 409, "already_seated")
    assert cyd.post(url(gid, "join"), {}, format="json").status_code == 200
    assert_error(dan.post(url(gid, "join"), {}, format="json"), 409, "game_full")
    assert [s["username"] for s in summary_of(ada, gid)["seats"]] == ["ada", "cyd", "bob"]

    started = create_game(ada)
    assert ada.post(url(started["id"], "start"), {"fill_with_bots": "random"}, format="json").status_code == 200
    assert_error(dan.post(url(started["id"], "join"), {}, format="json"), 409, "not_open")
    assert_error(dan.post(url(str(uuid.uuid4()), "join"), {}, format="json"), 404, "not_found")


# Bots.


def test_seat_bots() -> None:
    ada, bob = register("ada"), register("bob")
    game = create_game(ada, "europe", 4)
    gid = game["id"]
    response = ada.post(url(gid, "bots"), {"level": "greedy"}, format="json")
    assert response.status_code == 200
    data = body(response)
    assert_summary(data)
    assert data["seats"][1] == {"seat": 1, "username": None, "bot": "greedy", "resigned": False, "hints": 0}
    response = ada.post(url(gid, "bots"), {"level": "strong", "seat": 3}, format="json")
    assert body(response)["seats"][3] == {"seat": 3, "username": None, "bot": "strong", "resigned": False, "hints": 0}
    assert_error(bob.post(url(gid, "join"), {"seat": 1}, format="json"), 409, "seat_taken")
    assert_error(ada.post(url(gid, "bots"), {"level": "random", "seat": 0}, format="json"), 409, "seat_taken")
    assert_error(bob.post(url(gid, "bots"), {"level": "random"}, format="json"), 403, "not_creator")
    assert_error(ada.post(url(gid, "bots"), {"level": "genius"}, format="json"), 400, "invalid")
    assert_error(ada.post(url(gid, "bots"), {}, format="json"), 400, "invalid")
    assert summary_of(ada, gid)["seats"][2] == {"seat": 2, "username": None, "bot": None, "resigned": False, "hints": 0}
    assert ada.post(url(gid, "bots"), {"level": "random"}, format="json").status_code == 200
    assert_error(ada.post(url(gid, "bots"), {"level": "random"}, format="json"), 409, "game_full")
    assert ada.post(url(gid, "start"), {}, format="json").status_code == 200
    assert_error(ada.post(url(gid, "bots"), {"level": "random"}, format="json"), 409, "not_open")


# Start.


def test_start_errors_and_fill_with_bots() -> None:
    ada, bob = register("ada"), register("bob")
    game = create_game(ada, "europe", 3)
    gid = game["id"]
    assert bob.post(url(gid, "join"), {}, format="json").status_code == 200
    assert_error(bob.post(url(gid, "start"), {}, format="json"), 403, "not_creator")
    data = assert_error(ada.post(url(gid, "start"), {}, format="json"), 409, "seats_empty")
    assert "1" in data["detail"]
    assert_error(ada.post(url(gid, "start"), {"fill_with_bots": "godlike"}, format="json"), 400, "invalid")
    summary = summary_of(ada, gid)
    assert summary["status"] == "open" and summary["seq"] == 0
    assert not Event.objects.filter(game_id=gid).exists()

    response = ada.post(url(gid, "start"), {"fill_with_bots": "random"}, format="json")
    assert response.status_code == 200
    data = body(response)
    assert_summary(data)
    assert data["status"] == "active"
    assert data["seq"] > 0
    assert data["seats"] == [
        {"seat": 0, "username": "ada", "bot": None, "resigned": False, "hints": 0},
        {"seat": 1, "username": "bob", "bot": None, "resigned": False, "hints": 0},
        {"seat": 2, "username": None, "bot": "random", "resigned": False, "hints": 0},
    ]
    assert Event.objects.filter(game_id=gid).count() == data["seq"]
    assert_error(ada.post(url(gid, "start"), {"fill_with_bots": "random"}, format="json"), 409, "not_open")
    assert_error(ada.post(url(str(uuid.uuid4()), "start"), {}, format="json"), 404, "not_found")


def test_start_with_every_seat_taken_needs_no_fill() -> None:
    ada = register("ada")
    game = create_game(ada, "usa", 2)
    assert register("bob").post(url(game["id"], "join"), {}, format="json").status_code == 200
    response = ada.post(url(game["id"], "start"), {}, format="json")
    assert response.status_code == 200
    data = body(response)
    assert data["status"] == "active"
    assert [s["bot"] for s in data["seats"]] == [None, None]
    events = body(ada.get(url(game["id"], "events")))["events"]
    assert events[0]["type"] == "game_started"
    assert events[0]["data"]["map"] == "usa" and events[0]["data"]["players"] == 2


def test_game_row_reads_the_game_and_its_seats_in_one_query(django_assert_num_queries: Any) -> None:
    from django.contrib.auth import get_user_model

    from games.play import selectors
    from games.store.viewers import seat_of
    from tests.server.helpers import seated_game

    table = seated_game("row", players=3)
    second = get_user_model().objects.get(username="row1")
    with django_assert_num_queries(1):
        game = selectors.game_row(table.game_id)
        assert [seat.number for seat in game.seat_list] == [0, 1, 2]
        assert seat_of(game, second) == 1
        assert game.bot_seats == frozenset()
    assert game.status == Game.Status.ACTIVE and game.seq > 0
