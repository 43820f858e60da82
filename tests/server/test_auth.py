"""Identity (docs/API.md): register, token, session login/logout, and JSON errors for unauthenticated requests."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from tests.server.helpers import API, PASSWORD, assert_error, body, create_game, register

pytestmark = pytest.mark.django_db



def test_register_returns_a_working_token() -> None:
    client = APIClient()
    response = client.post(f"{API}/auth/register", {"username": "ada", "password": PASSWORD}, format="json")
    assert response.status_code == 201
    data = body(response)
    assert data["username"] == "ada"
    assert isinstance(data["token"], str) and len(data["token"]) >= 20
    client.credentials(HTTP_AUTHORIZATION=f"Token {data['token']}")
    game = create_game(client)
    assert game["created_by"] == "ada"
    assert game["seats"][0]["username"] == "ada"


def test_register_twice_is_username_taken() -> None:
    register("ada")
    response = APIClient().post(f"{API}/auth/register", {"username": "ada", "password": "another-pass-77"}, format="json")
    assert_error(response, 400, "username_taken")


@pytest.mark.parametrize(
    "payload",
    [
        {"username": "bob", "password": "short"},  # too short
        {"username": "bob", "password": "password"},  # too common
        {"username": "bad name!", "password": PASSWORD},  # not a valid username
        {"username": "", "password": PASSWORD},
        {"username": "bob"},
        {"password": PASSWORD},
        {},
        {"username": "x" * 151, "password": PASSWORD},
        {"username": ["bob"], "password": PASSWORD},
    ],
)
def test_register_invalid(payload: dict[str, object]) -> None:
    response = APIClient().post(f"{API}/auth/register", payload, format="json")
    assert_error(response, 400, "invalid")
    from django.contrib.auth import get_user_model

    assert not get_user_model().objects.filter(bot_account=None).exists()  # no account but the bot accounts


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b'"ada"', b"null", b""])
def test_register_garbage_body_is_invalid(raw: bytes) -> None:
    response = APIClient().post(f"{API}/auth/register", raw, content_type="application/json")
    assert_error(response, 400, "invalid")


def test_token_for_registered_user() -> None:
    client = APIClient()
    registered = body(client.post(f"{API}/auth/register", {"username": "ada", "password": PASSWORD}, format="json"))
    response = client.post(f"{API}/auth/token", {"username": "ada", "password": PASSWORD}, format="json")
    assert response.status_code == 200
    assert body(response) == {"token": registered["token"]}


@pytest.mark.parametrize(
    "payload", [{"username": "ada", "password": "wrong-password-1"}, {"username": "nobody", "password": PASSWORD}]
)
def test_token_bad_credentials(payload: dict[str, str]) -> None:
    register("ada")
    response = APIClient().post(f"{API}/auth/token", payload, format="json")
    assert_error(response, 400, "bad_credentials")
    assert "token" not in body(response)


@pytest.mark.parametrize("payload", [{}, {"username": "ada"}, {"password": PASSWORD}])
def test_token_missing_fields_invalid(payload: dict[str, str]) -> None:
    response = APIClient().post(f"{API}/auth/token", payload, format="json")
    assert_error(response, 400, "invalid")


def test_session_login_and_logout() -> None:
    register("ada")
    client = APIClient()
    response = client.post(f"{API}/auth/login", {"username": "ada", "password": PASSWORD}, format="json")
    assert response.status_code == 200
    assert body(response)["username"] == "ada"
    assert "sessionid" in response.cookies
    game = create_game(client)  # authenticated by the session cookie
    assert game["created_by"] == "ada"
    mine = body(client.get(f"{API}/games", {"mine": 1}))["results"]
    assert [g["id"] for g in mine] == [game["id"]]

    response = client.post(f"{API}/auth/logout", {}, format="json")
    assert response.status_code == 200
    assert body(client.get(f"{API}/games", {"mine": 1}))["results"] == []
    response = client.post(f"{API}/games", {"map": "usa", "players": 2}, format="json")
    assert_error(response, 401, "not_authenticated")


def test_login_bad_credentials() -> None:
    register("ada")
    client = APIClient()
    response = client.post(f"{API}/auth/login", {"username": "ada", "password": "not-the-password"}, format="json")
    assert_error(response, 400, "bad_credentials")
    assert "sessionid" not in response.cookies
    assert_error(client.post(f"{API}/games", {"map": "usa", "players": 2}, format="json"), 401, "not_authenticated")


def test_unauthenticated_writes_get_json_errors() -> None:
    owner = register("ada")
    game = create_game(owner)
    anonymous = APIClient()
    for path, payload in [
        (f"{API}/games", {"map": "europe", "players": 2}),
        (f"{API}/games/{game['id']}/join", {}),
        (f"{API}/games/{game['id']}/bots", {"level": "random"}),
        (f"{API}/games/{game['id']}/start", {}),
        (f"{API}/games/{game['id']}/moves", {"expected_seq": 0, "move": {"type": "draw_tickets"}}),
    ]:
        assert_error(anonymous.post(path, payload, format="json"), 401, "not_authenticated")
    # nothing happened to the game
    summary = body(owner.get(f"{API}/games/{game['id']}"))
    assert summary["status"] == "open" and summary["seq"] == 0
    assert [s["username"] for s in summary["seats"]] == ["ada", None]


def test_bad_token_is_authentication_failed() -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert_error(client.get(f"{API}/games"), 401, "authentication_failed")
    assert_error(client.post(f"{API}/games", {"map": "usa", "players": 2}, format="json"), 401, "authentication_failed")


def test_anonymous_may_read() -> None:
    game = create_game(register("ada"))
    anonymous = APIClient()
    assert anonymous.get(f"{API}/games").status_code == 200
    assert body(anonymous.get(f"{API}/games/{game['id']}"))["id"] == game["id"]
    state = body(anonymous.get(f"{API}/games/{game['id']}/state"))
    assert state["view"]["your_seat"] is None


def test_unknown_path_and_method_are_json() -> None:
    client = register("ada")
    assert_error(client.get(f"{API}/no-such-thing"), 404, "not_found")
    assert_error(client.delete(f"{API}/games"), 405, "method_not_allowed")
    assert_error(client.get(f"{API}/auth/register"), 405, "method_not_allowed")


def test_auth_endpoints_are_throttled(settings: pytest.FixtureRequest) -> None:
    cache.clear()
    settings.AUTH_THROTTLE_RATE = "3/min"
    client = APIClient()
    payload = {"username": "nobody", "password": PASSWORD}
    codes = [client.post(f"{API}/auth/token", payload, format="json").status_code for _ in range(3)]
    assert codes == [400, 400, 400]
    assert_error(client.post(f"{API}/auth/token", payload, format="json"), 429, "throttled")
    cache.clear()
