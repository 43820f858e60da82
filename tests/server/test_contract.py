"""The contract holds under hostile input (issue #7): every bad request is a short JSON error that changes
nothing; usernames cannot impersonate; logging out revokes the token; the docs work offline."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.server.helpers import API, PASSWORD, assert_error, body, create_game, register, url

pytestmark = pytest.mark.django_db

DEEP = "[" * 1000 + "]" * 1000



def post_raw(client: APIClient, path: str, raw: str | bytes, content_type: str = "application/json") -> Any:
    return client.post(path, raw, content_type=content_type)


# Defect 1: a deeply nested body crashed the JSON parser (RecursionError, a 500).


def test_a_deeply_nested_body_is_invalid_on_anonymous_register() -> None:
    assert_error(post_raw(APIClient(), f"{API}/auth/register", DEEP), 400, "invalid")
    assert_error(post_raw(APIClient(), f"{API}/auth/register", '{"username": ' + DEEP + "}"), 400, "invalid")
    assert not get_user_model().objects.filter(bot_account=None).exists()  # no account but the bot accounts


def test_a_deeply_nested_body_is_invalid_on_every_endpoint_that_reads_one() -> None:
    client = register("ada")
    game = create_game(client)
    paths = ["auth/token", "auth/login", "games", *(f"games/{game['id']}/{tail}" for tail in ("join", "bots", "start"))]
    for path in paths:
        assert_error(post_raw(client, f"{API}/{path}", DEEP), 400, "invalid")
    move = '{"expected_seq": 0, "move": {"type": "keep_tickets", "tickets": ' + DEEP + "}}"
    assert_error(post_raw(client, url(game["id"], "moves"), move), 400, "invalid")
    assert body(client.get(url(game["id"])))["seq"] == 0


@pytest.mark.parametrize("raw", ['{"expected_seq": NaN}', '{"x": Infinity}', '{"x": -Infinity}'])
def test_non_json_numbers_are_invalid(raw: str) -> None:
    assert_error(post_raw(register("ada"), f"{API}/games", raw), 400, "invalid")


# The API takes JSON only.


@pytest.mark.parametrize(
    ("raw", "content_type"),
    [
        ("map=usa&players=2", "application/x-www-form-urlencoded"),
        ("--b\r\nContent-Disposition: form-data; name=map\r\n\r\nusa\r\n--b--\r\n", "multipart/form-data; boundary=b"),
        ("<game/>", "application/xml"),
        ('{"map": "usa", "players": 2}', "text/plain"),
    ],
)
def test_bodies_that_are_not_json_are_415(raw: str, content_type: str) -> None:
    client = register("ada")
    assert_error(post_raw(client, f"{API}/games", raw, content_type), 415, "unsupported_media_type")
    assert body(client.get(f"{API}/games"))["results"] == []


# Integers are JSON integers, booleans JSON booleans, strings JSON strings.


@pytest.mark.parametrize("expected_seq", ["12", 12.0, True, None, "", [12]])
def test_expected_seq_takes_a_json_integer_only(expected_seq: object) -> None:
    client = register("ada")
    game = create_game(client)
    payload = {"expected_seq": expected_seq, "move": {"type": "draw_tickets"}}
    response = client.post(url(game["id"], "moves"), payload, format="json")
    data = assert_error(response, 400, "invalid")
    assert data["field"] == "expected_seq"


@pytest.mark.parametrize(
    "payload",
    [
        {"map": "usa", "players": "2"},
        {"map": "usa", "players": 2.0},
        {"map": "usa", "players": 2, "ranked": "true"},
        {"map": "usa", "players": 2, "ranked": 1},
        {"map": "usa", "players": 2, "turn_seconds": "60"},
        {"map": 1, "players": 2},
    ],
)
def test_game_fields_take_their_json_type_only(payload: dict[str, object]) -> None:
    client = register("ada")
    assert_error(client.post(f"{API}/games", payload, format="json"), 400, "invalid")
    assert body(client.get(f"{API}/games"))["results"] == []


def test_credentials_take_strings_only() -> None:
    response = APIClient().post(f"{API}/auth/register", {"username": 12345, "password": PASSWORD}, format="json")
    assert_error(response, 400, "invalid")
    assert not get_user_model().objects.filter(bot_account=None).exists()  # no account but the bot accounts


@pytest.mark.parametrize("query", [{"mine": "yes"}, {"page": "0"}, {"page": "1.0"}, {"page_size": "1000"}, {"status": "x"}])
def test_list_query_parameters_are_strict(query: dict[str, str]) -> None:
    assert_error(register("ada").get(f"{API}/games", query), 400, "invalid")


@pytest.mark.parametrize("game_id", ["ABCDEF00-0000-4000-8000-000000000000", "abcdef0000004000800000000000000a"])
def test_game_ids_have_one_canonical_form(game_id: str) -> None:
    client = register("ada")
    game = create_game(client)
    assert client.get(url(game["id"])).status_code == 200
    assert_error(client.get(url(game["id"].upper())), 404, "not_found")
    assert_error(client.get(url(game["id"].replace("-", ""))), 404, "not_found")
    assert_error(client.get(url(game_id)), 404, "not_found")


# Defect 5: usernames that differ only in case or Unicode compatibility form were separate accounts.


@pytest.mark.parametrize("other", ["alice", "ALICE", "\uff41\uff4c\uff49\uff43\uff45", "\uff21lice"])
def test_usernames_are_one_account_in_any_case_and_nfkc_form(other: str) -> None:
    register("Alice")
    response = APIClient().post(f"{API}/auth/register", {"username": other, "password": PASSWORD}, format="json")
    assert_error(response, 400, "username_taken")
    assert list(get_user_model().objects.filter(bot_account=None).values_list("username", flat=True)) == ["Alice"]
    token = APIClient().post(f"{API}/auth/token", {"username": other, "password": PASSWORD}, format="json")
    assert token.status_code == 200  # logging in by any form of the name reaches the one account
    assert body(token)["token"] == Token.objects.get(user__username="Alice").key


def test_a_full_width_name_is_stored_in_its_nfkc_form() -> None:
    response = APIClient().post(f"{API}/auth/register", {"username": "\uff42ob", "password": PASSWORD}, format="json")
    assert response.status_code == 201 and body(response)["username"] == "bob"


@pytest.mark.parametrize(
    "username", ["a", "x" * 25, "ann smith", "ann\u00e9", "\u0430nn", "_ann", ".ann", "ann\n", "ann/1", "\u200bann"]
)
def test_usernames_outside_the_documented_set_are_invalid(username: str) -> None:
    response = APIClient().post(f"{API}/auth/register", {"username": username, "password": PASSWORD}, format="json")
    assert assert_error(response, 400, "invalid")["field"] == "username"
    assert not get_user_model().objects.filter(bot_account=None).exists()  # no account but the bot accounts


def test_the_database_refuses_two_names_differing_only_in_case() -> None:
    from django.db import IntegrityError, transaction

    get_user_model().objects.create(username="Carol")
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create(username="carol")


# Defect 6: logging out left the token working.


def test_logout_revokes_the_token_it_was_called_with() -> None:
    client = register("ada")
    old = client.token  # type: ignore[attr-defined]
    assert client.post(f"{API}/auth/logout").status_code == 200
    assert_error(client.post(f"{API}/games", {"map": "usa", "players": 2}, format="json"), 401, "authentication_failed")
    fresh = body(APIClient().post(f"{API}/auth/token", {"username": "ada", "password": PASSWORD}, format="json"))
    assert fresh["token"] != old
    client.credentials(HTTP_AUTHORIZATION=f"Token {fresh['token']}")
    assert client.post(f"{API}/games", {"map": "usa", "players": 2}, format="json").status_code == 201


def test_an_expired_token_is_refused_and_replaced(settings: Any) -> None:
    client = register("ada")
    old = client.token  # type: ignore[attr-defined]
    settings.TOKEN_LIFETIME_DAYS = 0
    assert_error(client.get(f"{API}/games"), 401, "authentication_failed")
    settings.TOKEN_LIFETIME_DAYS = 30
    assert client.get(f"{API}/games").status_code == 200  # within its lifetime again
    settings.TOKEN_LIFETIME_DAYS = 0
    fresh = body(APIClient().post(f"{API}/auth/token", {"username": "ada", "password": PASSWORD}, format="json"))
    assert fresh["token"] != old


# Defect 7: errors echoed the whole offending value.


def test_errors_quote_only_a_short_prefix_of_a_huge_value() -> None:
    client = register("ada")
    game = create_game(client)
    client.post(url(game["id"], "start"), {"fill_with_bots": "random"}, format="json")
    seq = body(client.get(url(game["id"], "state")))["seq"]
    huge = "r" * 10_000
    moves = url(game["id"], "moves")
    cases = [
        (moves, {"expected_seq": seq, "move": {"type": "claim_route", "route": huge, "cards": {"red": 1}}}),
        (moves, {"expected_seq": seq, "move": {"type": "claim_route", "route": "x", "cards": {huge: 1}}}),
        (moves, {"expected_seq": seq, "move": {"type": "draw_tickets", huge: 1}}),
        (moves, {"expected_seq": seq, "move": {"type": huge}}),
        (f"{API}/games", {"map": huge, "players": 2}),
        (f"{API}/auth/register", {"username": huge, "password": PASSWORD}),
    ]
    for path, payload in cases:
        response = client.post(path, payload, format="json")
        assert 400 <= response.status_code < 500
        assert len(response.content) < 1000, (path, response.content[:200])
        assert huge[:100] not in response.content.decode()


# Defect 8: the docs page loaded Swagger UI from a CDN.


def test_the_docs_page_loads_its_assets_from_this_server() -> None:
    from django.test import Client

    page = Client().get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "cdn" not in html.lower() and "https://" not in html
    scripts = [part.split('"')[0] for part in html.split('src="')[1:]]
    assert scripts, html[:500]
    for src in scripts:
        asset = Client().get(src)
        assert asset.status_code == 200, src
        assert len(b"".join(asset.streaming_content) if asset.streaming else asset.content) > 1000, src


def test_the_schema_lists_every_error_status_with_the_error_body() -> None:
    schema = json.loads(APIClient().get("/api/schema/", {"format": "json"}).content)
    moves = schema["paths"]["/api/games/{game_id}/moves"]["post"]["responses"]
    assert {"201", "400", "401", "403", "404", "409", "413", "415"} <= set(moves)
    assert moves["409"]["content"]["application/json"]["schema"]["$ref"].endswith("/Error")
    register_ = schema["paths"]["/api/auth/register"]["post"]["responses"]
    assert "429" in register_
    replay = schema["paths"]["/api/games/{game_id}/replay"]["get"]["parameters"]
    assert any(p["name"] == "at" and p["in"] == "query" and p["required"] for p in replay)
    assert list(schema["paths"]["/api/games"]["post"]["requestBody"]["content"]) == ["application/json"]


# The README lists every error code the server uses.


def test_the_api_contract_lists_every_error_code_with_its_status() -> None:
    import re
    from pathlib import Path

    from games.api.error_responses import _DRF_CODES

    root = Path(__file__).resolve().parents[2]
    sources = "".join(p.read_text() for folder in ("games", "ttr_server") for p in (root / folder).rglob("*.py"))
    used = set(re.findall(r'(?:ServiceError\(|error\()\s*"([a-z_]+)"', sources))
    used |= set(re.findall(r'"code": "([a-z_]+)"', sources)) | set(_DRF_CODES.values())
    table = dict(re.findall(r"^\| `([a-z_]+)` \| (\d{3}) \|", (root / "docs" / "API.md").read_text(), re.MULTILINE))
    assert used - set(table) == set(), "error codes missing from docs/API.md's table"
    assert {"stale_seq", "illegal_move", "too_large", "username_taken"} <= used  # the scan finds codes at all
    assert table["stale_seq"] == "409" and table["too_large"] == "413" and table["illegal_move"] == "400"
