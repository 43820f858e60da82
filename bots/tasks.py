"""Celery entry points that play bots' decisions, and the sweep that keeps every table moving.

`play_bot_turns(game_id, seq)` plays every decision that belongs to a bot (a bot seat, or the seat of a
player who resigned) until a human decides or the game ends. It is idempotent: a task for a seq the game has
moved past does nothing, and every append goes through `expected_seq`, so a duplicate delivery cannot move
twice. A task that loses a race reads the game again and goes on if a bot still decides: in the setup phase a
human may keep tickets between two bots' choices, and that human's move queued a task for a seq this one
may already have passed.

`sweep()` runs every second or so (Celery beat): a decision past its deadline gets `turn_timed_out` and
is played by the game's fallback bot (RULES.md X-TIME-1); a bot decision or an ended game's scoring whose
task was lost is queued again. Everything it looks at is read from the log, so a restart loses nothing.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from bots.policies import policy_for
from games import clocks, notify, states
from games.engine import State, legal_moves, view
from games.engine.events import TurnTimedOut
from games.engine.moves import Move
from games.log import StaleSeq
from games.models import Game
from games.selectors import game_row
from games.services import ServiceError, play_seat

logger = logging.getLogger(__name__)
MAX_BOT_MOVES = 5000


@shared_task(name=notify.PLAY_BOT_TURNS, ignore_result=True, acks_late=True)
def play_bot_turns(game_id: str, seq: int) -> int:
    try:
        game = game_row(game_id)  # the game and its seats in one query
    except ServiceError:
        return 0
    if game.seq > seq:
        return 0
    rng = random.SystemRandom()
    levels = game.bot_levels  # read once: who plays which seat changes only by a resignation, which queues anew
    played = 0
    for _ in range(MAX_BOT_MOVES):
        if game.status != Game.Status.ACTIVE:
            break
        decision = _bot_decision(game, states.state_at(game.pk, game.seq), levels, rng)
        if decision is None:
            break
        try:
            move = play_seat(game, *decision, by_bot=True)  # moves `game` to the new seq and head
        except (StaleSeq, ServiceError):
            game = game_row(game_id)  # someone moved first: look again
            continue
        played += 1
        if move.finished:
            break
    return played


def _bot_decision(game: Game, state: State, levels: dict[int, str], rng: random.Random) -> tuple[int, int, Move] | None:
    for seat in state.deciders():
        if seat in levels:
            return seat, game.seq, choose(state, seat, levels[seat], rng)
    return None


def choose(state: State, seat: int, level: str, rng: random.Random) -> Move:
    """The move the bot of `level` makes for `seat`: it sees only that seat's view and its legal moves."""
    return policy_for(level)(view(state, seat), legal_moves(state, seat), rng)


@shared_task(name="bots.tasks.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    now = timezone.now()
    quiet = now - timedelta(seconds=settings.TTR_LOST_TASK_SECONDS)
    timed_out = requeued = 0
    for active in clocks.active_games():
        if clocks.may_be_overdue(active, now):
            timed_out += _time_out(game_row(active.id), now)
        if active.has_bots and active.last_at < quiet and _bot_waits(active):
            notify.bots_may_play(active.id, active.seq)
            requeued += 1
    unscored = clocks.unscored_games(quiet)
    for game_id in unscored:
        notify.game_ended(game_id)
    return {"timed_out": timed_out, "bots_requeued": requeued, "scoring_requeued": len(unscored)}


def _bot_waits(active: clocks.ActiveGame) -> bool:
    game = game_row(active.id)
    return bool(game.bot_seats.intersection(states.state_at(game.pk, active.seq).deciders()))


def _time_out(game: Game, now: datetime) -> int:
    """Play every decision of `game` that is past its deadline with the fallback bot; how many were played."""
    played = 0
    rng = random.SystemRandom()
    for _ in range(len(game.seat_list)):  # in the setup phase several seats may be late at once
        state = states.state_at(game.pk, game.seq)
        deadline = clocks.deadline(game, state)
        late = [seat for seat in state.deciders() if seat not in game.bot_seats]
        if deadline is None or deadline > now or not late:
            break
        seat, level = late[0], game.fallback_bot
        expired = TurnTimedOut(seat=seat, seconds=game.turn_seconds or 0, bot=level)
        try:
            move = play_seat(game, seat, game.seq, choose(state, seat, level, rng), by_bot=False, before=(expired,))
        except (StaleSeq, ServiceError):
            break  # the player moved just in time
        played += 1  # play_seat moved `game` to the new seq and head: no need to read it again
        if move.finished:
            break
    return played
