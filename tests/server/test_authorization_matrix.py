"""Who may do what: an authorization matrix over every operation of the OpenAPI schema (docs/API.md).

`MATRIX` below is the table: one row per operation (method and path template as drf-spectacular lists them) and
the game it is tried on (the audit has two rows: who may read it depends on whether the game is over), giving
for each role what the API answers: the allowed status, or the refused status and its error `code`. A cell the
server gets wrong is written `Bug(correct answer, reason)`: that case is a strict xfail.
`test_every_operation_has_a_row` holds the table to the schema both ways, so a new endpoint without its
authorization row breaks the suite. `test_authorization` makes each row's request as each role, against a
real game in the state the operation needs and with a body valid for it, so that only who asks can explain a
refusal; a refused request must leave everything as it was.

Roles: anonymous (no credential); `other`, a registered user with no seat; `seated`, a human player in seat 1;
`creator`, who created the game and sits in seat 0; `resigned`, a human in seat 2 who called
POST .../resign (the game's fallback bot plays that seat); `staff`, an `is_staff` user with no seat.
An open game cannot have a resigned player: there the `resigned` user is one who resigned from another
game (the module's finished one) and has no seat in this one.

The users and the finished, scored game are made once for the module, inside a transaction that is rolled back
at the end; each test runs in a savepoint of it (pytest-django), so what a test does is undone after it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from itertools import count
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.server.helpers import (
    PASSWORD,
    assert_error,
    body,
    create_game,
    create_tournament,
    finish_by_services,
    register,
    registrations_unthrottled,
    url,
)

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "other", "seated", "creator", "resigned", "staff")
# Where each role sits in the fixture games (anonymous, other and staff have no seat).
SEAT_OF = {"creator": 0, "seated": 1, "resigned": 2}

# The game an operation is tried on: none (the operation names no game), open (seats 0 and 1 taken, seat 2
# free), active (just started: every seat is choosing its first tickets; seat 2 has resigned) or finished
# (played to the end and scored, seat 2 having resigned on the way).
NONE, OPEN, ACTIVE, FINISHED = "none", "open", "active", "finished"
TOURNEY = "tournament"  # no game: the module's upcoming tournament (World.tournament)


@dataclass(frozen=True)
class Bug:
    """The correct answer, which the server does not give yet: the case is a strict xfail with this reason."""

    expected: int | tuple[int, str]
    reason: str


Expect = int | tuple[int, str] | Bug

ANON = (401, "not_authenticated")
NOT_PLAYER = (403, "not_a_player")
NOT_CREATOR = (403, "not_creator")
RESIGNED = (403, "resigned")
WRONG_PASSWORD = (400, "bad_credentials")
ALREADY_SEATED = (409, "already_seated")
ALREADY_RESIGNED = (409, "already_resigned")
NOT_FINISHED = (409, "not_finished")
NOT_QUEUED = (404, "not_queued")
ALREADY_JOINED = (409, "already_joined")
NOT_JOINED = (404, "not_joined")
SELF_MUTE = (409, "yourself")
NO_HINTS = (403, "no_hints")

G = "/api/games/{game_id}"
T = "/api/tournaments/{tournament_id}"

# fmt: off
MATRIX: dict[tuple[str, str, str], tuple[Expect, ...]] = {
    # (method, path template, game the request is made on):
    #    anonymous,     other,         seated,          creator,         resigned,          staff
    ("POST", "/api/auth/register", NONE):
        (201,           201,           201,             201,             201,               201),
    ("POST", "/api/auth/token", NONE):
        (200,           200,           200,             200,             200,               200),
    ("POST", "/api/auth/login", NONE):
        (200,           200,           200,             200,             200,               200),
    # Logging out without being logged in is harmless: nothing to revoke.
    ("POST", "/api/auth/logout", NONE):
        (200,           200,           200,             200,             200,               200),
    ("GET", "/api/games", NONE):
        (200,           200,           200,             200,             200,               200),
    ("POST", "/api/games", NONE):
        (ANON,          201,           201,             201,             201,               201),
    ("GET", G, ACTIVE):
        (200,           200,           200,             200,             200,               200),
    # Anyone may take a free seat of an open game; who has a seat already may not take another.
    ("POST", G + "/join", OPEN):
        (ANON,          200,           ALREADY_SEATED,  ALREADY_SEATED,  200,               200),
    ("POST", G + "/bots", OPEN):
        (ANON,          NOT_CREATOR,   NOT_CREATOR,     200,             NOT_CREATOR,       NOT_CREATOR),
    # docs/API.md does not say who starts a game; the code (and common sense) say its creator only.
    ("POST", G + "/start", OPEN):
        (ANON,          NOT_CREATOR,   NOT_CREATOR,     200,             NOT_CREATOR,       NOT_CREATOR),
    ("POST", G + "/resign", ACTIVE):
        (ANON,          NOT_PLAYER,    200,             200,             ALREADY_RESIGNED,  NOT_PLAYER),
    # Reads of a game are open to spectators (docs/API.md, WebSocket: "Spectators may connect to any game"); what
    # each one sees is projected for them (tests/server/test_leaks.py), which is not this module's question.
    ("GET", G + "/state", ACTIVE):
        (200,           200,           200,             200,             200,               200),
    ("GET", G + "/legal-moves", ACTIVE):
        (200,           200,           200,             200,             200,               200),
    ("POST", G + "/moves", ACTIVE):
        (ANON,          NOT_PLAYER,    201,             201,             RESIGNED,          NOT_PLAYER),
    ("GET", G + "/events", ACTIVE):
        (200,           200,           200,             200,             200,               200),
    ("GET", G + "/replay", ACTIVE):
        (200,           200,           200,             200,             200,               200),
    # The unprojected log of a game in play shows every hand: staff only (docs/API.md) until the game is over.
    ("GET", G + "/audit", ACTIVE):
        (NOT_FINISHED,  NOT_FINISHED,  NOT_FINISHED,    NOT_FINISHED,    NOT_FINISHED,      200),
    ("GET", G + "/audit", FINISHED):
        (200,           200,           200,             200,             200,               200),
    ("GET", G + "/verify", ACTIVE):
        (200,           200,           200,             200,             200,               200),
    ("GET", G + "/score", FINISHED):
        (200,           200,           200,             200,             200,               200),
    # A game is signed once it is over and scored; its checkpoint and the keys are public (docs/CHECKPOINTS.md).
    ("GET", G + "/checkpoint", ACTIVE):
        (NOT_FINISHED,  NOT_FINISHED,  NOT_FINISHED,    NOT_FINISHED,    NOT_FINISHED,      NOT_FINISHED),
    ("GET", G + "/checkpoint", FINISHED):
        (200,           200,           200,             200,             200,               200),
    # A finished game's analysis: read by anyone ({"status": "none"} before a player asked for it); a hint is only
    # for a player whose every other seat is a bot (here people sit at the other seats).
    ("GET", G + "/analysis", FINISHED):
        (200,           200,           200,             200,             200,               200),
    ("POST", G + "/analysis", FINISHED):
        (ANON,          NOT_PLAYER,    202,             202,             202,               NOT_PLAYER),
    ("POST", G + "/analysis", ACTIVE):  # who may ask is told first (finding 11 of #30: 403 before 409)
        (ANON,          NOT_PLAYER,    NOT_FINISHED,    NOT_FINISHED,    NOT_FINISHED,      NOT_PLAYER),
    ("POST", G + "/hint", ACTIVE):
        (ANON,          NO_HINTS,      NO_HINTS,        NO_HINTS,        NO_HINTS,          NO_HINTS),
    ("GET", "/api/keys", NONE):
        (200,           200,           200,             200,             200,               200),
    # Audit at scale: the stream of finished games and the monthly dumps are public (docs/AUDIT.md).
    ("GET", "/api/games/export", NONE):
        (200,           200,           200,             200,             200,               200),
    ("GET", "/api/dumps", NONE):
        (200,           200,           200,             200,             200,               200),
    ("POST", G + "/invite", OPEN):
        (ANON,          NOT_CREATOR,   NOT_CREATOR,     201,             NOT_CREATOR,       NOT_CREATOR),
    ("POST", G + "/rematch", FINISHED):
        (ANON,          NOT_PLAYER,    200,             200,             200,               NOT_PLAYER),
    ("GET", "/api/queue", NONE):  # {"status": "none"}: not queued is a state, not an error
        (ANON,          200,           200,             200,             200,               200),
    ("POST", "/api/queue", NONE):
        (ANON,          201,           201,             201,             201,               201),
    ("DELETE", "/api/queue", NONE):
        (ANON,          NOT_QUEUED,    NOT_QUEUED,      NOT_QUEUED,      NOT_QUEUED,        NOT_QUEUED),
    ("GET", "/api/me", NONE):
        (ANON,          200,           200,             200,             200,               200),
    ("PATCH", "/api/me", NONE):
        (ANON,          200,           200,             200,             200,               200),
    # Asked with a wrong password here (the right one would erase the account the other rows use): refused alike.
    ("DELETE", "/api/me", NONE):
        (ANON,          WRONG_PASSWORD, WRONG_PASSWORD, WRONG_PASSWORD,  WRONG_PASSWORD,    WRONG_PASSWORD),
    ("GET", "/api/me/export", NONE):
        (ANON,          200,           200,             200,             200,               200),
    ("POST", "/api/me/email/confirm", NONE):
        (200,           200,           200,             200,             200,               200),
    ("POST", "/api/me/unsubscribe", NONE):
        (200,           200,           200,             200,             200,               200),
    # Tournaments: anyone reads them; a signed-in person organises one and joins; only who is in withdraws. The
    # module's tournament (TOURNEY) is upcoming, organised by `creator`, with `seated` registered.
    ("GET", "/api/tournaments", NONE):
        (200,           200,           200,             200,             200,               200),
    ("POST", "/api/tournaments", NONE):
        (ANON,          201,           201,             201,             201,               201),
    ("GET", T, TOURNEY):
        (200,           200,           200,             200,             200,               200),
    ("POST", T + "/join", TOURNEY):
        (ANON,          200,           ALREADY_JOINED,  200,             200,               200),
    ("DELETE", T + "/join", TOURNEY):
        (ANON,          NOT_JOINED,    204,             NOT_JOINED,      NOT_JOINED,        NOT_JOINED),
    ("GET", T + "/tables", TOURNEY):
        (200,           200,           200,             200,             200,               200),
    ("GET", T + "/verify", TOURNEY):
        (200,           200,           200,             200,             200,               200),
    ("GET", T + "/audit", TOURNEY):
        (200,           200,           200,             200,             200,               200),
    ("GET", "/api/me/games", NONE):
        (ANON,          200,           200,             200,             200,               200),
    ("GET", "/api/me/vacation", NONE):
        (ANON,          200,           200,             200,             200,               200),
    ("POST", "/api/me/vacation", NONE):
        (ANON,          201,           201,             201,             201,               201),
    ("DELETE", "/api/me/vacation", NONE):
        (ANON,          200,           200,             200,             200,               200),
    ("GET", "/api/notifications", NONE):
        (ANON,          200,           200,             200,             200,               200),
    ("POST", "/api/notifications/read", NONE):
        (ANON,          204,           204,             204,             204,               204),
    ("GET", "/api/leaderboard", NONE):
        (200,           200,           200,             200,             200,               200),
    ("GET", "/api/users/{username}", NONE):
        (200,           200,           200,             200,             200,               200),
    # Table talk: anyone reads what their channels hold; a line at the table can be reported by anyone signed in
    # who reads it; a mute is each person's own (of the creator here: the creator cannot mute themselves).
    ("GET", G + "/chat", ACTIVE):
        (200,           200,           200,             200,             200,               200),
    ("POST", "/api/chat/{message_id}/report", ACTIVE):
        (ANON,          200,           200,             200,             200,               200),
    ("POST", "/api/users/{username}/mute", NONE):
        (ANON,          200,           200,             SELF_MUTE,       200,               200),
    ("DELETE", "/api/users/{username}/mute", NONE):
        (ANON,          200,           200,             SELF_MUTE,       200,               200),
}
# fmt: on


def schema_operations() -> set[tuple[str, str]]:
    """(METHOD, path template) of every operation drf-spectacular generates under /api/.

    /api/schema/ and /api/docs/ describe the API rather than being part of it (SERVE_INCLUDE_SCHEMA is off, so
    the schema does not list them anyway); they are skipped should that setting change."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        if path.startswith("/api/") and not path.startswith(("/api/schema/", "/api/docs/"))
        for method in operations
        if method in {"get", "post", "put", "patch", "delete"}
    }


