"""Ranked games are rated per map with openskill's Plackett-Luce model (docs/API.md, Ratings; games.play.ratings).

Finished ranked games are built as rows (a game and its seats) and rated with the places the scoring service
would pass; the service itself is exercised once at the end, through a game played to its end."""

from __future__ import annotations

import importlib
import random
import threading
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from games.play import ratings
from games.play.models import RATING_MU, RATING_SIGMA, Rating, RatingChange
from games.store.models import BotAccount, Game, Seat
from tests.server.helpers import assert_error, body, finish_by_services

T0 = timezone.now()
SUMMARY_KEYS = {"id", "map", "players", "ranked", "status", "seats", "created_by", "seq"}


def player(name: str) -> Any:
    return get_user_model().objects.create_user(username=name)


def finished_game(map_name: str, seats: list[Any], ranked: bool = True) -> Game:
    """A finished game whose seats are held by these players (users) or bots (level names), in seat order."""
    creator = next(s for s in seats if not isinstance(s, str))
    game = Game.objects.create(
        map=map_name, players=len(seats), ranked=ranked, status=Game.Status.FINISHED, created_by=creator
    )
    for number, holder in enumerate(seats):
        if isinstance(holder, str):
            Seat.objects.create(game=game, number=number, bot=holder)
        else:
            Seat.objects.create(game=game, number=number, user=holder)
    return game


def rate(game: Game, *places: int, at: Any = None) -> None:
    ratings.rate_game(game, places=dict(enumerate(places)), at=at or timezone.now())


def rating_of(user: Any, map_name: str = "europe") -> Rating:
    return Rating.objects.get(user=user, map=map_name)


def change_of(user: Any, game: Game) -> RatingChange:
    return RatingChange.objects.get(user=user, game=game)


def shown(rating: Rating) -> float:
    return rating.mu - 3 * rating.sigma


def bot_user(level: str) -> Any:
    return ratings.bot_account(level).user


# --- rating a game -----------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_winner_gains_and_a_loser_loses() -> None:
    ada, bob = player("ada"), player("bob")
    game = finished_game("europe", [ada, bob])
    rate(game, 2, 1)
    assert rating_of(bob).mu > RATING_MU > rating_of(ada).mu
    assert rating_of(bob).sigma < RATING_SIGMA and rating_of(ada).sigma < RATING_SIGMA
    assert (rating_of(bob).games, rating_of(bob).wins) == (1, 1)
    assert (rating_of(ada).games, rating_of(ada).wins) == (1, 0)
    change = change_of(bob, game)
    assert (change.place, change.map, change.seat_places) == (1, "europe", {"1": 1})
    assert (change.mu_before, change.sigma_before) == (RATING_MU, RATING_SIGMA)
    assert (change.mu_after, change.sigma_after) == (rating_of(bob).mu, rating_of(bob).sigma)
    assert not Rating.objects.filter(map="usa").exists()


@pytest.mark.django_db
def test_players_who_tie_share_a_place_and_move_alike() -> None:
    ada, bob, cyd = player("ada"), player("bob"), player("cyd")
    rate(finished_game("usa", [ada, bob, cyd]), 1, 1, 3)
    a, b, c = (rating_of(p, "usa") for p in (ada, bob, cyd))
    assert (a.mu, a.sigma) == (b.mu, b.sigma)
    assert a.mu > RATING_MU > c.mu
    assert a.wins == b.wins == 1 and c.wins == 0


@pytest.mark.django_db
def test_a_player_who_resigned_is_rated_last_and_loses_while_their_stand_in_is_not_rated() -> None:
    ada, bob = player("ada"), player("bob")
    game = finished_game("europe", [ada, bob])
    Seat.objects.filter(game=game, number=0).update(stand_in="greedy")  # ada resigned; greedy finished for her
    rate(game, 2, 1)  # the scoring service puts a resigned player last, whatever the board says
    assert rating_of(ada).mu < RATING_MU < rating_of(bob).mu
    assert not Rating.objects.filter(user=bot_user("greedy")).exists()


@pytest.mark.django_db
def test_three_greedy_bots_make_one_change_for_the_greedy_bot_account() -> None:
    ada = player("ada")
    game = finished_game("europe", [ada, "greedy", "greedy", "greedy"])
    rate(game, 3, 1, 2, 4)
    greedy = bot_user("greedy")
    assert greedy.username == "greedy-bot" and not greedy.has_usable_password()
    change = change_of(greedy, game)
    assert (change.place, change.seat_places) == (1, {"1": 1, "2": 2, "3": 4})
    # Each seat enters the match with the account's prior; the account takes the mean of its seats' results.
    priors = [[ratings.MODEL.rating(mu=RATING_MU, sigma=RATING_SIGMA)] for _ in range(4)]
    results = ratings.MODEL.rate(priors, ranks=[3, 1, 2, 4])
    seats = [team[0] for team in results[1:]]
    assert change.mu_after == sum(r.mu for r in seats) / 3
    assert change.sigma_after == sum(r.sigma for r in seats) / 3
    assert (rating_of(greedy).games, rating_of(greedy).wins) == (1, 1)
    assert rating_of(ada).mu == results[0][0].mu
    assert RatingChange.objects.filter(game=game).count() == 2


