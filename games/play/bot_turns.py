"""Playing the decisions that belong to bots: a bot seat's, or the seat of a player who resigned (X-TIME-1).

`play_turns(game_id, seq)` plays every such decision until a person decides or the game ends, each through the
same move as a person's (games/play/moves.py `play_seat`, by `expected_seq`), with the bot's reason. It is idempotent:
a call for a seq the game has moved past does nothing, and a move that loses a race reads the game again and goes
on if a bot still decides (in the setup phase a person may keep tickets between two bots' choices). The move is
the policy's of the seat's level (`choose`: bots/policies, a library over the engine, given only what the seat may
see).

The task `play_bot_turns` runs it on a worker; `bots_may_play` queues that task after a commit: `play_for` (a
person's move, a timed-out seat's) and `settle_and_wake` (a start, a resignation, an operator's action) call it.
Strong bots' decisions are played on the search queue (settings.TTR_STRONG_QUEUE): a task on the default queue that
reaches a strong bot's decision hands the game over to that queue and stops, so a search never holds up a worker
other games wait for; a task there plays one search and queues the game again, so games of strong bots
take turns on that queue rather than one holding it for a whole game (a decision the strong bot answers at once,
without searching, does not count: it goes on).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from celery import Task, shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bots.budget import strong_seconds
from bots.policies import NEEDS_HISTORY, Decision, policy_for
from games.engine import Event, Move, State, legal_moves, view
from games.play import moves, selectors
from games.store import event_log, notify, states
from games.store.event_log import StaleSeq
from games.store.models import Game, GameId
from games.store.service_error import ServiceError
from ttr_server import metrics

MAX_BOT_MOVES = 5000


@dataclass(frozen=True)
class BotMove:
    move: Move
    reason: str
    seconds: float = 0.0  # how long the bot took to choose
    searched: bool = False  # it thought (not answered at once)


# A strong decision that took this much CPU (or a quarter of its budget, if less) searched. CPU, not wall time: an
# answer given at once costs a few milliseconds however busy the cores, a search most of its budget.
SEARCHED_SECONDS = 0.05
# The least a search is given when its decision waited for a worker: the strong bot answers TTR_STRONG_SECONDS after
# the decision fell to it, as its player sees it, whatever the queue, unless the wait alone took longer.
MIN_SEARCH_SECONDS = 0.2

def choose(
    game: Game, state: State, seat: int, level: str, rng: random.Random, seconds: float | None = None,
    waited: float = 0.0,
) -> BotMove:
    """The move the bot of `level` makes for `seat`, and why: it sees only that seat's view, its legal moves and,
    for the levels that read it, the game's events so far as that seat saw them. `seconds`: the search's budget
    (TTR_STRONG_SECONDS when None), less `waited` (the seconds the decision has already waited for a worker) and
    the time its history takes to read, but never under MIN_SEARCH_SECONDS."""
    began = time.perf_counter()
    history = selectors.history_for(game, seat=seat) if level in NEEDS_HISTORY else ()
    budget = strong_seconds() if seconds is None else min(seconds, strong_seconds())
    budget = max(min(budget, MIN_SEARCH_SECONDS), budget - waited - (time.perf_counter() - began))
    decision = Decision(view(state, seat), legal_moves(state, seat), rng, history, budget)
    started, cpu = time.perf_counter(), time.thread_time()
    choice = policy_for(level)(decision)
    seconds = time.perf_counter() - started
    metrics.BOT_SECONDS.labels(level).observe(seconds)
    return BotMove(choice.move, choice.reason, seconds, time.thread_time() - cpu >= min(SEARCHED_SECONDS, budget / 4))


@dataclass(frozen=True)
class Turns:
    played: int
    seq: int
    next_level: str | None  # a bot of this level decides next, for another call (queue) to play; None: nobody


def bot_decision(game: Game, state: State, levels: dict[int, str]) -> tuple[int, str] | None:
    """The first deciding seat a bot plays, and its level."""
    for seat in state.deciders():
        if seat in levels:
            return seat, levels[seat]
    return None


def bot_waits(game_id: GameId, seq: int) -> str | None:
    """The level of a bot the game waits for at `seq`, if it waits for one."""
    game = selectors.game_row(game_id)
    decision = bot_decision(game, states.state_at(game.pk, seq), game.bot_levels)
    return decision[1] if decision else None


def play_turns(game_id: GameId, seq: int, *, searches: bool = True, one_search: bool = False) -> Turns:
    """`searches`: whether this caller plays a strong bot's decision (the search queue's task does); `one_search`:
    whether it stops after one (so strong games take turns on their queue)."""
    try:
        game = selectors.game_row(game_id)  # the game and its seats in one query
    except ServiceError:
        return Turns(0, seq, None)
    if game.seq > seq:
        return Turns(0, game.seq, None)
    rng = random.SystemRandom()
    levels = game.bot_levels  # who plays which seat: changes only by a resignation, which moves the seq
    played = 0
    for _ in range(MAX_BOT_MOVES):
        if game.status != Game.Status.ACTIVE:
            break
        decision = bot_decision(game, states.state_at(game.pk, game.seq), levels)
        if decision is None:
            break
        seat, level = decision
        if level == "strong" and not searches:
            return Turns(played, game.seq, level)  # another queue takes the game from here
        waited = waiting_since(game) if level == "strong" else 0.0
        choice = choose(game, states.state_at(game.pk, game.seq), seat, level, rng, waited=waited)
        try:
            with metrics.moves_via("bot"):
                move = moves.play_seat(
                    game, seat=seat, expected_seq=game.seq, move=choice.move, by_bot=True, reason=choice.reason
                )
        except (StaleSeq, ServiceError):
            # Someone moved first: look again, seats included. A resignation meanwhile hands its seat to a bot, and
            # the task it queued may have found this one's moves already past its seq and left the seat to us.
            game = selectors.game_row(game_id)
            levels = game.bot_levels
            continue
        played += 1
        if move.finished:
            break
        if level == "strong" and one_search and choice.searched:
            return Turns(played, game.seq, level)  # it searched: the other games of that level go first
    return Turns(played, game.seq, None)


def waiting_since(game: Game) -> float:
    """Seconds since the game's last event: how long its decision has waited (0 if the clocks disagree)."""
    at = event_log.appended_at(game.pk, game.seq)
    return max(0.0, (timezone.now() - at).total_seconds()) if at is not None else 0.0