def test_every_operation_has_a_row() -> None:
    rows = {(method, path) for method, path, _game in MATRIX}
    operations = schema_operations()
    assert operations - rows == set(), "operations without an authorization row"
    assert rows - operations == set(), "rows for operations the schema does not have"
    assert all(len(expect) == len(ROLES) for expect in MATRIX.values())


# ---------------------------------------------------------------------------------------------------------
# The world: users in every role, and a finished, scored game.


@dataclass
class World:
    tokens: dict[str, str]  # role -> API token
    usernames: dict[str, str]  # role -> username
    finished: str  # a finished, scored game: creator seat 0, seated seat 1, resigned seat 2 (resigned)
    tournament: str  # an upcoming tournament `creator` organised and `seated` joined
    open: str  # an open 3-seat game: creator seat 0, seated seat 1, seat 2 free
    active: str  # a started 3-seat game: creator seat 0, seated seat 1, resigned seat 2 (resigned)


@pytest.fixture(scope="module")
def world(django_db_setup: Any, django_db_blocker: Any) -> Iterator[World]:
    """Made once, in a transaction rolled back after the module (each test runs in a savepoint of it)."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    with registrations_unthrottled(), django_db_blocker.unblock(), transaction.atomic():
        clients = {role: register(f"authz-{role}") for role in ROLES if role != "anonymous"}
        get_user_model().objects.filter(username="authz-staff").update(is_staff=True)
        game = _three_seats(clients, "usa", start=True)
        resign = clients["resigned"].post(url(game, "resign"), format="json")
        assert resign.status_code == 200, resign.content
        finish_by_services(game, random.Random(11))  # and scored
        tournament = create_tournament(clients["creator"])["id"]
        assert clients["seated"].post(f"/api/tournaments/{tournament}/join", {}, format="json").status_code == 200
        active = _three_seats(clients, "europe", start=True)
        assert clients["resigned"].post(url(active, "resign"), format="json").status_code == 200
        yield World(
            tokens={role: c.token for role, c in clients.items()},  # type: ignore[attr-defined]
            usernames={role: c.username for role, c in clients.items()},  # type: ignore[attr-defined]
            finished=game,
            tournament=tournament,
            open=_three_seats(clients, "europe", start=False),
            active=active,
        )
        transaction.set_rollback(True)


def _three_seats(clients: dict[str, APIClient], map_name: str, *, start: bool) -> str:
    """A 3-seat game made by `creator` (seat 0) with `seated` in seat 1; seat 2 `resigned`'s when started."""
    game = create_game(clients["creator"], map_name, 3)["id"]
    seats = [("seated", 1), ("resigned", 2)] if start else [("seated", 1)]
    for role, seat in seats:
        response = clients[role].post(url(game, "join"), {"seat": seat}, format="json")
        assert response.status_code == 200, response.content
    if start:
        response = clients["creator"].post(url(game, "start"), {}, format="json")
        assert response.status_code == 200, response.content
    return game


