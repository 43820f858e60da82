"""The server answers what its OpenAPI schema says, under schemathesis (issue #7).

Every operation of /api/schema/ is fuzzed through the live ASGI application on the test database, with every
check schemathesis has (server errors, status codes, content types, response schemas and headers, negative
data rejected, positive data accepted, unsupported methods, auth, ...) and no operation left out. The data
is real: an authenticated player and games in every state (open, active at the player's decision,
finished); a generated game id is swapped for one of those, and a generated `expected_seq` for the game's
current seq, often enough that moves really are made and refused by the rules.

Configuration rather than exceptions: for four operations a 400 is the contract's answer to a well-formed
request that the server's state refuses (docs/API.md: `bad_credentials`, `username_taken`, a common password,
`illegal_move` with its rule), so schemathesis is told that 400 is an acceptable answer to valid data there.
Nothing else is excused (finding 12 of #30): the rules between fields are in the schema (`oneOf`, `uniqueItems`),
every integer is bounded to 64 bits (so no valid query makes a URL too long), and a link's token that is not ours
is 404; a body where none is taken is 400 and a method an operation lacks 405. Each operation gets EXAMPLES
examples per phase and mode: the whole run takes about 45 s on PostgreSQL (1.5 minutes on a busy 2-core machine).
"""

from __future__ import annotations

import random
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
import schemathesis
from django.utils import timezone
from schemathesis.config import SchemathesisConfig
from schemathesis.config._checks import NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES

from tests.server.helpers import create_game, finish_by_services, register, url
from ttr_server.asgi import application

# The mark makes pytest-django set up the test database; the data itself is committed by the module fixture.
pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

EXAMPLES = 15
REFUSED_WHEN_VALID = {  # operation -> why a well-formed request may get 400 (docs/API.md)
    "/api/auth/register": "username_taken, or a common password",
    "/api/auth/token": "bad_credentials",
    "/api/auth/login": "bad_credentials",
    "/api/games/{game_id}/moves": "illegal_move, naming the rule",
}
CONFIG = SchemathesisConfig.from_dict(
    {
        "seed": 7,
        # A finished game's analysis runs inline when first asked: on a busy machine it may take more than 10 s.
        "request-timeout": 120,
        "generation": {"max-examples": EXAMPLES, "mode": "all"},
        "checks": {
            "enabled": True,
            # Too large a body or too long a URL is bad data refused, with its own status (413, 414).
            "negative_data_rejection": {"expected-statuses": [*NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES, "413", "414"]},
        },
        "phases": {"examples": {"enabled": True}, "coverage": {"enabled": True}, "fuzzing": {"enabled": True}},
        "operations": [
            *(
                {
                    "include-path": path,
                    "checks": {
                        "positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "403", "404", "409"]}
                    },
                }
                for path in REFUSED_WHEN_VALID
            ),
            {  # a generated name may be nobody's (404) or the asker's own (409 yourself)
                "include-path": "/api/users/{username}/mute",
                "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "401", "403", "404", "409"]}},
            },
            {  # a valid start may be already past by the time it is read (400 naming starts_at); 10 a day a person (429)
                "include-operation-id": "tournaments_create",
                "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "429"]}},
            },
            {  # joining: already joined, a Swiss that began, full or over (409); a seed's bytes are checked (400)
                "include-operation-id": "tournament_join",
                "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "404", "409"]}},
            },
            {  # DELETE /api/me: any generated password is a wrong one (bad_credentials): the account is never erased
                "include-operation-id": "me_destroy",
                "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "429"]}},
            },
        ],
    }
)
SEEN: dict[str, Counter[int]] = {}  # operation -> statuses answered, for the check that the run meant something
PLAYERS = ["ada", "ADA", "greedy-bot", "bob"]  # real accounts (in any case) for /api/users/{username}
CANONICAL_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@dataclass
class World:
    token: str
    games: list[str]  # open (mine), open (another's), active (my decision), finished
    tournaments: list[str]  # upcoming (ada joined), finished


