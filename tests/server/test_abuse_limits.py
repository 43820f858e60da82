"""Limits where a person can be abused (issue #30, findings 4 and 6), with the numbers the server ships with:
wrong passwords are limited per username and per client address on every password form, the admin's login
included, one count for all of them; confirmation mails are limited per account and per address and name nobody;
a person sits in a bounded number of games not finished; joining and leaving the queue over and over forms no
string of games. The limits are counted in the database (games/people/rate_limits.py): real PostgreSQL under
scripts/test-env, SQLite otherwise."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import F
from django.test import Client
from rest_framework.test import APIClient

from games.lobby import matchmaker
from games.lobby.models import QueueEntry
from games.people.models import Account, LimitHit
from games.store.models import Game
from games.store.service_error import ServiceError
from tests.server.helpers import API, PASSWORD, assert_error, body, create_game, finish_by_services, register, url
from ttr_server import settings as shipped

pytestmark = pytest.mark.django_db
ADMIN_LOGIN = "/admin/login/"
QUEUE = f"{API}/queue"
LIVE_FOR_TWO = {"map": "europe", "players": [2], "speed": "live"}


@pytest.fixture
def limits(settings: Any) -> Any:
    """The shipped limits (tests/server/conftest.py relaxes them for every other test)."""
    for name in (
        "TTR_PASSWORD_FAILURES_PER_USERNAME", "TTR_PASSWORD_FAILURES_PER_IP", "TTR_PASSWORD_WINDOW_SECONDS",
        "TTR_CONFIRMATION_MAILS_PER_ACCOUNT", "TTR_CONFIRMATION_MAILS_PER_ADDRESS",
        "TTR_CONFIRMATION_MAIL_WINDOW_SECONDS", "TTR_QUEUE_JOINS", "TTR_QUEUE_JOIN_WINDOW_SECONDS",
        "TTR_MAX_LIVE_GAMES", "TTR_MAX_DAILY_GAMES",
    ):
        setattr(settings, name, getattr(shipped, name))
    return settings


def staff(username: str = "boss") -> Any:
    return get_user_model().objects.create_user(username, password=PASSWORD, is_staff=True, is_superuser=True)


def admin_login(username: str, password: str, address: str = "127.0.0.1", **headers: Any) -> Any:
    return Client(REMOTE_ADDR=address).post(ADMIN_LOGIN, {"username": username, "password": password, "next": "/admin/"},
                                            **headers)


def ask_token(username: str, password: str, **headers: Any) -> Any:
    return APIClient().post(f"{API}/auth/token", {"username": username, "password": password}, format="json", **headers)


def window_passes() -> None:
    """Every counted attempt moves back by the longest window, as if that much time had gone by."""
    LimitHit.objects.update(at=F("at") - timedelta(hours=2))


# Finding 4: passwords at /admin/login/


def test_forty_wrong_passwords_at_the_admin_login_are_refused_after_the_limit_even_the_right_one(limits: Any) -> None:
    """Finding 4 of #30: 40 wrong passwords at /admin/login/ were 40 x 200; now the ones past the limit are 429,
    and while it holds even the right password is refused (a guess at the limit tells nothing)."""
    staff()
    statuses = [admin_login("boss", f"guess-{n}").status_code for n in range(40)]
    allowed = limits.TTR_PASSWORD_FAILURES_PER_USERNAME
    assert statuses == [200] * allowed + [429] * (40 - allowed)
    refused = admin_login("boss", PASSWORD)
    assert refused.status_code == 429 and "too many" in refused.content.decode().lower()
    assert int(refused["Retry-After"]) > 0
    assert admin_login("BOSS", PASSWORD, address="10.0.0.9").status_code == 429  # the name, in any case, anywhere
    window_passes()
    assert admin_login("boss", PASSWORD).status_code == 302  # logged in once the window has passed


def test_one_address_guessing_many_names_is_refused_and_a_forwarded_for_header_does_not_reset_it(limits: Any) -> None:
    """Finding 4 of #30: the limit per client address holds across usernames, and X-Forwarded-For as the client
    sends it changes nothing (the address is REMOTE_ADDR, set by uvicorn from a trusted proxy only)."""
    per_ip = limits.TTR_PASSWORD_FAILURES_PER_IP
    statuses = [
        admin_login(f"name{n}", "guess", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").status_code for n in range(per_ip + 5)
    ]
    assert statuses == [200] * per_ip + [429] * 5
    assert admin_login("someone-else", "guess", address="192.0.2.7").status_code == 200  # another address: its own count
    token = ask_token("name1", "guess", HTTP_X_FORWARDED_FOR="203.0.113.1")
    assert_error(token, 429, "too_many_attempts")


def test_the_api_the_admin_and_erasure_share_one_count_of_wrong_passwords(limits: Any) -> None:
    """Finding 4 of #30: the API's token and login, the admin's login and DELETE /api/me's password count together,
    per username; past the limit every one of them answers 429 (JSON `too_many_attempts` with `retry_after` on the
    API), the right password too, and nothing is erased."""
    ada = register("ada")
    get_user_model().objects.filter(username="ada").update(is_staff=True)
    limits.TTR_PASSWORD_FAILURES_PER_USERNAME = 4
    assert admin_login("ada", "nope").status_code == 200
    assert_error(ask_token("ada", "nope"), 400, "bad_credentials")
    assert_error(ada.delete(f"{API}/me", {"password": "nope"}, format="json"), 400, "bad_credentials")
    login = APIClient().post(f"{API}/auth/login", {"username": "Ada", "password": "nope"}, format="json")
    assert_error(login, 400, "bad_credentials")
    answer = ask_token("ada", PASSWORD)
    refused = assert_error(answer, 429, "too_many_attempts")
    assert refused["retry_after"] > 0 and "4 wrong passwords" in refused["detail"]
    assert answer["Retry-After"] == str(refused["retry_after"])
    assert_error(ada.delete(f"{API}/me", {"password": PASSWORD}, format="json"), 429, "too_many_attempts")
    assert admin_login("ada", PASSWORD).status_code == 429
    assert get_user_model().objects.filter(username="ada").exists()  # not erased
    window_passes()
    assert body(ask_token("ada", PASSWORD))["token"]


def test_the_admins_password_change_counts_wrong_old_passwords(limits: Any) -> None:
    """Finding 4 of #30: the admin's own password change asks for the old password: wrong ones count, and past the
    limit it is refused (429) and the password stays."""
    staff()
    client = Client()
    client.login(username="boss", password=PASSWORD)
    change = {"new_password1": "another-horse-12", "new_password2": "another-horse-12"}
    allowed = limits.TTR_PASSWORD_FAILURES_PER_USERNAME
    statuses = [
        client.post("/admin/password_change/", {**change, "old_password": f"guess-{n}"}).status_code
        for n in range(allowed + 2)
    ]
    assert statuses == [200] * allowed + [429] * 2
    assert client.post("/admin/password_change/", {**change, "old_password": PASSWORD}).status_code == 429
    assert get_user_model().objects.get(username="boss").check_password(PASSWORD)


# Finding 6: the mail bomb


def set_email(client: Any, address: str, capture: Any) -> Any:
    with capture(execute=True):  # the confirmation is mailed after the commit (inline: eager Celery)
        return client.patch(f"{API}/me", {"email": address}, format="json")


def test_five_address_changes_send_at_most_the_limit_of_mails_and_name_nobody(
    limits: Any, mailoutbox: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    """Finding 6 of #30: five PATCH /api/me {"email": victim} sent five mails, each naming the requester. Now the
    ones past the limit per account are 429 `too_many_mails`, send nothing and leave the pending address as it was;
    the mails that go name no account."""
    mallory = register("mallory-buys-ads")
    answers = [set_email(mallory, "victim@example.org", django_capture_on_commit_callbacks) for _ in range(5)]
    allowed = limits.TTR_CONFIRMATION_MAILS_PER_ACCOUNT
    assert [a.status_code for a in answers] == [200] * allowed + [429] * (5 - allowed)
    refused = assert_error(answers[-1], 429, "too_many_mails")
    assert refused["retry_after"] > 0
    assert len(mailoutbox) == allowed and {m.to[0] for m in mailoutbox} == {"victim@example.org"}
    assert not any("mallory" in m.body.lower() or "mallory" in m.subject.lower() for m in mailoutbox)
    assert_error(set_email(mallory, "other@example.org", django_capture_on_commit_callbacks), 429, "too_many_mails")
    assert Account.objects.get(user__username="mallory-buys-ads").email_pending == "victim@example.org"  # unchanged
    assert len(mailoutbox) == allowed


def test_many_accounts_cannot_mail_one_address_past_its_limit(
    limits: Any, mailoutbox: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    """Finding 6 of #30: the limit per address holds across accounts (any case of the address)."""
    allowed = limits.TTR_CONFIRMATION_MAILS_PER_ADDRESS
    senders = [register(f"sender{n}") for n in range(allowed + 2)]
    answers = [set_email(c, "Victim@Example.org", django_capture_on_commit_callbacks) for c in senders]
    assert [a.status_code for a in answers] == [200] * allowed + [429] * 2
    assert len(mailoutbox) == allowed
    assert Account.objects.filter(email_pending__iexact="victim@example.org").count() == allowed