@pytest.mark.django_db
def test_a_game_is_rated_once_however_often_it_is_asked() -> None:
    ada, bob = player("ada"), player("bob")
    game = finished_game("europe", [ada, bob])
    rate(game, 1, 2)
    first = rating_of(ada).mu
    rate(game, 1, 2)
    assert rating_of(ada).mu == first and rating_of(ada).games == 1
    assert RatingChange.objects.filter(game=game).count() == 2


@pytest.mark.django_db
def test_an_unranked_game_is_never_rated() -> None:
    ada, bob = player("ada"), player("bob")
    with pytest.raises(AssertionError):
        rate(finished_game("europe", [ada, bob], ranked=False), 1, 2)
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


@pytest.mark.django_db
def test_places_must_name_every_seat() -> None:
    ada, bob = player("ada"), player("bob")
    with pytest.raises(ValueError):
        ratings.rate_game(finished_game("europe", [ada, bob]), places={0: 1}, at=timezone.now())


@pytest.mark.django_db
def test_a_player_is_provisional_for_their_first_five_games_on_a_map() -> None:
    ada, bob = player("ada"), player("bob")
    for played in range(1, 6):
        rate(finished_game("europe", [ada, bob]), 1, 2)
        assert ratings.provisional(rating_of(ada).games) is (played < 5)
    rate(finished_game("usa", [ada, bob]), 1, 2)
    assert ratings.provisional(rating_of(ada, "usa").games)  # each map on its own


# --- concurrency -----------------------------------------------------------------------------------------------


@pytest.fixture
def postgres_only(on_postgres: bool) -> None:
    if not on_postgres:
        pytest.skip("needs PostgreSQL (run under ./scripts/test-env): SQLite serialises writers with one lock")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("rated_before", [False, True], ids=["new rating", "existing rating"])
def test_two_games_rated_at_once_with_a_common_player_both_count(postgres_only: None, rated_before: bool) -> None:
    ada, bob, cyd = player("ada"), player("bob"), player("cyd")
    if rated_before:
        rate(finished_game("europe", [ada, bob]), 1, 2)
    first, second = finished_game("europe", [ada, bob]), finished_game("europe", [ada, cyd])
    first_rated, release = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def rate_first() -> None:  # rates, then holds its transaction open until told to commit
        try:
            with transaction.atomic():
                rate(first, 1, 2)
                first_rated.set()
                assert release.wait(30)
        except BaseException as error:
            failures.append(error)
        finally:
            first_rated.set()
            connection.close()

    def rate_second() -> None:
        try:
            rate(second, 2, 1)
        except BaseException as error:
            failures.append(error)
        finally:
            connection.close()

    one, two = threading.Thread(target=rate_first), threading.Thread(target=rate_second)
    one.start()
    assert first_rated.wait(30)
    two.start()
    two.join(timeout=1)
    waited = two.is_alive()  # the second waits for the first's lock on ada's rating
    release.set()
    one.join(30)
    two.join(30)
    assert not failures, failures
    assert waited
    games = 3 if rated_before else 2
    assert rating_of(ada).games == games
    assert change_of(ada, second).mu_before == change_of(ada, first).mu_after
    assert change_of(ada, second).sigma_before == change_of(ada, first).sigma_after
    assert change_of(ada, second).id > change_of(ada, first).id
    assert (rating_of(ada).mu, rating_of(ada).sigma) == (change_of(ada, second).mu_after, change_of(ada, second).sigma_after)
    assert ratings.recompute_ratings().ok


# --- recomputing -------------------------------------------------------------------------------------------------


def a_season() -> list[Any]:
    """Ten ranked games across both maps among four players and the bots; returns the players."""
    rng = random.Random(11)
    people = [player(name) for name in ("ada", "bob", "cyd", "dee")]
    for number in range(10):
        holders: list[Any] = rng.sample(people, rng.randint(1, 3)) + rng.choices(["random", "greedy", "strong"], k=2)
        rng.shuffle(holders)
        places = [rng.randint(1, len(holders)) for _ in holders]
        game = finished_game("europe" if number % 3 else "usa", holders)
        rate(game, *places, at=T0 + timedelta(minutes=number))
    return people


