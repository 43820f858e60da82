"""Celery entry points that play bots' decisions, and the sweep that keeps every table moving.

`play_bot_turns(game_id, seq)` plays every decision that belongs to a bot (a bot seat, or the seat of a
player who resigned) until a human decides or the game ends. It is idempotent: a task for a seq the game has
moved past does nothing, and every append goes through `expected_seq`, so a duplicate delivery cannot move
twice. A task that loses a race reads the game again and goes on if a bot still decides: in the setup phase a
human may keep tickets between two bots' choices, and that human's move queued a task for a seq this one
may already have passed.

Strong bots' decisions are played by tasks on the search queue (settings.TTR_STRONG_QUEUE): a task on the
default queue that reaches a strong bot's decision hands the game over to that queue and stops, so a search never
holds up a worker that other games wait for. A task there plays one search and queues the game again, so games
of strong bots take turns on that queue rather than one holding it for a whole game. Every bot move is stored
with the bot's reason (`Event.reason`).

`sweep()` runs every second or so (Celery beat): a decision past its deadline gets `turn_timed_out` and
is played by the game's fallback bot (RULES.md X-TIME-1); a bot decision or an ended game's scoring whose
task was lost is queued again (a bot's task once the game has been quiet TTR_LOST_TASK_SECONDS, then each time
the quiet doubles: a queue that is only slow gets a few copies, not one a second). Everything it looks at is
read from the log, so a restart loses nothing.
"""

from __future__ import annotations

import logging
import math
import random
import time
from datetime import datetime, timedelta

from celery import Task, shared_task
from django.conf import settings
from django.utils import timezone

from bots.budget import strong_seconds
from bots.policies import NEEDS_HISTORY, Choice, Decision, policy_for
from games import clock_warnings, clocks, notify, states
from games.engine import Event, State, legal_moves, redact, view
from games.engine.events import TurnTimedOut
from games.log import StaleSeq, events_between
from games.models import Game
from games.selectors import game_row
from games.services import ServiceError, play_seat
from ttr_server import health, metrics

logger = logging.getLogger(__name__)
MAX_BOT_MOVES = 5000
# A late player's decision is played inside the sweep, which every table waits on: a strong fallback bot searches
# it for this long at most, not for TTR_STRONG_SECONDS.
SWEEP_SEARCH_SECONDS = 0.25


@shared_task(name=notify.PLAY_BOT_TURNS, ignore_result=True, acks_late=True, bind=True)
def play_bot_turns(self: Task, game_id: str, seq: int) -> int:
    searches = _on_search_queue(self)
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
        decision = _bot_decision(game, states.state_at(game.pk, game.seq), levels)
        if decision is None:
            break
        seat, level = decision
        if level == "strong" and not searches:
            notify.bots_may_play(game.pk, game.seq, level)  # the search queue takes the game from here
            break
        choice = choose(game, states.state_at(game.pk, game.seq), seat, level, rng)
        try:
            with metrics.moves_via("bot"):
                move = play_seat(game, seat, game.seq, choice.move, by_bot=True, reason=choice.reason)
        except (StaleSeq, ServiceError):
            game = game_row(game_id)  # someone moved first: look again
            continue
        played += 1
        if move.finished:
            break
        if level == "strong" and not self.request.is_eager:
            notify.bots_may_play(game.pk, game.seq, level)  # the other strong games' searches go first
            break
    return played


def _on_search_queue(task: Task) -> bool:
    """Whether this delivery came through the search queue (an eager call, in tests, plays every level)."""
    if task.request.is_eager:
        return True
    delivery = task.request.delivery_info or {}
    return delivery.get("routing_key") == settings.TTR_STRONG_QUEUE


def _bot_decision(game: Game, state: State, levels: dict[int, str]) -> tuple[int, str] | None:
    """The first deciding seat a bot plays, and its level."""
    for seat in state.deciders():
        if seat in levels:
            return seat, levels[seat]
    return None


def choose(
    game: Game, state: State, seat: int, level: str, rng: random.Random, seconds: float | None = None
) -> Choice:
    """The move the bot of `level` makes for `seat`, and why: it sees only that seat's view, its legal moves and,
    for the levels that read it, the game's events so far as that seat saw them. `seconds`: the search's budget
    (TTR_STRONG_SECONDS when None)."""
    history: tuple[Event, ...] = ()
    if level in NEEDS_HISTORY:
        history = tuple(redact(e, seat) for e in events_between(game.pk, 0, game.seq))
    budget = strong_seconds() if seconds is None else min(seconds, strong_seconds())
    decision = Decision(view(state, seat), legal_moves(state, seat), rng, history, budget)
    started = time.perf_counter()
    choice = policy_for(level)(decision)
    metrics.BOT_SECONDS.labels(level).observe(time.perf_counter() - started)
    return choice


