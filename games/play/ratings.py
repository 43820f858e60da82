"""Ratings of ranked games: openskill's Plackett-Luce model with its defaults, one rating per player and map.

`rate_game(game, places=..., at=...)` runs inside the scoring transaction, right after the `game_scored` append, for a
ranked game only. `places` maps every seat to its place (1 = winner, ties share a place; the caller has put
players who resigned last). Every seat is rated: a human's seat rates that human (also after they resigned and a
bot finished for them), a bot's seat rates the bot account of its level (`BotAccount`, e.g. `greedy-bot`).

The match is one team of one per seat, in seat order, each with its account's rating before the game. An account
that holds several seats (three greedy bots) enters once per seat with the same prior; its one change for the game
is the mean of its seats' results (mu and sigma each), its `place` the best of its seats', and it counts one game,
and one win if any of its seats won. A player is provisional for their first `PROVISIONAL_GAMES` games on a map;
the rating shown is the conservative `mu - 3 sigma`.

Two games that end at once with a player in common both count: the game's Rating rows are created if missing
(ignoring conflicts), then locked in id order (no deadlock), read, updated, and the changes inserted, all in the
scoring transaction. On SQLite a write transaction takes the database's lock as it begins, which serialises them.
So the RatingChange ids are an order in which the games were rated, and `recompute_ratings` replays that order
from the stored matches (`seat_places`) with the same arithmetic, reproducing every value bit for bit.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from openskill.models import PlackettLuce, PlackettLuceRating

from games.audit.ratings import Entry, Prior  # one seat of a rated game; (mu, sigma)
from games.play.models import RATING_MU, RATING_SIGMA, Rating, RatingChange
from games.store.models import BotAccount, Game, Seat

MODEL = PlackettLuce(mu=RATING_MU, sigma=RATING_SIGMA)
PROVISIONAL_GAMES = 5  # rated games on a map before a player's rating stops being provisional


def shown(mu: float, sigma: float) -> float:
    """The rating shown: the conservative estimate."""
    return mu - 3 * sigma


def provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def rated(priors: dict[int, Prior], entries: Iterable[Entry]) -> dict[int, Prior]:
    """Each account's (mu, sigma) after one game, from its (mu, sigma) before: the one computation both
    `rate_game` and `recompute_ratings` use, so that their floats agree to the last bit."""
    ordered = sorted(entries, key=lambda entry: entry.seat)
    # A rating object per seat, even for one account's seats: openskill mixes up teams that share an object.
    teams = [[MODEL.rating(mu=priors[e.user_id][0], sigma=priors[e.user_id][1])] for e in ordered]
    results = MODEL.rate(teams, ranks=[e.place for e in ordered])
    by_account: dict[int, list[PlackettLuceRating]] = {}
    for entry, (result,) in zip(ordered, results, strict=True):
        by_account.setdefault(entry.user_id, []).append(result)
    # The mean of the results (for one seat: exactly openskill's result); in seat order, left to right.
    return {
        user: (sum(r.mu for r in rs) / len(rs), sum(r.sigma for r in rs) / len(rs)) for user, rs in by_account.items()
    }


def bot_username(level: str) -> str:
    return f"{level}-bot"


def bot_account(level: str) -> BotAccount:
    """The account a bot level is rated as: made by migration 0005, and again here if it is missing."""
    account = BotAccount.objects.select_related("user").filter(level=level).first()
    if account is not None:
        return account
    try:
        with transaction.atomic():
            user = get_user_model()(username=bot_username(level))
            user.set_unusable_password()
            user.save()
            return BotAccount.objects.create(level=level, user=user)
    except IntegrityError:  # made meanwhile by another scoring transaction
        return BotAccount.objects.select_related("user").get(level=level)


def game_entries(game: Game, *, places: dict[int, int]) -> list[Entry]:
    """Every seat of the game with the account it rates and its place."""
    seats = list(Seat.objects.filter(game=game).order_by("number"))
    if sorted(places) != [seat.number for seat in seats]:
        raise ValueError(f"places name seats {sorted(places)}, the game has {[s.number for s in seats]}")
    bots = {level: bot_account(level).user_id for level in sorted({s.bot for s in seats if s.user_id is None and s.bot})}
    entries = []
    for seat in seats:
        user_id = seat.user_id if seat.user_id is not None else bots.get(seat.bot or "")
        if user_id is None:
            raise ValueError(f"seat {seat.number} of {game.pk} has neither a player nor a bot")
        entries.append(Entry(seat.number, user_id, places[seat.number]))
    return entries


@transaction.atomic
def rate_game(game: Game, *, places: dict[int, int], at: datetime) -> None:
    """Rate the ranked game once (asked again, it does nothing): update its accounts' Ratings and record a
    RatingChange for each."""
    assert game.ranked, "only ranked games are rated"
    if RatingChange.objects.filter(game=game).exists():
        return
    entries = game_entries(game, places=places)
    ratings = _locked_ratings(game.map, sorted({e.user_id for e in entries}))
    after = rated({user: (r.mu, r.sigma) for user, r in ratings.items()}, entries)
    changes = []
    for user, rating in ratings.items():
        mine = [e for e in entries if e.user_id == user]
        best = min(e.place for e in mine)
        changes.append(_change(game, rating, after[user], mine, at))
        rating.mu, rating.sigma = after[user]
        rating.games += 1
        rating.wins += int(best == 1)
        rating.save(update_fields=["mu", "sigma", "games", "wins"])
    RatingChange.objects.bulk_create(sorted(changes, key=lambda c: min(int(s) for s in c.seat_places)))


def _locked_ratings(map_name: str, user_ids: list[int]) -> dict[int, Rating]:
    """The accounts' Rating rows on this map, created when missing, locked for this transaction (in id order)."""
    existing = set(Rating.objects.filter(map=map_name, user_id__in=user_ids).values_list("user_id", flat=True))
    missing = [Rating(user_id=user, map=map_name) for user in user_ids if user not in existing]
    if missing:  # in user order: two transactions inserting the same accounts wait for each other in one order
        Rating.objects.bulk_create(missing, ignore_conflicts=True)
    rows = Rating.objects.select_for_update().filter(map=map_name, user_id__in=user_ids).order_by("id")
    return {row.user_id: row for row in rows}