@pytest.fixture(scope="module")
def world(django_db_setup: Any, django_db_blocker: Any) -> Iterator[World]:
    """Committed data that the application's threads see, made once for all operations and flushed after."""
    from django.conf import settings
    from django.core.cache import cache
    from django.core.management import call_command

    throttle, settings.AUTH_THROTTLE_RATE = settings.AUTH_THROTTLE_RATE, "100000/min"  # module fixtures run first
    # A finished game's analysis runs inline (eager tasks) when asked: on a budget that answers within the timeout.
    budget = settings.TTR_ANALYSIS_SAMPLES, settings.TTR_ANALYSIS_SINGLE
    settings.TTR_ANALYSIS_SAMPLES, settings.TTR_ANALYSIS_SINGLE = 2, 1
    cache.clear()  # earlier tests' auth attempts
    with django_db_blocker.unblock():
        ada, bob = register("ada"), register("bob")
        open_mine = create_game(ada, "europe", 3)["id"]
        open_other = create_game(bob, "usa", 2)["id"]
        active = create_game(ada, "europe", 2)["id"]
        ada.post(url(active, "start"), {"fill_with_bots": "random"}, format="json")
        finished = create_game(ada, "usa", 2)["id"]
        ada.post(url(finished, "start"), {"fill_with_bots": "random"}, format="json")
        _play_and_score(finished, random.Random(3))
        ranked = create_game(ada, "europe", 3, ranked=True)["id"]  # rated: the leaderboard and players' pages show it
        ada.post(url(ranked, "start"), {"fill_with_bots": "greedy"}, format="json")
        _play_and_score(ranked, random.Random(4))
        tournaments = [_upcoming_tournament(ada), _finished_tournament(bob)]
        yield World(ada.token, [open_mine, open_other, active, finished], tournaments)  # type: ignore[attr-defined]
        call_command("flush", interactive=False, verbosity=0)
    settings.AUTH_THROTTLE_RATE = throttle
    settings.TTR_ANALYSIS_SAMPLES, settings.TTR_ANALYSIS_SINGLE = budget


schema = schemathesis.openapi.from_asgi("/api/schema/?format=json", application, config=CONFIG)


@schema.parametrize()
def test_the_api_answers_what_its_schema_says(case: Any, world: World) -> None:
    _aim_at_real_games(case, world)
    # Logging out revokes the token it is called with: it gets a token of its own each time.
    token = _throwaway_token() if case.operation.path == "/api/auth/logout" else world.token
    response = case.call_and_validate(headers={"Authorization": f"Token {token}"})
    SEEN.setdefault(f"{case.method} {case.operation.path}", Counter())[response.status_code] += 1


def _play_and_score(game_id: str, rng: random.Random) -> None:
    """Play the game to its end and score it (and rate it when ranked), as the worker would."""
    from games.play import scoring

    finish_by_services(game_id, rng)
    scoring.game_score_and_rate(game_id)  # nothing to do when the worker scored it already


def _upcoming_tournament(client: Any) -> str:
    starts = (timezone.now() + timedelta(hours=1)).isoformat()
    fields = {"name": "Fuzzed", "format": "swiss", "map": "europe", "table_size": 2, "speed": "live", "rounds": 2,
              "starts_at": starts, "ranked": False, "bots_fill": True}
    tournament_id = str(client.post("/api/tournaments", fields, format="json").json()["id"])
    client.post(f"/api/tournaments/{tournament_id}/join", {}, format="json")
    return tournament_id