@shared_task(name="bots.tasks.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    now = timezone.now()
    quiet = now - timedelta(seconds=settings.TTR_LOST_TASK_SECONDS)
    timed_out = requeued = 0
    for active in clocks.active_games():
        if clocks.may_be_overdue(active, now) and _due(active, now):
            game = game_row(active.id)
            timed_out += _time_out(game, now)
            if game.speed == "daily" and game.status == Game.Status.ACTIVE:
                _next_look[game.pk] = (game.seq, clock_warnings.warn(game, now))
        if active.has_bots and looks_lost(now - active.last_at) and (level := _bot_waits(active)):
            notify.bots_may_play(active.id, active.seq, level)
            requeued += 1
    unscored = clocks.unscored_games(quiet)
    for game_id in unscored:
        notify.game_ended(game_id)
    done = {"timed_out": timed_out, "bots_requeued": requeued, "scoring_requeued": len(unscored)}
    for action, count in done.items():
        if count:
            metrics.SWEEP_ACTIONS.labels(action).inc(count)
            logger.info("sweep: %s %d", action.replace("_", " "), count)
    health.beat("sweep")
    if random.random() < 0.01:  # now and then: the heartbeats of processes gone for a day
        health.prune(timedelta(days=1))
    return done


def looks_lost(quiet: timedelta) -> bool:
    """Whether a game quiet for `quiet` seems to have lost its bot task, at this sweep: the first sweep past
    TTR_LOST_TASK_SECONDS of quiet, then the first past each doubling of it (6 s, 12 s, 24 s... by default)."""
    after, every, seconds = settings.TTR_LOST_TASK_SECONDS, settings.TTR_SWEEP_SECONDS, quiet.total_seconds()
    if after <= 0:
        return True
    if seconds < after:
        return False
    crossed = after * 2 ** math.floor(math.log2(seconds / after))
    return seconds - every < crossed


def _bot_waits(active: clocks.ActiveGame) -> str | None:
    """The level of a bot the game waits for, if it waits for one."""
    game = game_row(active.id)
    decision = _bot_decision(game, states.state_at(game.pk, active.seq), game.bot_levels)
    return decision[1] if decision else None


# A daily game's clock is looked at again only when its seq has changed or the moment of its next warning or
# deadline has come (vacations only ever move those later): otherwise every quiet daily game's log would be
# read every second. Per process; a process without the entry simply looks.
_next_look: dict[object, tuple[int, datetime | None]] = {}


def _due(active: clocks.ActiveGame, now: datetime) -> bool:
    if not active.days_per_move:
        return True
    seq, moment = _next_look.get(active.id, (-1, None))
    if len(_next_look) > 100_000:
        _next_look.clear()
    return seq != active.seq or (moment is not None and moment <= now)


def _time_out(game: Game, now: datetime) -> int:
    """Play every decision of `game` that is past its deadline with the fallback bot; how many were played."""
    played = 0
    rng = random.SystemRandom()
    for _ in range(len(game.seat_list)):  # in the setup phase several seats may be late at once
        state = states.state_at(game.pk, game.seq)
        times = clocks.deadlines(game, state)
        late = [seat for seat in state.deciders() if seat not in game.bot_seats and seat in times and times[seat] <= now]
        if not times or not late:
            break
        seat, level = late[0], game.fallback_bot
        seconds = (game.days_per_move or 0) * clocks.day().total_seconds() if game.speed == "daily" else game.turn_seconds
        expired = TurnTimedOut(seat=seat, seconds=int(seconds or 0), bot=level)
        choice = choose(game, state, seat, level, rng, SWEEP_SEARCH_SECONDS)
        try:
            with metrics.moves_via("sweep"):
                move = play_seat(game, seat, game.seq, choice.move, by_bot=False, before=(expired,), reason=choice.reason)
        except (StaleSeq, ServiceError):
            break  # the player moved just in time
        played += 1  # play_seat moved `game` to the new seq and head: no need to read it again
        if move.finished:
            break
    return played
