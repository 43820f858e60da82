"""Who is looking at a game, and what of its log they may see (docs/RULES.md X-SEC-1): their seat (a player), or none
(a spectator); everything once the game is over. The one projection of "the events after N, as this viewer may
see them" (`projected`) serves POST /moves, /events, and the socket's pushes and resyncs alike. Services and
selectors both use this module; it imports neither."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from games.store import event_log
from games.store.models import Event, Game


def seat_of(game: Game, user: AbstractBaseUser | AnonymousUser | None) -> int | None:
    """The user's seat in the game, or None (uses the game's prefetched seats when it has them)."""
    if user is None or not user.is_authenticated:
        return None
    return next((seat.number for seat in game.seat_list if seat.user_id == user.pk), None)


def projected(rows: Iterable[Event], *, seat: int | None, finished: bool) -> list[dict[str, Any]]:
    """The rows as API events (docs/API.md's shape: seq, type, at, seat, data), as the viewer at `seat` (None: a
    spectator) may see them; whole once the game is `finished`."""
    return [event_log.project(row, seat, finished) for row in rows]


def projected_text(rows: Iterable[Event], *, seat: int | None, finished: bool) -> list[str]:
    """`projected`, each event as the compact JSON text a socket sends (encoded once per row for every viewer
    who may see all of it)."""
    return [event_log.project_text(row, seat, finished) for row in rows]