def _change(game: Game, before: Rating, after: Prior, entries: list[Entry], at: datetime) -> RatingChange:
    return RatingChange(
        game=game,
        user_id=before.user_id,
        map=game.map,
        place=min(e.place for e in entries),
        seat_places={str(e.seat): e.place for e in entries},
        mu_before=before.mu,
        sigma_before=before.sigma,
        mu_after=after[0],
        sigma_after=after[1],
        at=at,
    )


@dataclass
class Standing:
    mu: float = RATING_MU
    sigma: float = RATING_SIGMA
    games: int = 0
    wins: int = 0


@dataclass
class Recomputed:
    """What replaying every rated game from the start gave, and where the stored values differ from it."""

    games: int = 0  # rated games replayed
    standings: dict[tuple[int, str], Standing] = field(default_factory=dict)  # (user id, map) -> rebuilt rating
    changes: list[RatingChange] = field(default_factory=list)  # stored changes whose values differ (now corrected)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def recompute_ratings(*, write: bool = False) -> Recomputed:
    """Replay every rated game in scoring order from the default ratings and compare with what is stored; with
    `write`, make the stored Ratings (and any differing RatingChange) what the replay gave."""
    with transaction.atomic():
        if write and connection.vendor == "postgresql":  # no game is rated meanwhile; reading the board still works
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {Rating._meta.db_table} IN EXCLUSIVE MODE")
        result = Recomputed()
        names = dict(get_user_model().objects.filter(rating_changes__isnull=False).values_list("id", "username"))
        names.update(get_user_model().objects.filter(ratings__isnull=False).values_list("id", "username"))
        for rows in _by_game(RatingChange.objects.order_by("id")):
            _replay(rows, result, names)
            result.games += 1
        stored = {(r.user_id, r.map): r for r in Rating.objects.all()}
        _compare(stored, result, names)
        if write and not result.ok:
            _write(stored, result)
    return result


def _by_game(rows: Iterable[RatingChange]) -> list[list[RatingChange]]:
    """The changes grouped by game, the games in the order of their first change (their scoring order)."""
    games: dict[uuid.UUID, list[RatingChange]] = {}
    for row in rows:
        games.setdefault(row.game_id, []).append(row)
    return list(games.values())


def _replay(rows: list[RatingChange], result: Recomputed, names: dict[int, str]) -> None:
    map_name = rows[0].map
    standings = [result.standings.setdefault((row.user_id, map_name), Standing()) for row in rows]
    priors = {row.user_id: (s.mu, s.sigma) for row, s in zip(rows, standings, strict=True)}
    entries = [Entry(int(seat), row.user_id, place) for row in rows for seat, place in row.seat_places.items()]
    after = rated(priors, entries)
    for row, standing in zip(rows, standings, strict=True):
        expected = (*priors[row.user_id], *after[row.user_id])
        stored = (row.mu_before, row.sigma_before, row.mu_after, row.sigma_after)
        if stored != expected:
            result.problems.append(
                f"change {row.pk} ({names.get(row.user_id)} in game {row.game_id}): stored before/after {stored}, "
                f"replayed {expected}"
            )
            row.mu_before, row.sigma_before, row.mu_after, row.sigma_after = expected
            result.changes.append(row)
        standing.mu, standing.sigma = after[row.user_id]
        standing.games += 1
        standing.wins += int(row.place == 1)


def _compare(stored: dict[tuple[int, str], Rating], result: Recomputed, names: dict[int, str]) -> None:
    for key in sorted(set(stored) | set(result.standings)):
        row, standing = stored.get(key), result.standings.get(key, Standing())
        values = (row.mu, row.sigma, row.games, row.wins) if row else None
        expected = (standing.mu, standing.sigma, standing.games, standing.wins)
        if values != expected:
            result.problems.append(
                f"rating of {names.get(key[0])} on {key[1]}: stored (mu, sigma, games, wins) {values}, replayed {expected}"
            )


def _write(stored: dict[tuple[int, str], Rating], result: Recomputed) -> None:
    RatingChange.objects.bulk_update(result.changes, ["mu_before", "sigma_before", "mu_after", "sigma_after"])
    Rating.objects.filter(pk__in=[r.pk for key, r in stored.items() if key not in result.standings]).delete()
    for (user, map_name), standing in result.standings.items():
        Rating.objects.update_or_create(
            user_id=user,
            map=map_name,
            defaults={"mu": standing.mu, "sigma": standing.sigma, "games": standing.games, "wins": standing.wins},
        )
