"""What a player has seen (`Seat.seen_seq`, which /api/me/games counts new moves from) is written by the services
when the player reads the game (GET /state, the game's socket), never by a selector: answering a question changes
nothing (docs/STYLE.md, principle 7)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from games.play import selectors
from games.store.models import Game, Seat
from tests.server.helpers import seated_game

pytestmark = pytest.mark.django_db


def seen(game_id: str, seat: int) -> int:
    return int(Seat.objects.get(game_id=game_id, number=seat).seen_seq)


def test_a_selector_writes_nothing_and_get_state_marks_the_game_seen_for_its_player_alone() -> None:
    table = seated_game("seen", "europe", 2)
    read = table.state(0)
    table.play(0, {"type": "keep_tickets", "tickets": read["view"]["offered_tickets"]})  # news for seat 1
    game = Game.objects.get(pk=table.game_id)
    before = seen(table.game_id, 1)
    assert before < game.seq
    bob = User.objects.get(username="seen1")
    selectors.game_state(selectors.game_row(table.game_id), user=bob)
    assert seen(table.game_id, 1) == before  # the question changed nothing
    table.state(1)
    assert seen(table.game_id, 1) == game.seq  # reading the game through the API is seeing it
    assert seen(table.game_id, 0) == read["seq"] < game.seq  # seat 0 saw the game as it read it, before its move
