"""Bad input and small leaks of issue #30 (findings 8 and 11): integers past 64 bits, bodies where none is taken,
`client_seed` on creating a game, who may ask for an analysis, a private game on a public page, the vacation limit.

Each refusal is the API's JSON error naming the field and changes nothing. Run on PostgreSQL (scripts/test-env)
and on SQLite (without it): the integer limits must hold on both databases.
"""

from __future__ import annotations

import json
import random
import uuid
from datetime import timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.server.helpers import API, assert_error, body, create_game, finish_by_services, register, url

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

TOO_BIG = [2**63, 2**70]  # one past the largest 64-bit integer, and far past it


def _field(response: Any) -> str | None:
    return assert_error(response, 400, "invalid").get("field")


@pytest.mark.parametrize("number", TOO_BIG)
def test_notification_ids_past_64_bits_are_refused_and_nothing_is_read(number: int) -> None:
    """Finding 8 of #30: {"ids": [2**63]} was a server_error (OverflowError) on SQLite."""
    from django.contrib.auth.models import User

    from games.people import inbox
    from games.people.models import Notification

    ada = register("ada")
    inbox.send(User.objects.get(username="ada").pk, "invitation", "k1", "a line")
    response = ada.post(f"{API}/notifications/read", {"ids": [number]}, format="json")
    assert _field(response) == "ids"
    assert Notification.objects.filter(read=False).count() == 1
    largest = ada.post(f"{API}/notifications/read", {"ids": [2**63 - 1]}, format="json")
    assert largest.status_code == 204, largest.content  # the largest 64-bit id is an id (of nothing)


@pytest.mark.parametrize("number", [*TOO_BIG, -(2**63) - 1])
def test_integers_in_queries_past_64_bits_are_refused(number: int) -> None:
    """Finding 8 of #30: every integer that reaches a query (seq, after, pages) is refused with 400 past 64 bits."""
    ada = register("ada")
    game = create_game(ada)["id"]
    ada.post(url(game, "start"), {"fill_with_bots": "random"}, format="json")
    for path, name in [
        (f"{url(game, 'events')}?after={number}", "after"),
        (f"{url(game, 'chat')}?after={number}", "after"),
        (f"{url(game, 'replay')}?at={number}", "at"),
        (f"{API}/games?page={number}", "page"),
        (f"{API}/leaderboard?map=europe&page={number}", "page"),
        (f"{API}/games?page_size={number}", "page_size"),
    ]:
        assert _field(ada.get(path)) == name, path


@pytest.mark.parametrize("number", TOO_BIG)
def test_a_seq_or_a_chat_line_past_64_bits_is_refused(number: int) -> None:
    """Finding 8 of #30: a move's expected_seq and a chat line's id in the path are refused past 64 bits."""
    from games.store.models import Event
    from games.table.models import ChatReport

    ada = register("ada")
    game = create_game(ada)["id"]
    ada.post(url(game, "start"), {"fill_with_bots": "random"}, format="json")
    events = Event.objects.count()
    move = {"type": "draw_card", "source": "deck"}
    assert _field(ada.post(url(game, "moves"), {"expected_seq": number, "move": move}, format="json")) == "expected_seq"
    assert Event.objects.count() == events
    assert _field(ada.post(f"{API}/chat/{number}/report", {"reason": "x"}, format="json")) == "message_id"
    assert not ChatReport.objects.exists()


def test_a_socket_resync_past_64_bits_is_refused() -> None:
    """Finding 8 of #30: a socket's `resync` reads `after` with the same 64-bit bound (the HTTP error body)."""
    from games.realtime import messages

    with pytest.raises(messages.Refused) as refused:
        messages.valid(messages.ResyncSerializer, {"type": "resync", "after": 2**63})
    assert refused.value.status == 400 and refused.value.body["field"] == "after"


# Finding 11 of #30: endpoints that take no body refuse one, the same way everywhere.

NO_BODY_REQUESTS = [  # (content type, body): a form, broken JSON, a JSON object, a JSON value that is no object
    ("application/x-www-form-urlencoded", "a=1"),
    ("application/json", "{broken"),
    ("application/json", '{"reason": "x"}'),
    ("application/json", "[]"),
    ("text/plain", "hello"),
]


@pytest.mark.parametrize(("content_type", "data"), NO_BODY_REQUESTS)
def test_a_body_sent_to_resign_is_refused_and_the_seat_stays(content_type: str, data: str) -> None:
    """Finding 11 of #30: POST /resign with a body was 200 (the body unread, the seat resigned)."""
    from games.store.models import Seat

    ada = register("ada")
    game = create_game(ada)["id"]
    ada.post(url(game, "start"), {"fill_with_bots": "random"}, format="json")
    response = ada.generic("POST", url(game, "resign"), data, content_type=content_type)
    assert _field(response) == "body"
    assert not Seat.objects.get(game_id=game, number=0).stand_in
    assert ada.generic("PUT", url(game, "resign"), data, content_type=content_type).status_code == 405  # not a body
    assert ada.post(url(game, "resign"), {}, format="json").status_code == 200  # no body, or {}: as before
    assert Seat.objects.get(game_id=game, number=0).stand_in