# Finding 6: the queue, and the cap of games


def test_two_accounts_joining_and_leaving_the_queue_again_and_again_form_one_game() -> None:
    """Finding 6 of #30: two accounts joining and leaving 250 times formed 42 live games (a join after a table had
    formed dropped that table's entry and queued anew, the game left running). Now a join waits for the end of the
    live game the queue found (409 `queue_game_in_play`), so however often a worker runs in between, one game forms.
    40 rounds are enough to show it (the fault formed a game every six or so). (The limit on joins is relaxed here:
    this is the cause, not the rate.)"""
    ann, ben = register("ann"), register("ben")
    people = list(get_user_model().objects.filter(username__in=["ann", "ben"]))
    answers: Counter[str] = Counter()
    rounds = 40
    for _ in range(rounds):  # through the services the API calls (the API's answers are checked below): quicker
        for person in people:
            answers[attempt(matchmaker.join, person, "europe", [2], False, "live", None)] += 1
        matchmaker.run()  # the worker's run, between every join and leave: the worst case
        for person in people:
            answers[attempt(matchmaker.leave, person)] += 1
    assert Game.objects.count() == 1, answers
    assert answers == {"ok": 2, "queue_game_in_play": 2 * rounds - 2, "already_matched": 2 * rounds}
    assert_error(ann.post(QUEUE, LIVE_FOR_TWO, format="json"), 409, "queue_game_in_play")
    assert_error(ben.delete(QUEUE), 409, "already_matched")
    game = Game.objects.get()
    assert ann.post(url(str(game.pk), "resign"), {}, format="json").status_code == 200
    assert ann.post(QUEUE, LIVE_FOR_TWO, format="json").status_code == 201  # resigned: done with it