def client_as(world: World, role: str) -> APIClient:
    """A fresh client (no cookie from another test) for the role."""
    client = APIClient()
    if role != "anonymous":
        client.credentials(HTTP_AUTHORIZATION=f"Token {world.tokens[role]}")
    return client


def game_for(world: World, kind: str) -> str | None:
    """The module's game of that kind: whatever a test does to it is rolled back after the test (each runs in a
    savepoint of the module's transaction, and the server tests' setup forgets the cached states)."""
    return {OPEN: world.open, ACTIVE: world.active, FINISHED: world.finished}.get(kind)


# ---------------------------------------------------------------------------------------------------------
# One request per row and role.

NAMES = count()


def a_legal_move(game_id: str, role: str) -> dict[str, Any]:
    """`expected_seq` and a move that the role's seat (seat 0's for those without one) may make now."""
    from games.engine import legal_moves
    from games.engine.codec import move_to_dict
    from games.store import states
    from games.store.models import Game

    game = Game.objects.get(pk=game_id)
    moves = legal_moves(states.state_at(game.pk, game.seq), SEAT_OF.get(role, 0))
    assert moves, (role, game.seq)
    return {"expected_seq": game.seq, "move": move_to_dict(moves[0])}


def request_for(world: World, method: str, path: str, role: str, game_id: str | None) -> tuple[str, dict[str, Any]]:
    """The address and a body (or query) valid for the operation, as this role would send it."""
    address = path.replace("{game_id}", game_id or "").replace("{username}", world.usernames["creator"])
    address = address.replace("{tournament_id}", world.tournament)
    if "{message_id}" in path:
        address = address.replace("{message_id}", str(_a_table_line(game_id, world.usernames["creator"])))
    own = world.usernames.get(role, world.usernames["other"])  # anonymous asks with someone's credentials
    data: dict[str, Any] = {}
    if path in ("/api/auth/token", "/api/auth/login"):
        data = {"username": own, "password": PASSWORD}
    elif path == "/api/auth/register":
        data = {"username": f"authz-new{next(NAMES)}", "password": PASSWORD}
    elif (method, path) == ("POST", "/api/games"):
        data = {"map": "europe", "players": 2}
    elif path == G + "/join":
        data = {"seat": 2}
    elif path == G + "/bots":
        data = {"seat": 2, "level": "random"}
    elif path == G + "/start":
        data = {"fill_with_bots": "random"}
    elif path == G + "/moves":
        assert game_id is not None
        data = a_legal_move(game_id, role)
    elif path == G + "/events":
        data = {"after": 0}
    elif path == G + "/replay":
        data = {"at": 1}
    elif path == "/api/leaderboard":
        data = {"map": "europe"}
    elif path == G + "/invite":
        data = {"username": world.usernames["other"]}
    elif (method, path) == ("POST", "/api/tournaments"):
        data = {"name": "Authz cup", "format": "arena", "map": "usa", "table_size": 3, "minutes": 30,
                "starts_at": (timezone.now() + timedelta(hours=2)).isoformat()}
    elif (method, path) == ("POST", "/api/queue"):
        data = {"map": "europe", "players": [3, 4]}
    elif (method, path) == ("DELETE", "/api/me"):
        data = {"password": "not-the-password"}
    elif (method, path) == ("PATCH", "/api/me"):
        data = {"language": "en", "notify": {"your_turn": False}}
    elif (method, path) == ("POST", "/api/me/vacation"):
        data = {"days": 2}
    elif path == "/api/notifications/read":
        data = {"all": True}
    elif path in ("/api/me/email/confirm", "/api/me/unsubscribe"):
        data = {"token": _mail_token(path, world.usernames["creator"])}
    return address, data