def test_every_operation_that_takes_no_body_refuses_one() -> None:
    """Finding 11 of #30: walks the schema; every operation without a request body answers a body with 400 `body`
    (after authentication: an authenticated person asks), and changes nothing (logging out still works after)."""
    from drf_spectacular.generators import SchemaGenerator

    ada = register("ada")
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    ids = {"game_id": str(uuid.uuid4()), "tournament_id": str(uuid.uuid4()), "username": "nobody", "message_id": "1",
           "name": "keys.json"}
    asked = 0
    for path, operations in paths.items():
        for method, operation in operations.items():
            if "requestBody" in operation:
                continue
            target = path.format(**ids)
            for content_type, data in NO_BODY_REQUESTS[:2]:
                response = ada.generic(method.upper(), target, data, content_type=content_type)
                assert response.status_code == 400, (method, path, response.status_code, response.content[:200])
                assert body(response)["field"] == "body", (method, path)
                asked += 1
    assert asked >= 40, asked
    assert ada.get(f"{API}/me").status_code == 200  # the token was not revoked by a refused logout


def test_a_form_sent_to_logout_leaves_the_token_alive() -> None:
    """Finding 11 of #30: POST /api/auth/logout with a form body was 200 and revoked the token."""
    ada = register("ada")
    assert _field(ada.generic("POST", f"{API}/auth/logout", "a=1", "application/x-www-form-urlencoded")) == "body"
    assert ada.get(f"{API}/me").status_code == 200


def test_client_seed_on_create_is_the_creators_seed_in_the_games_chance() -> None:
    """Finding 11 of #30: `client_seed` on POST /api/games was dropped (201 with no seed); now it is the creator's
    seat's seed: stored, written into `seeds_committed` at the start and mixed into the deck (docs/FAIRNESS.md)."""
    from games.store.models import Event, Seat

    seed = "00ff" * 16
    ada = register("ada")
    game = create_game(ada, client_seed=seed.upper())["id"]  # any case, as join takes it
    assert Seat.objects.get(game_id=game, number=0).client_seed == seed
    assert ada.post(url(game, "start"), {"fill_with_bots": "random"}, format="json").status_code == 200
    committed = Event.objects.get(game_id=game, type="seeds_committed").data
    assert committed["client_seeds"][0] == seed, committed


@pytest.mark.parametrize("seed", ["abc", "xyz0", "0" * 66, 12])
def test_a_bad_client_seed_on_create_is_refused_and_no_game_is_made(seed: Any) -> None:
    """Finding 11 of #30: a client_seed that is not hex (as join checks it) is a 400 naming it; no game is made."""
    from games.store.models import Game

    ada = register("ada")
    response = ada.post(f"{API}/games", {"map": "europe", "players": 2, "client_seed": seed}, format="json")
    assert _field(response) == "client_seed"
    assert not Game.objects.exists()


def test_a_non_player_asking_for_a_game_in_plays_analysis_is_refused_with_403() -> None:
    """Finding 11 of #30: a person with no seat asking for the analysis of a game in play got 409 `not_finished`
    (which told them the game's state); who may ask is told first: 403 `not_a_player`."""
    ada, bob = register("ada"), register("bob")
    game = create_game(ada)["id"]
    ada.post(url(game, "start"), {"fill_with_bots": "random"}, format="json")
    assert_error(bob.post(url(game, "analysis")), 403, "not_a_player")
    assert_error(ada.post(url(game, "analysis")), 409, "not_finished")  # a player: the game is not over yet
    assert_error(bob.post(url(str(uuid.uuid4()), "analysis")), 404, "not_found")


def test_a_private_game_is_not_named_on_its_creators_public_page() -> None:
    """Finding 11 of #30: GET /api/users/{name} listed the creator's private games, whose id lets anyone watch.
    Neither its recent games nor its rating history nor its analysis trend name a private game now."""
    from games.play import scoring

    ada, bob = register("ada"), register("bob")
    hidden = create_game(ada, private=True, ranked=True)["id"]
    ada.post(url(hidden, "start"), {"fill_with_bots": "greedy"}, format="json")
    finish_by_services(hidden, random.Random(7))
    scoring.game_score_and_rate(hidden)
    shown = create_game(ada)["id"]
    for reader in (APIClient(), bob, ada):
        page = body(reader.get(f"{API}/users/ada"))
        assert hidden not in json.dumps(page), page
        assert [g["id"] for g in page["recent_games"]] == [shown]
        assert [entry["game"] for entry in page["history"]] == [None]  # the rating change stays, unnamed
    bot_page = json.dumps(body(APIClient().get(f"{API}/users/greedy-bot")))
    assert hidden not in bot_page


def test_the_vacation_limit_is_thirty_days_however_it_is_split(settings: Any) -> None:
    """Finding 11 of #30: a vacation ended early after less than half a day was rounded to 0 days booked, so a
    person could take more than 30 days in a year (a few hours at a time). A day begun counts as a day booked."""
    from django.utils import timezone

    from games.clocks.models import Vacation
    from games.clocks.turn_clocks import day

    ada = register("ada")
    assert ada.post(f"{API}/me/vacation", {"days": 1}, format="json").status_code == 201
    now = timezone.now()
    Vacation.objects.update(starts_at=now - day() * 0.4, ends_at=now + day() * 0.6)  # 0.4 of a day on vacation so far
    assert body(ada.delete(f"{API}/me/vacation"))["days_left"] == settings.TTR_VACATION_DAYS - 1
    assert_error(ada.post(f"{API}/me/vacation", {"days": settings.TTR_VACATION_DAYS}, format="json"), 409,
                 "no_vacation_left")
    taken = ada.post(f"{API}/me/vacation", {"days": settings.TTR_VACATION_DAYS - 1}, format="json")
    assert body(taken)["days_left"] == 0
    booked = sum((v.ends_at - v.starts_at for v in Vacation.objects.all()), timedelta(0))
    assert booked <= settings.TTR_VACATION_DAYS * day()