@pytest.mark.django_db
def test_recomputing_the_ratings_from_the_history_reproduces_every_stored_value_exactly() -> None:
    a_season()
    stored = {(r.user_id, r.map): (r.mu, r.sigma, r.games, r.wins) for r in Rating.objects.all()}
    result = ratings.recompute_ratings()
    assert result.ok, result.problems
    assert result.games == 10
    rebuilt = {key: (s.mu, s.sigma, s.games, s.wins) for key, s in result.standings.items()}
    assert rebuilt == stored  # float equality: the same computation in the same order


@pytest.mark.django_db
def test_recomputing_finds_a_tampered_rating_and_the_command_puts_it_right() -> None:
    ada = a_season()[0]
    honest = rating_of(ada).mu
    Rating.objects.filter(pk=rating_of(ada).pk).update(mu=honest + 1)
    result = ratings.recompute_ratings()
    assert not result.ok
    assert any("rating of ada on europe" in problem for problem in result.problems), result.problems
    with pytest.raises(CommandError):
        call_command("recompute_ratings", "--check", stdout=_Sink())
    assert rating_of(ada).mu == honest + 1  # --check writes nothing
    out = _Sink()
    call_command("recompute_ratings", stdout=out)
    assert "ratings rewritten" in out.text
    assert rating_of(ada).mu == honest
    out = _Sink()
    call_command("recompute_ratings", "--check", stdout=out)
    assert "every stored rating matched its history" in out.text


@pytest.mark.django_db
def test_recomputing_finds_a_tampered_change_and_rewrites_it() -> None:
    a_season()
    change = RatingChange.objects.order_by("id")[3]
    RatingChange.objects.filter(pk=change.pk).update(mu_after=change.mu_after - 1)
    call_command("recompute_ratings", stdout=(out := _Sink()))
    assert f"change {change.pk}" in out.text and "1 rating changes rewritten" in out.text
    assert RatingChange.objects.get(pk=change.pk).mu_after == change.mu_after
    assert ratings.recompute_ratings().ok


class _Sink:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


# --- the scoring service ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_ranked_game_played_to_its_end_is_scored_and_rated_once() -> None:
    from games.play import scoring, services

    ada = player("ada")
    game = services.game_create(ada, map_name="usa", players=3, ranked=True)
    services.game_start(game.pk, user=ada, fill_with_bots="random")
    finish_by_services(str(game.pk), random.Random(5))
    scoring.game_score_and_rate(game.pk)
    scoring.game_score_and_rate(game.pk)
    changes = {c.user.username: c for c in RatingChange.objects.filter(game=game).select_related("user")}
    assert set(changes) == {"ada", "random-bot"}
    assert changes["random-bot"].seat_places.keys() == {"1", "2"}
    assert rating_of(ada, "usa").games == 1 and rating_of(bot_user("random"), "usa").games == 1


# --- the API -----------------------------------------------------------------------------------------------------

ENTRY_KEYS = {"username", "bot", "rating", "mu", "sigma", "provisional", "games", "wins"}


@pytest.mark.django_db
def test_the_leaderboard_lists_a_maps_ratings_best_first_with_bot_accounts() -> None:
    people = a_season()
    response = APIClient().get("/api/leaderboard", {"map": "europe"})
    assert response.status_code == 200
    board = body(response)
    assert board["count"] == Rating.objects.filter(map="europe").count() and board["previous"] is None
    results = board["results"]
    assert all(set(entry) == ENTRY_KEYS for entry in results)
    assert [e["rating"] for e in results] == sorted((e["rating"] for e in results), reverse=True)
    for entry in results:
        assert entry["rating"] == entry["mu"] - 3 * entry["sigma"]
        assert entry["provisional"] is (entry["games"] < 5)
    bots = {e["username"]: e["bot"] for e in results if e["bot"]}
    assert bots and all(name == f"{level}-bot" for name, level in bots.items())
    assert {e["username"] for e in results if not e["bot"]} <= {p.username for p in people}


@pytest.mark.django_db
def test_the_leaderboard_is_paginated_like_the_games_list() -> None:
    a_season()
    total = Rating.objects.filter(map="europe").count()
    client = APIClient()
    first = body(client.get("/api/leaderboard", {"map": "europe", "page_size": 2}))
    assert first["count"] == total and len(first["results"]) == 2 and first["next"]
    second = body(client.get(first["next"]))
    assert second["previous"] and len(second["results"]) == min(2, total - 2)
    assert {e["username"] for e in first["results"]}.isdisjoint(e["username"] for e in second["results"])
    assert_error(client.get("/api/leaderboard", {"map": "europe", "page": 99}), 404, "not_found")


