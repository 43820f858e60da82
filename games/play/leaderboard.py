"""Reading ratings (docs/API.md, Ratings): a map's leaderboard and a player's page, from the rows that
games/play/ratings.py writes when a ranked game is scored."""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib.auth.models import User
from django.db.models import F, QuerySet

from games.play import selectors, shapes
from games.play.models import Rating, RatingChange
from games.play.ratings import Standing, provisional, shown
from games.play.shapes import LeaderboardEntry, MapRating, PlayerPage, fields_of
from games.review.shapes import MapAnalysis
from games.store.models import MAP_CHOICES, BotAccount, Game

HISTORY = 50  # rating changes a player's page shows, newest first
RECENT_GAMES = 10


def bot_level(user: User) -> str | None:
    """The bot level this account is rated for, or None for a human."""
    account: BotAccount | None = getattr(user, "bot_account", None)  # a human has none: the lookup raises
    return account.level if account is not None else None


def leaderboard(map_name: str) -> QuerySet[Rating]:
    """The map's ratings, best shown rating first (then more games, then the older account)."""
    return (
        Rating.objects.filter(map=map_name)
        .select_related("user__bot_account")
        .annotate(shown=F("mu") - 3 * F("sigma"))
        .order_by("-shown", "-games", "user_id")
    )


def rating_values(rating: Rating | Standing) -> MapRating:
    return MapRating(
        rating=shown(rating.mu, rating.sigma), mu=rating.mu, sigma=rating.sigma, provisional=provisional(rating.games),
        games=rating.games, wins=rating.wins,
    )


def leaderboard_entry(rating: Rating) -> LeaderboardEntry:
    return LeaderboardEntry(username=rating.user.username, bot=bot_level(rating.user), **fields_of(rating_values(rating)))


def player_profile(user: User, *, analysis: Mapping[str, MapAnalysis]) -> PlayerPage:
    """A player's (or bot account's) ratings on every map (the defaults where unrated), newest changes, last games,
    and their `analysis` (games/review/analyses.py)."""
    level = bot_level(user)
    rated_maps = {r.map: r for r in Rating.objects.filter(user=user)}
    changes = RatingChange.objects.filter(user=user).order_by("-id")[:HISTORY]
    games = Game.objects.filter(seats__bot=level).distinct() if level else Game.objects.filter(seats__user=user)
    recent = (  # a public page names no private game
        selectors.listed(games).select_related("created_by").prefetch_related("seats__user").order_by("-created_at")
    )[:RECENT_GAMES]
    return PlayerPage(
        username=user.username,
        bot=level,
        ratings={m: rating_values(rated_maps.get(m) or Standing()) for m, _ in MAP_CHOICES},
        history=tuple(history_entry(change) for change in changes),
        recent_games=tuple(selectors.game_summary(game) for game in recent),
        analysis=analysis,
    )


def history_entry(change: RatingChange) -> shapes.RatingChange:
    return shapes.RatingChange(
        game=change.game_id,
        map=change.map,
        place=change.place,
        before=shown(change.mu_before, change.sigma_before),
        after=shown(change.mu_after, change.sigma_after),
        at=change.at,
        mu_before=change.mu_before,
        sigma_before=change.sigma_before,
        mu_after=change.mu_after,
        sigma_after=change.sigma_after,
    )