def _finished_tournament(client: Any) -> str:
    """A Swiss of one round that bob and carl played to its end (by services, as the other games here)."""
    from games.store.models import Game
    from games.tournaments import services
    from games.tournaments.models import Tournament

    starts = (timezone.now() + timedelta(minutes=1)).isoformat()
    fields = {"name": "Played", "format": "swiss", "map": "usa", "table_size": 2, "speed": "live", "rounds": 1,
              "starts_at": starts, "ranked": False, "bots_fill": True}
    tournament_id = str(client.post("/api/tournaments", fields, format="json").json()["id"])
    for player in (client, register("carl")):
        player.post(f"/api/tournaments/{tournament_id}/join", {}, format="json")
    Tournament.objects.filter(pk=tournament_id).update(starts_at=timezone.now())
    services.tick()
    for game_id in Game.objects.filter(tournament=tournament_id).values_list("pk", flat=True):
        _play_and_score(str(game_id), random.Random(5))
    services.tick()
    assert Tournament.objects.get(pk=tournament_id).status == Tournament.Status.FINISHED
    return tournament_id


def _throwaway_token() -> str:
    from django.contrib.auth import get_user_model

    from games.people.accounts import token_for

    user, _ = get_user_model().objects.get_or_create(username="leaver")
    return str(token_for(user).key)


def _aim_at_real_games(case: Any, world: World) -> None:
    """Point a valid request at the real data: a generated game id becomes a real game's, a generated seq the
    game's current one, and sometimes a generated move one of the player's legal moves (valid data stays valid)."""
    key = zlib.crc32(repr((case.path_parameters, case.query, case.body)).encode())
    if isinstance((case.path_parameters or {}).get("username"), str) and key % 3:
        case.path_parameters["username"] = PLAYERS[key % len(PLAYERS)]
    tournament_id = (case.path_parameters or {}).get("tournament_id")
    if isinstance(tournament_id, str) and CANONICAL_UUID.match(tournament_id) and key % 5:
        case.path_parameters["tournament_id"] = world.tournaments[key % len(world.tournaments)]
    game_id = (case.path_parameters or {}).get("game_id")
    if isinstance(game_id, str) and CANONICAL_UUID.match(game_id) and key % 5:
        game_id = case.path_parameters["game_id"] = world.games[key % len(world.games)]
    body = case.body
    if game_id not in world.games or not isinstance(body, dict) or not isinstance(body.get("expected_seq"), int):
        return
    if body["expected_seq"] < 0 or not (key >> 8) % 3:
        return
    from django.contrib.auth import get_user_model

    from games.api.typed_json import to_json
    from games.play import selectors

    ada = get_user_model().objects.get(username="ada")
    legal = to_json(selectors.game_legal_moves(selectors.game_row(game_id), user=ada))
    body["expected_seq"] = legal["seq"]
    if legal["moves"] and (key >> 12) % 2 and case.meta is not None and case.meta.generation.mode.is_positive:
        body["move"] = legal["moves"][(key >> 16) % len(legal["moves"])]


def test_the_run_reached_every_operation_and_real_game_play() -> None:
    """Runs after the fuzzing above: every operation answered, and the data reached past the 404s and 409s."""
    if not SEEN:
        pytest.skip("the schemathesis run was deselected")
    operations = {f"{op.method.upper()} {op.path}" for op in schema.get_all_operations() if hasattr(op, "method")}
    assert operations <= set(SEEN), operations - set(SEEN)
    moves = SEEN["POST /api/games/{game_id}/moves"]
    assert moves[201] and moves[400] and moves[409], moves  # moves made, moves refused by rule, stale seqs
    for path in ("state", "legal-moves", "events", "replay", "verify", "score", "audit"):
        assert SEEN[f"GET /api/games/{{game_id}}/{path}"][200], path
    assert SEEN["POST /api/auth/register"][201] and SEEN["POST /api/games"][201]
    assert SEEN["GET /api/leaderboard"][200] and SEEN["GET /api/users/{username}"][200]
    for path in ("", "/tables", "/verify", "/audit"):
        assert SEEN[f"GET /api/tournaments/{{tournament_id}}{path}"][200], path
    total = sum(sum(counter.values()) for counter in SEEN.values())
    print(f"schemathesis: {total} requests; moves answered {dict(moves)}")
