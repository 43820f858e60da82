"""What the others see of a player's daily clock (docs/API.md, Playing by day; My games, games/play/my_clocks.py):
which players of a game are on vacation and until when (their clock stands still: their deadline moves by the
vacation's days), and the bank left of the seat whose deadline a list shows, so that the move's own days and the
bank are told apart. Read only: the vacations already have their end (games/clocks/vacations.py), the banks come
from the log (games/clocks/turn_clocks.py)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated
from uuid import UUID

from django.utils import timezone

from games.clocks import turn_clocks
from games.clocks.models import Vacation
from games.store import states
from games.store.models import Game
from games.store.shape_marks import Schema


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatAway:
    """A player of the game on vacation now: their daily clocks stand still until `until`."""

    seat: Annotated[int, Schema(minimum=0)]
    username: str
    since: datetime
    until: datetime
    days: Annotated[int, Schema(
        "the vacation's length in whole days (a part of a day counts whole): how much later their deadline falls "
        "when their decision is open throughout it", minimum=1,
    )]


def seats_away(games: Iterable[Game]) -> dict[UUID, tuple[SeatAway, ...]]:
    """By game: its players (seats a person plays, not a bot) on vacation now, by seat."""
    now = timezone.now()
    seats = [(game.pk, seat) for game in games for seat in game.seat_list if seat.user_id and not seat.played_by_bot]
    vacations: dict[int, Vacation] = {}
    for vacation in Vacation.objects.filter(
        user_id__in={seat.user_id for _, seat in seats}, starts_at__lte=now, ends_at__gt=now
    ).order_by("ends_at"):
        vacations[vacation.user_id] = vacation  # the one that ends last, should two overlap
    day = turn_clocks.day()
    found: dict[UUID, list[SeatAway]] = {}
    for game_id, seat in sorted(seats, key=lambda pair: pair[1].number):
        taken = vacations.get(seat.user_id or 0)
        if taken is None or seat.user is None:
            continue
        found.setdefault(game_id, []).append(SeatAway(
            seat=seat.number, username=seat.user.username, since=taken.starts_at, until=taken.ends_at,
            days=max(1, -(-(taken.ends_at - taken.starts_at) // day)),
        ))
    return {game_id: tuple(list_) for game_id, list_ in found.items()}


def bank_of_deadline(game: Game, *, your_move: bool, user_id: int) -> int | None:
    """A daily game's bank left, in seconds, of the seat whose deadline My games shows: the person's when the game
    waits for their move, else the deciding seat whose deadline comes first; None without a deadline."""
    times = turn_clocks.deadlines(game, states.state_at(game.pk, game.seq))
    if game.speed != "daily" or not times:
        return None
    mine = next((seat.number for seat in game.seat_list if seat.user_id == user_id), None)
    seat = mine if your_move and mine in times else min(times, key=lambda s: times[s])
    return turn_clocks.banks(game).get(seat)
