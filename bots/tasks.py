"""Celery entry points that wire the bots' policies to the games' services: a bot's turns (games/play/bot_turns.py) and
the sweep (games/play/sweep.py). This module holds only what is the bots' own: `choose`, the move a bot of a level
makes from what its seat may see, and which queue plays which level.

Strong bots' decisions are played by tasks on the search queue (settings.TTR_STRONG_QUEUE): a task on the
default queue that reaches a strong bot's decision hands the game over to that queue and stops, so a search never
holds up a worker that other games wait for. A task there plays one search and queues the game again, so games
of strong bots take turns on that queue rather than one holding it for a whole game.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from datetime import timedelta
from functools import partial

from celery import Task, shared_task
from django.conf import settings

from bots import analysis
from bots.analysis import Budget, GameAnalysis
from bots.budget import strong_seconds
from bots.policies import NEEDS_HISTORY, Decision, policy_for
from games.engine import Event, State, legal_moves, view
from games.play import bot_turns, selectors
from games.play import sweep as sweeping
from games.play.bot_turns import BotMove
from games.review import analyses
from games.store import notify
from games.store.models import Game
from ttr_server import health, metrics


@shared_task(name=notify.PLAY_BOT_TURNS, ignore_result=True, acks_late=True, bind=True)
def play_bot_turns(self: Task[[str, int], int], game_id: str, seq: int) -> int:
    searches = _on_search_queue(self)
    turns = bot_turns.play_turns(
        game_id, seq, choose,
        plays=lambda level: searches or level != "strong",  # the search queue takes a strong bot's decision
        one_of=lambda level: level == "strong" and not self.request.is_eager,  # other strong games go first
    )
    if turns.next_level:
        notify.bots_may_play(game_id, turns.seq, turns.next_level)
    return turns.played


def _on_search_queue(task: Task[[str, int], int]) -> bool:
    """Whether this delivery came through the search queue (an eager call, in tests, plays every level)."""
    if task.request.is_eager:
        return True
    delivery = task.request.delivery_info or {}
    return delivery.get("routing_key") == settings.TTR_STRONG_QUEUE


def choose(
    game: Game, state: State, seat: int, level: str, rng: random.Random, seconds: float | None = None
) -> BotMove:
    """The move the bot of `level` makes for `seat`, and why: it sees only that seat's view, its legal moves and,
    for the levels that read it, the game's events so far as that seat saw them. `seconds`: the search's budget
    (TTR_STRONG_SECONDS when None)."""
    history = selectors.history_for(game, seat=seat) if level in NEEDS_HISTORY else ()
    budget = strong_seconds() if seconds is None else min(seconds, strong_seconds())
    decision = Decision(view(state, seat), legal_moves(state, seat), rng, history, budget)
    started = time.perf_counter()
    choice = policy_for(level)(decision)
    metrics.BOT_SECONDS.labels(level).observe(time.perf_counter() - started)
    return BotMove(choice.move, choice.reason)


@shared_task(name="bots.tasks.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    done = sweeping.sweep(choose)
    health.beat("sweep")
    if random.random() < 0.01:  # now and then: the heartbeats of processes gone for a day
        health.prune(timedelta(days=1))
    return done


@shared_task(name=analyses.ANALYSE_GAME, ignore_result=True, acks_late=True)
def analyse_game(game_id: str) -> str:
    """Judge a finished game's decisions (bots/analysis.py) and store the result (games/review/analyses.py)."""
    budget = Budget(settings.TTR_ANALYSIS_SAMPLES, settings.TTR_ANALYSIS_SINGLE)
    return analyses.analysis_run(
        game_id, analyser=partial(_analyse, budget=budget, seed=game_id), bot=analysis.VERSION, budget=budget.as_dict()
    )


def _analyse(events: Sequence[Event], progress: analyses.Progress, *, budget: Budget, seed: str) -> GameAnalysis:
    return analysis.analyse(events, budget, seed=seed, progress=progress)


@shared_task(name="bots.tasks.analysis_sweep", ignore_result=True)
def analysis_sweep() -> int:
    return analyses.analysis_sweep()
