"""bots.tasks.play_bot_turns in-process (the real worker is in test_workers.py): races with humans."""

from __future__ import annotations

from typing import Any

import pytest

from bots import tasks
from games import services, states
from games.engine import legal_moves
from games.models import Event, Game, Seat
from tests.server.helpers import FAST_HASHERS, seated_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = FAST_HASHERS


def test_a_bot_task_that_loses_a_race_to_a_human_goes_on_playing_the_bots(monkeypatch: Any) -> None:
    """Setup phase: the human keeps tickets just as the task appends the first bot's choice. The task gets
    stale_seq, and must still play both bots: the human's own task was queued for a seq already passed."""
    table = seated_game("h", "europe", 3)
    Seat.objects.filter(game_id=table.game_id, number__in=(1, 2)).update(bot="greedy")
    real_play_seat = services.play_seat
    raced = []

    def human_first(game: Game, seat: int, expected_seq: int, move: Any, **kwargs: Any) -> Any:
        if not raced:
            raced.append(True)
            fresh = Game.objects.get(pk=game.pk)
            human = legal_moves(states.state_at(fresh.pk, fresh.seq), 0)[0]
            real_play_seat(fresh, 0, fresh.seq, human, by_bot=False)
        return real_play_seat(game, seat, expected_seq, move, **kwargs)

    monkeypatch.setattr(tasks, "play_seat", human_first)
    seq = table.seq()
    assert tasks.play_bot_turns(table.game_id, seq) >= 2  # then on, if a bot has the first turn
    kept = Event.objects.filter(game_id=table.game_id, seq__gt=seq, type="tickets_kept").values_list("seat", flat=True)
    assert sorted(kept) == [0, 1, 2]
    game = Game.objects.get(pk=table.game_id)
    assert states.state_at(game.pk, game.seq).deciders() == (0,)  # the task stopped where the human decides


def test_a_task_for_a_seq_the_game_has_passed_does_nothing() -> None:
    table = seated_game("h", "usa", 2)
    Seat.objects.filter(game_id=table.game_id, number=1).update(bot="greedy")
    seq = table.seq()
    assert tasks.play_bot_turns(table.game_id, seq - 1) == 0
    assert table.seq() == seq
    assert tasks.play_bot_turns(table.game_id, seq) == 1 and table.seq() == seq + 1
