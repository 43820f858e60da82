"""Playing one move for one seat: the core every mover shares (a person through games/play/services.py, a bot
through games/play/bot_turns.py, the sweep for a seat out of time, staff through games/staff/).

`play_seat` loads the state, lets the engine decide, appends the events at `expected_seq` (a clash is
`StaleSeq`, nothing written) and, after the commit, `settle`s: the state remembered, the game's scoring queued when
it is over, its group told. The bots that decide next are woken by the caller (`Played.bot_next`), which is above
this module: moving never imports the bots' turns that move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from games.engine import Event as EngineEvent
from games.engine import Move, State, step
from games.engine.state import SETUP_TICKETS
from games.people import inbox
from games.play import scoring
from games.store import event_log, notify, states
from games.store.models import Event, Game, GameId, map_name
from games.store.service_error import ServiceError
from games.trust import chance
from ttr_server import json_logs, metrics


@dataclass(frozen=True)
class Played:
    seq: int
    seat: int
    events: tuple[EngineEvent, ...]
    rows: tuple[Event, ...]  # the appended rows, as stored
    finished: bool
    bot_next: str | None = None  # the level of a bot that decides now, for the caller to wake


REASON_LENGTH = 300  # Event.reason's size


def play_seat(
    game: Game, *, seat: int, expected_seq: int, move: Move, by_bot: bool, before: tuple[EngineEvent, ...] = (),
    reason: str = "",
) -> Played:
    """Play `move` for `seat` in `game` as read just before (its seq is checked again by the append).

    `before`: facts to append ahead of the move's events, in the same transaction (a `turn_timed_out`).
    `reason`: a bot's words for why it made the move, stored on the move's first event row."""
    bot_seats = game.bot_seats
    bot_levels = game.bot_levels
    started, path = time.perf_counter(), metrics.move_path()
    if game.status != Game.Status.ACTIVE:
        raise ServiceError("not_active", f"the game is {game.status}", status=409)
    if game.seq != expected_seq:
        raise event_log.StaleSeq(game.seq)
    state = states.state_at(game.pk, game.seq)
    new_state, events = step(state, seat, move, chance.draws(game, state))
    reasons = {len(before): reason[:REASON_LENGTH]} if reason else None
    events = (*before, *events)
    with transaction.atomic():
        rows = event_log.append(game, expected_seq, events, reasons)
        states.maybe_snapshot(game.pk, expected_seq, game.seq, new_state)
        if new_state.finished:
            Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=timezone.now())
        new_seq = game.seq
        tell_turns(game, state, new_state)
        transaction.on_commit(
            lambda: settle(game.pk, new_seq, new_state)
        )
    metrics.MOVES.labels(move.type, path).inc()
    metrics.MOVE_SECONDS.labels(path).observe(time.perf_counter() - started)
    json_logs.bind(game=str(game.pk), seq=new_seq)
    deciding = sorted(bot_seats.intersection(new_state.deciders())) if not new_state.finished else []
    bot_next = bot_levels.get(deciding[0]) if deciding and not by_bot else None
    return Played(new_seq, seat, events, tuple(rows), new_state.finished, bot_next)


def settle(game_id: GameId, seq: int, state: State) -> None:
    """After a commit that moved the game to `seq`: remember the state, queue its scoring if it is over, tell the
    game's group. Waking the bots that decide next is the caller's (games/play/bot_turns.py)."""
    states.remember(game_id, seq, state)
    if state.finished:
        notify.send(scoring.score_game, str(game_id))
    notify.game_moved(game_id, seq)


def tell_turns(game: Game, before: State | None, after: State) -> None:
    """In a daily game, a `your_turn` notification to each person whose decision the move just opened."""
    if game.speed != "daily" or after.finished:
        return
    was = set(before.deciders()) if before is not None and before.phase == after.phase else set()
    users = {seat.number: seat.user_id for seat in game.seat_list if seat.user_id and not seat.played_by_bot}
    for seat in after.deciders():
        if seat in users and seat not in was:
            words = "choose your tickets" if after.phase == SETUP_TICKETS else "it is your turn"
            inbox.send(users[seat], "your_turn", f"{game.pk}:{game.seq}:{seat}", f"{map_name(game.map)}: {words}.", game.pk)
