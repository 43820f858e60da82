"""The sweep (run every TTR_SWEEP_SECONDS by beat, bots/tasks.py): what keeps every table moving, read from the log.

A decision past its deadline gets `turn_timed_out` and is played by the game's fallback bot (docs/RULES.md X-TIME-1);
a daily decision past WARN_SHARE of its time tells its person (games/clocks/low_time.py); a bot decision or an
ended game's scoring whose task was lost is queued again (a bot's task once the game has been quiet
TTR_LOST_TASK_SECONDS, then each time the quiet doubles: a queue that is only slow gets a few copies, not one a
second). Everything it looks at is read from the log, so a restart loses nothing. The fallback bot's move is
`bot_turns.choose`'s, as a bot seat's.
"""

from __future__ import annotations

import logging
import math
import random
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from games.clocks import low_time, turn_clocks
from games.engine.events import TurnTimedOut
from games.play import bot_turns, scoring
from games.play.selectors import game_row
from games.store import notify, states
from games.store.event_log import StaleSeq
from games.store.models import Game
from games.store.service_error import ServiceError
from ttr_server import metrics

logger = logging.getLogger(__name__)
# A late player's decision is played inside the sweep, which every table waits on: a strong fallback bot searches
# it for this long at most, not for TTR_STRONG_SECONDS.
SWEEP_SEARCH_SECONDS = 0.25


def sweep(*, now: datetime | None = None) -> dict[str, int]:
    now = now or timezone.now()
    quiet = now - timedelta(seconds=settings.TTR_LOST_TASK_SECONDS)
    timed_out = requeued = 0
    for active in turn_clocks.active_games():
        if turn_clocks.may_be_overdue(active, now=now) and _due(active, now):
            game = game_row(active.id)
            timed_out += time_out(game, now=now)
            if game.speed == "daily" and game.status == Game.Status.ACTIVE:
                _next_look[game.pk] = (game.seq, low_time.warn(game, now=now))
        if active.has_bots and looks_lost(now - active.last_at) and (level := bot_turns.bot_waits(active.id, active.seq)):
            bot_turns.bots_may_play(active.id, active.seq, level)
            requeued += 1
    unscored = turn_clocks.unscored_games(quiet)
    for game_id in unscored:
        notify.send(scoring.score_game, str(game_id))
    done = {"timed_out": timed_out, "bots_requeued": requeued, "scoring_requeued": len(unscored)}
    for action, count in done.items():
        if count:
            metrics.SWEEP_ACTIONS.labels(action).inc(count)
            logger.info("sweep: %s %d", action.replace("_", " "), count)
    return done


def looks_lost(quiet: timedelta) -> bool:
    """Whether a game quiet for `quiet` seems to have lost its bot task, at this sweep: the first sweep past
    TTR_LOST_TASK_SECONDS of quiet, then the first past each doubling of it (6 s, 12 s, 24 s... by default)."""
    after: float = settings.TTR_LOST_TASK_SECONDS
    every: float = settings.TTR_SWEEP_SECONDS
    seconds = quiet.total_seconds()
    if after <= 0:
        return True
    if seconds < after:
        return False
    crossed = after * 2.0 ** math.floor(math.log2(seconds / after))
    return seconds - every < crossed


# A daily game's clock is looked at again only when its seq has changed or the moment of its next warning or
# deadline has come (vacations only ever move those later): otherwise every quiet daily game's log would be
# read every second. Per process; a process without the entry simply looks.
_next_look: dict[uuid.UUID, tuple[int, datetime | None]] = {}


def _due(active: turn_clocks.ActiveGame, now: datetime) -> bool:
    if not active.days_per_move:
        return True
    seq, moment = _next_look.get(active.id, (-1, None))
    if len(_next_look) > 100_000:
        _next_look.clear()
    return seq != active.seq or (moment is not None and moment <= now)


def time_out(game: Game, *, now: datetime) -> int:
    """Play every decision of `game` that is past its deadline with the fallback bot; how many were played."""
    played = 0
    rng = random.SystemRandom()
    for _ in range(len(game.seat_list)):  # in the setup phase several seats may be late at once
        state = states.state_at(game.pk, game.seq)
        times = turn_clocks.deadlines(game, state)
        late = [seat for seat in state.deciders() if seat not in game.bot_seats and seat in times and times[seat] <= now]
        if not times or not late:
            break
        seat, level = late[0], game.fallback_bot
        daily = game.speed == "daily"
        seconds = (game.days_per_move or 0) * turn_clocks.day().total_seconds() if daily else game.turn_seconds
        expired = TurnTimedOut(seat=seat, seconds=int(seconds or 0), bot=level)
        choice = bot_turns.choose(game, state, seat, level, rng, SWEEP_SEARCH_SECONDS)
        try:
            with metrics.moves_via("sweep"):
                move = bot_turns.play_for(
                    game, seat=seat, expected_seq=game.seq, move=choice.move, before=(expired,), reason=choice.reason
                )
        except (StaleSeq, ServiceError):
            break  # the player moved just in time
        played += 1  # the move moved `game` to the new seq and head: no need to read it again
        if move.finished:
            break
    return played