def attempt(call: Callable[..., object], *args: Any) -> str:
    """"ok", or the code of the refusal."""
    try:
        call(*args)
    except ServiceError as refused:
        return refused.code
    return "ok"


def test_queue_joins_are_limited_per_person(limits: Any) -> None:
    """Finding 6 of #30: each join queues a matchmaker run; past TTR_QUEUE_JOINS in its window a join is 429
    `too_many_joins` and the person is not queued."""
    ann = register("ann")
    daily = {"map": "usa", "players": [3], "speed": "daily"}
    for _ in range(limits.TTR_QUEUE_JOINS):
        assert ann.post(QUEUE, daily, format="json").status_code == 201
        assert ann.delete(QUEUE).status_code == 204
    assert_error(ann.post(QUEUE, daily, format="json"), 429, "too_many_joins")
    assert not QueueEntry.objects.exists()


def test_a_person_sits_in_at_most_the_cap_of_live_games_everywhere_they_could_take_a_seat(limits: Any) -> None:
    """Finding 6 of #30: a cap on games not finished per person and speed: creating, joining, queueing and a
    rematch past it are 409 `too_many_games` and seat nobody; the queue's runs pass over someone at the cap;
    a daily game has its own cap; resigning a game makes room."""
    ann, ben = register("ann"), register("ben")
    cap = limits.TTR_MAX_LIVE_GAMES
    games = [create_game(ann)["id"] for _ in range(cap)]
    refused = assert_error(ann.post(f"{API}/games", {"map": "usa", "players": 2}, format="json"), 409, "too_many_games")
    assert refused["limit"] == cap
    assert Game.objects.filter(created_by__username="ann").count() == cap
    bens = create_game(ben)["id"]
    assert_error(ann.post(url(bens, "join"), {}, format="json"), 409, "too_many_games")
    assert_error(ann.post(QUEUE, LIVE_FOR_TWO, format="json"), 409, "too_many_games")
    assert create_game(ann, speed="daily")["speed"] == "daily"  # the daily cap is another
    # A person who reaches the cap while waiting in the queue waits on: no table forms with them.
    limits.TTR_MAX_LIVE_GAMES = cap + 1
    assert ann.post(QUEUE, LIVE_FOR_TWO, format="json").status_code == 201
    create_game(ann)
    assert ben.post(QUEUE, LIVE_FOR_TWO, format="json").status_code == 201
    assert matchmaker.run() == []
    # Resigning (here: a game started with a bot, then left) makes room again.
    started = games[0]
    assert ann.post(url(started, "start"), {"fill_with_bots": "random"}, format="json").status_code == 200
    assert ann.post(url(started, "resign"), {}, format="json").status_code == 200
    assert len(matchmaker.run()) == 1


def test_a_rematch_past_the_cap_is_refused(limits: Any) -> None:
    """Finding 6 of #30: a rematch seats its people in one more game: past the cap it is 409 `too_many_games`."""
    limits.TTR_MAX_LIVE_GAMES = 2
    ann = register("ann")
    game = create_game(ann)["id"]
    assert ann.post(url(game, "start"), {"fill_with_bots": "random"}, format="json").status_code == 200
    finish_by_services(game, random.Random(5), score=False)
    create_game(ann)
    create_game(ann)
    assert_error(ann.post(url(game, "rematch")), 409, "too_many_games")
    assert Game.objects.filter(rematch_of=game).count() == 0
