"""My games (GET /api/me/games, docs/API.md Playing by day) with the daily clocks told plainly: each row is the
game's summary and its deadline (games/play/selectors.py my_games) with who of its players is on vacation and the
bank left of the seat whose deadline it is (games/clocks/away.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from django.contrib.auth.base_user import AbstractBaseUser

from games.clocks.away import SeatAway, bank_of_deadline, seats_away
from games.play.selectors import my_games
from games.play.shapes import MyGame, fields_of
from games.store.models import Game
from games.store.shape_marks import Schema


@dataclass(frozen=True, slots=True, kw_only=True)
class MyGameClocks(MyGame):
    away: Annotated[tuple[SeatAway, ...], Schema("the game's players on vacation now (a daily game in play; else none)")]
    bank_left: Annotated[int | None, Schema(
        "a daily game's bank left, in seconds, of the seat whose `deadline` this is, before the decision open now: "
        "the deadline less this is when the move's own days are spent (null: no deadline, or a live game)",
        minimum=0,
    )]


@dataclass(frozen=True, slots=True, kw_only=True)
class MyGamesClocks:
    results: tuple[MyGameClocks, ...]
    your_turn: Annotated[int, Schema("how many games wait for your move")]


def my_games_clocks(user: AbstractBaseUser) -> MyGamesClocks:
    """The person's games as my_games answers them, each with who is away and the bank of its deadline's seat."""
    mine = my_games(user)
    daily = [row.id for row in mine.results if row.speed == "daily" and row.status == Game.Status.ACTIVE]
    games = {game.pk: game for game in Game.objects.filter(pk__in=daily).prefetch_related("seats__user")}
    away = seats_away(games.values())
    return MyGamesClocks(
        results=tuple(
            MyGameClocks(
                **fields_of(row), away=away.get(row.id, ()),
                bank_left=bank_of_deadline(games[row.id], your_move=row.your_move, user_id=user.pk)
                if row.id in games and row.deadline else None,
            )
            for row in mine.results
        ),
        your_turn=mine.your_turn,
    )