@shared_task(ignore_result=True, acks_late=True, bind=True)
def play_bot_turns(self: Task[[str, int], int], game_id: str, seq: int) -> int:
    eager = bool(self.request.is_eager)  # an inline run (tests) plays every level, strong games whole
    turns = play_turns(game_id, seq, searches=_on_search_queue(self), one_search=not eager)
    if turns.next_level:
        bots_may_play(game_id, turns.seq, turns.next_level)
    return turns.played


def _on_search_queue(task: Task[[str, int], int]) -> bool:
    """Whether this delivery came through the search queue (an eager call, in tests, plays every level)."""
    if task.request.is_eager:
        return True
    delivery = task.request.delivery_info or {}
    return delivery.get("routing_key") == settings.TTR_STRONG_QUEUE


def play_for(
    game: Game, *, seat: int, expected_seq: int, move: Move, before: tuple[Event, ...] = (), reason: str = ""
) -> moves.Played:
    """A move no bot chose (a person's, or a timed-out seat's played by the sweep), then, after its commit, the
    turns of the bot that decides next."""
    played = moves.play_seat(
        game, seat=seat, expected_seq=expected_seq, move=move, by_bot=False, before=before, reason=reason
    )
    if (level := played.bot_next) is not None:
        transaction.on_commit(lambda: bots_may_play(game.pk, played.seq, level))
    return played


def settle_and_wake(
    game_id: GameId, seq: int, state: State, *, bot_seats: frozenset[int], levels: dict[int, str] | None = None
) -> None:
    """After a commit that moved the game without a move (its start, a resignation, an operator's action:
    games/staff/operator_actions.py): settle it (games/play/moves.py), and queue the bots' turns if a bot decides
    now."""
    deciding = sorted(bot_seats.intersection(state.deciders()))
    if deciding and not state.finished:
        bots_may_play(game_id, seq, (levels or {}).get(deciding[0]))  # first: the bot thinks while viewers are told
    moves.settle(game_id, seq, state)


def bots_may_play(game_id: GameId, seq: int, level: str | None = None) -> None:
    """A bot decides next at `seq`: queue its turns (the task does nothing if the game has moved on). A strong
    bot's turns go to the search queue (settings.TTR_STRONG_QUEUE), so a search never delays other games."""
    notify.send(play_bot_turns, str(game_id), seq, queue=settings.TTR_STRONG_QUEUE if level == "strong" else None)
