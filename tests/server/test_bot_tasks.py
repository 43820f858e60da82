"""A bot's turns in-process (the task games/play/bot_turns.play_bot_turns; the real worker is in test_workers.py):
races with humans, the strong bots' queue, and the sweep's fallback moves."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.engine import legal_moves
from games.play import bot_turns, moves, services
from games.play import sweep as sweeping
from games.store import states
from games.store.models import Event, Game, Seat
from tests.server.helpers import seated_game

pytestmark = pytest.mark.django_db



def test_a_bot_task_that_loses_a_race_to_a_human_goes_on_playing_the_bots(monkeypatch: Any) -> None:
    """Setup phase: the human keeps tickets just as the task appends the first bot's choice. The task gets
    stale_seq, and must still play both bots: the human's own task was queued for a seq already passed."""
    table = seated_game("h", "europe", 3)
    Seat.objects.filter(game_id=table.game_id, number__in=(1, 2)).update(bot="greedy")
    real_play_seat = moves.play_seat
    raced = []

    def human_first(game: Game, **kwargs: Any) -> Any:
        if not raced:
            raced.append(True)
            fresh = Game.objects.get(pk=game.pk)
            human = legal_moves(states.state_at(fresh.pk, fresh.seq), 0)[0]
            real_play_seat(fresh, seat=0, expected_seq=fresh.seq, move=human, by_bot=False)
        return real_play_seat(game, **kwargs)

    monkeypatch.setattr(moves, "play_seat", human_first)
    seq = table.seq()
    assert bot_turns.play_bot_turns(table.game_id, seq) >= 2  # then on, if a bot has the first turn
    kept = Event.objects.filter(game_id=table.game_id, seq__gt=seq, type="tickets_kept").values_list("seat", flat=True)
    assert sorted(kept) == [0, 1, 2]
    game = Game.objects.get(pk=table.game_id)
    assert states.state_at(game.pk, game.seq).deciders() == (0,)  # the task stopped where the human decides


def test_a_bot_task_that_loses_a_race_to_a_resignation_plays_the_resigned_seat_too(monkeypatch: Any) -> None:
    """Setup phase: the human resigns just as the task appends the first bot's choice. The task gets stale_seq,
    reads the game again with its seats, and plays the resigned seat's decision as well (the resignation's own task
    would find its seq already passed and do nothing)."""
    table = seated_game("rs", "europe", 3)
    Seat.objects.filter(game_id=table.game_id, number__in=(1, 2)).update(bot="greedy")
    real_play_seat = moves.play_seat
    resigned: list[bool] = []

    def resign_first(game: Game, **kwargs: Any) -> Any:
        if not resigned:
            resigned.append(True)
            human = Seat.objects.select_related("user").get(game_id=game.pk, number=0).user
            services.game_resign(game.pk, user=human)
        return real_play_seat(game, **kwargs)

    monkeypatch.setattr(moves, "play_seat", resign_first)
    seq = table.seq()
    bot_turns.play_bot_turns(table.game_id, seq)
    setup = Event.objects.filter(game_id=table.game_id, seq__gt=seq, type="tickets_kept").order_by("seq")[:3]
    assert sorted(e.seat for e in setup) == [0, 1, 2]  # the resigned seat's tickets chosen by its stand-in too


def test_a_task_for_a_seq_the_game_has_passed_does_nothing() -> None:
    table = seated_game("h", "usa", 2)
    Seat.objects.filter(game_id=table.game_id, number=1).update(bot="greedy")
    seq = table.seq()
    assert bot_turns.play_bot_turns(table.game_id, seq - 1) == 0
    assert table.seq() == seq
    assert bot_turns.play_bot_turns(table.game_id, seq) == 1 and table.seq() == seq + 1


def test_the_sweep_plays_a_late_players_decision_with_a_strong_fallback_within_its_own_short_budget(
    monkeypatch: Any,
) -> None:
    """X-TIME-1: the fallback bot plays a late decision; a strong one searches it briefly (the sweep serves every
    table), however long TTR_STRONG_SECONDS lets a strong seat think."""
    monkeypatch.setenv("TTR_STRONG_SECONDS", "20")
    table = seated_game("sweep-strong", "usa", 2, turn_seconds=10, fallback_bot="strong")
    game = Game.objects.get(pk=table.game_id)
    seq = game.seq
    started = time.monotonic()
    late = timezone.now() + timedelta(seconds=11)  # both seats' ticket choices are late
    played = sweeping.time_out(game, now=late)
    took = time.monotonic() - started
    kinds = list(Event.objects.filter(game_id=game.pk, seq__gt=seq).order_by("seq").values_list("type", "seat"))
    assert played == 2 and kinds == [("turn_timed_out", 0), ("tickets_kept", 0), ("turn_timed_out", 1), ("tickets_kept", 1)]
    assert Event.objects.get(game_id=game.pk, seq=seq + 2).reason  # the strong bot says why
    assert took < 2 * (sweeping.SWEEP_SEARCH_SECONDS + 1.0), took  # two short searches, not two of 20 s


def test_the_sweep_queues_a_quiet_bot_game_again_once_per_doubling_of_the_quiet_not_every_sweep(settings: Any) -> None:
    """A strong bot's game may wait behind other searches on its queue: the sweep (every second) must not queue
    a copy of its task at every pass. Once past TTR_LOST_TASK_SECONDS of quiet, then once past each doubling."""
    settings.TTR_LOST_TASK_SECONDS, settings.TTR_SWEEP_SECONDS = 3.0, 1.0
    sweeps = [timedelta(seconds=0.5 + i) for i in range(60)]  # one sweep a second over a minute of quiet
    lost = [round(q.total_seconds()) for q in sweeps if sweeping.looks_lost(q)]
    assert lost == [4, 6, 12, 24, 48]  # 3.5 is the first sweep past 3 s (rounded up here), then 6.5, 12.5...
    settings.TTR_LOST_TASK_SECONDS = 0  # as the scoring test sets it: every sweep
    assert all(sweeping.looks_lost(q) for q in sweeps)


def test_a_task_on_the_search_queue_plays_one_strong_decision_and_queues_the_game_again(monkeypatch: Any) -> None:
    """Games of strong bots take turns on the search queue: one decision a task, then the game goes to the back
    of the queue (a whole game in one task held the strong worker for minutes)."""
    monkeypatch.setenv("TTR_STRONG_SECONDS", "0.05")
    table = seated_game("strong-turns", "usa", 2)
    Seat.objects.filter(game_id=table.game_id).update(bot="strong")
    queued: list[tuple[str, int, str | None]] = []
    monkeypatch.setattr(bot_turns, "_on_search_queue", lambda task: True)  # as if delivered through TTR_STRONG_QUEUE
    monkeypatch.setattr(
        bot_turns, "bots_may_play", lambda game_id, seq, level=None: queued.append((str(game_id), seq, level))
    )
    seq = table.seq()
    assert bot_turns.play_bot_turns(table.game_id, seq) == 1
    assert table.seq() == seq + 1 and queued == [(str(table.game_id), seq + 1, "strong")]
