"""How many games one person may sit in at once, so that nobody can fill the lobby, the workers or other people's
tables with games they will not play: at most TTR_MAX_LIVE_GAMES live games and TTR_MAX_DAILY_GAMES daily games
not finished (open or in play) in which they hold a seat; a seat they resigned, played by a bot now, does not count.

Checked wherever a person takes a seat: creating a game, joining one, joining the queue, the queue's tables (a
person at the cap waits there until a game ends) and a rematch; the refusal is 409 `too_many_games`. It is checked
in the transaction that seats. Creating and joining a game first lock the person's account row (`person_locked`), as
an erasure does: those requests of one person run one after the other, and a request that began before its account
was erased cannot seat it afterwards. The queue and rematches take no such lock: requests of one person racing
each other there may pass the cap by as many as are in flight, no more.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Count

from games.store.models import Game, Seat
from games.store.service_error import ServiceError


def person_locked(user: User) -> None:
    """Lock the person's account row (games/staff/privacy.py's erasure locks it first too) and refuse an account erased
    meanwhile: 401 `authentication_failed`, as its token now is."""
    if not User.objects.select_for_update(no_key=True).filter(pk=user.pk, is_active=True).exists():
        raise ServiceError("authentication_failed", "this account has been erased", status=401)


def cap(speed: str) -> int:
    return int(settings.TTR_MAX_DAILY_GAMES if speed == "daily" else settings.TTR_MAX_LIVE_GAMES)


def games_held(user_ids: Iterable[int], speed: str) -> dict[int, int]:
    """Per person (of those with any): the games of this speed not finished in which they hold a seat."""
    rows = (
        Seat.objects.filter(user_id__in=list(user_ids), stand_in__isnull=True, game__speed=speed)
        .exclude(game__status=Game.Status.FINISHED)
        .values("user_id")
        .annotate(games=Count("id"))
    )
    return {row["user_id"]: row["games"] for row in rows}


def full(user_ids: Iterable[int], speed: str) -> set[int]:
    """Those of the people who hold as many games of this speed as they may."""
    limit = cap(speed)
    return {user_id for user_id, games in games_held(user_ids, speed).items() if games >= limit}


def check_room(user: User, speed: str) -> None:
    """Refuse (409 `too_many_games`) a seat in one more game of this speed when the person is at the cap."""
    if full([user.pk], speed):
        raise ServiceError(
            "too_many_games", f"you already play {cap(speed)} {speed} games that are not finished, as many as one "
            "person may: finish or resign one first", status=409, limit=cap(speed),
        )