@pytest.mark.django_db
@pytest.mark.parametrize("query", [{}, {"map": "mars"}, {"map": "Europe"}, {"map": "europe", "page_size": "x"}])
def test_the_leaderboard_needs_a_known_map(query: dict[str, str]) -> None:
    error = assert_error(APIClient().get("/api/leaderboard", query), 400, "invalid")
    assert error["field"] == ("page_size" if "page_size" in query else "map")


@pytest.mark.django_db
def test_a_players_page_shows_ratings_by_map_history_newest_first_and_recent_games() -> None:
    ada, bob = player("ada"), player("bob")
    first, second = finished_game("europe", [ada, bob]), finished_game("europe", [bob, ada])
    rate(first, 1, 2, at=T0)
    rate(second, 1, 2, at=T0 + timedelta(minutes=1))
    page = body(APIClient().get("/api/users/ada"))
    assert set(page) == {"username", "bot", "ratings", "history", "recent_games", "analysis"}
    assert page["username"] == "ada" and page["bot"] is None
    europe, usa = page["ratings"]["europe"], page["ratings"]["usa"]
    assert set(europe) == ENTRY_KEYS - {"username", "bot"}
    assert (europe["games"], europe["wins"], europe["provisional"]) == (2, 1, True)
    assert europe["rating"] == shown(rating_of(ada))
    assert (usa["games"], usa["mu"], usa["sigma"]) == (0, RATING_MU, RATING_SIGMA)
    assert [h["game"] for h in page["history"]] == [str(second.pk), str(first.pk)]
    newest = page["history"][0]
    assert {"game", "map", "place", "before", "after", "at"} <= set(newest)
    assert (newest["map"], newest["place"]) == ("europe", 2)
    assert newest["after"] == europe["rating"] and newest["before"] == page["history"][1]["after"]
    assert newest["after"] < newest["before"]
    assert [g["id"] for g in page["recent_games"]] == [str(second.pk), str(first.pk)]
    assert all(set(g) >= SUMMARY_KEYS for g in page["recent_games"])


@pytest.mark.django_db
def test_a_bot_accounts_page_names_its_level() -> None:
    ada = player("ada")
    game = finished_game("usa", [ada, "greedy", "greedy"])
    rate(game, 2, 1, 3)
    page = body(APIClient().get("/api/users/greedy-bot"))
    assert page["bot"] == "greedy" and page["ratings"]["usa"]["games"] == 1
    assert [h["place"] for h in page["history"]] == [1]
    assert [g["id"] for g in page["recent_games"]] == [str(game.pk)]


@pytest.mark.django_db
def test_a_player_is_found_in_any_case_and_unicode_form() -> None:
    player("Ada")
    client = APIClient()
    for spelling in ("ada", "ADA", "\uff21\uff44\uff41"):  # the last: full-width Ada
        response = client.get(f"/api/users/{spelling}")
        assert response.status_code == 200, spelling
        assert body(response)["username"] == "Ada"


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["nobody", "x" * 200, "a%00b"])
def test_an_unknown_player_is_404(name: str) -> None:
    assert_error(APIClient().get(f"/api/users/{name}"), 404, "not_found")


@pytest.mark.django_db
def test_the_migration_makes_a_bot_account_per_level_whose_name_is_then_taken() -> None:
    from django.apps import apps

    migration = importlib.import_module("games.migrations.0005_ratings")
    users = list(BotAccount.objects.values_list("user_id", flat=True))  # (gone if a transactional test flushed them)
    BotAccount.objects.all().delete()
    get_user_model().objects.filter(pk__in=users).delete()
    migration.create_bot_accounts(apps, None)
    for level in ("random", "greedy", "strong"):
        account = BotAccount.objects.select_related("user").get(level=level)
        assert account.user.username == f"{level}-bot" and not account.user.has_usable_password()
        assert body(APIClient().get(f"/api/users/{level}-bot"))["bot"] == level
    response = APIClient().post(
        "/api/auth/register", {"username": "Greedy-Bot", "password": "correct-horse-9"}, format="json"
    )
    assert_error(response, 400, "username_taken")
    login = APIClient().post("/api/auth/token", {"username": "greedy-bot", "password": ""}, format="json")
    assert login.status_code == 400


@pytest.mark.django_db
def test_the_schema_lists_the_ratings_operations() -> None:
    import json

    schema = json.loads(APIClient().get("/api/schema/", {"format": "json"}).content)
    leaderboard, user = schema["paths"]["/api/leaderboard"]["get"], schema["paths"]["/api/users/{username}"]["get"]
    assert {"200", "400", "404"} <= set(leaderboard["responses"])
    assert {"200", "404"} <= set(user["responses"])
    assert any(p["name"] == "map" and p["required"] for p in leaderboard["parameters"])