def _a_table_line(game_id: str | None, username: str) -> int:
    """The id of a line `username` (seated) wrote at the game's table."""
    from django.contrib.auth import get_user_model

    from games.store.models import Game
    from games.table import chat

    game = Game.objects.get(pk=game_id)
    return chat.post(game, user=get_user_model().objects.get(username=username), text="well played").pk


def _mail_token(path: str, username: str) -> str:
    """A valid token of the link a mail holds (an e-mail confirmation, or an unsubscription) for `username`."""
    from django.contrib.auth import get_user_model

    from games.people import mail_links
    from games.people.models import Account

    user = get_user_model().objects.get(username=username)
    if path.endswith("/unsubscribe"):
        return mail_links.unsubscribe_token(user.pk, kind="your_turn")
    Account.objects.update_or_create(user=user, defaults={"email_pending": "creator@example.org"})
    return mail_links.confirmation_token(user.pk, address="creator@example.org")


def snapshot(game_id: str | None) -> tuple[Any, ...]:
    """What a refused request must not change: how many users, games and events there are, and the game itself."""
    from django.contrib.auth import get_user_model

    from games.store.models import Event, Game

    counts = (get_user_model().objects.count(), Game.objects.count(), Event.objects.count())
    if game_id is None:
        return counts
    game = Game.objects.get(pk=game_id)
    seats = tuple(game.seats.order_by("number").values_list("number", "user_id", "bot", "stand_in"))
    return (*counts, game.seq, game.status, game.head_hash, seats)


