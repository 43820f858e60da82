"""Turn clocks (RULES.md X-TIME-1): when a seat's current decision must be made, read from the log.

A decision starts with the event that gave the seat its decision: in the setup phase every seat chooses its
tickets at once from the moment the game started (event 1); later, the seat decides from the last event on.
The deadline is that event's time plus the game's `turn_seconds`, so it needs nothing but the log and
survives any restart. `overdue_games` is the sweep's cheap first question; the state says who decides.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import OuterRef, Subquery

from games.engine import State
from games.engine.state import SETUP_TICKETS
from games.models import Event, Game


def decision_seq(game: Game, state: State) -> int:
    """The seq of the event that opened the current decision(s)."""
    return 1 if state.phase == SETUP_TICKETS else game.seq


def deadline(game: Game, state: State) -> datetime | None:
    """When the current decision times out; None for a game without a clock or without a decision."""
    if not game.turn_seconds or game.status != Game.Status.ACTIVE or not state.deciders():
        return None
    opened = Event.objects.filter(game_id=game.pk, seq=decision_seq(game, state)).values_list("created_at", flat=True)
    started = opened.first()
    return None if started is None else started + timedelta(seconds=game.turn_seconds)


def _event_time(seq_of: Any) -> Subquery:
    return Subquery(Event.objects.filter(game_id=OuterRef("pk"), seq=seq_of).values("created_at")[:1])


def overdue_games(now: datetime) -> list[Game]:
    """Active games with a clock whose first event is older than their turn time: the only ones that can
    have a decision past its deadline (every decision opens at event 1 or later). The caller checks the state."""
    games = Game.objects.filter(status=Game.Status.ACTIVE, turn_seconds__isnull=False).annotate(
        first_at=_event_time(1), last_at=_event_time(OuterRef("seq"))
    )
    return [g for g in games if g.first_at + timedelta(seconds=g.turn_seconds) <= now]


def idle_games(since: datetime, status: str) -> list[Game]:
    """Games in `status` whose last event is older than `since` (for the sweep: lost bot or scoring tasks)."""
    games = Game.objects.filter(status=status).annotate(
        last_at=_event_time(OuterRef("seq")),
        last_type=Subquery(Event.objects.filter(game_id=OuterRef("pk"), seq=OuterRef("seq")).values("type")[:1]),
    )
    return list(games.filter(last_at__lt=since))