def _cases() -> Iterator[Any]:
    for (method, path, game), expectations in MATRIX.items():
        for role, expect in zip(ROLES, expectations, strict=True):
            marks = [pytest.mark.xfail(strict=True, reason=expect.reason)] if isinstance(expect, Bug) else []
            expected = expect.expected if isinstance(expect, Bug) else expect
            yield pytest.param(method, path, game, role, expected, marks=marks, id=f"{method} {path} [{game}] {role}")


@pytest.mark.parametrize(("method", "path", "game", "role", "expected"), list(_cases()))
def test_authorization(world: World, method: str, path: str, game: str, role: str, expected: Any) -> None:
    game_id = game_for(world, game)
    address, data = request_for(world, method, path, role, game_id)
    before = snapshot(game_id)
    client = client_as(world, role)
    if method == "GET":
        response = client.get(address, data)
    else:
        response = getattr(client, method.lower())(address, data, format="json")
    if isinstance(expected, int):
        assert response.status_code == expected, (response.status_code, response.content[:300])
        if path.endswith("/audit"):
            assert response["Content-Type"].startswith("application/jsonl")
        elif path == "/api/games/export":
            assert response["Content-Type"] == "application/x-ndjson"
        elif expected == 204:
            assert response.content == b""
        else:
            body(response)  # JSON
        return
    status, code = expected
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert_error(response, status, code)
    assert snapshot(game_id) == before, "a refused request changed something"


# ---------------------------------------------------------------------------------------------------------
# Beyond the six roles: staff who also play.


def test_staff_with_a_seat_cannot_read_the_audit_of_their_game_in_play(world: World) -> None:
    creator, staff = client_as(world, "creator"), client_as(world, "staff")
    game = create_game(creator, "europe", 2)["id"]
    assert staff.post(url(game, "join"), {"seat": 1}, format="json").status_code == 200
    assert creator.post(url(game, "start"), {}, format="json").status_code == 200
    before = snapshot(game)
    response = staff.get(url(game, "audit"))
    assert response.status_code == 409, (response.status_code, response["Content-Type"])
    assert_error(response, 409, "not_finished")
    assert snapshot(game) == before
