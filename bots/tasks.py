"""The bots' beat: the Celery tasks no lower layer queues, only beat (settings.CELERY_BEAT_SCHEDULE names them).

The tasks games queues after a commit are defined beside the use cases they run, which call the bots' library
directly, as they call the engine: a bot's turns in games/play/bot_turns.py (bots/policies), an analysis in
games/review/analyses.py (bots/analysis.py). Nothing in games imports this module (pyproject's import-linter
contracts).
"""

from __future__ import annotations

import random
from datetime import timedelta

from celery import shared_task

from games.play import sweep as sweeping
from games.review import analyses
from ttr_server import health


@shared_task(ignore_result=True)
def sweep() -> dict[str, int]:
    """Turn clocks, and the bots' and scoring tasks lost on the way (games/play/sweep.py)."""
    done = sweeping.sweep()
    health.beat("sweep")
    if random.random() < 0.01:  # now and then: the heartbeats of processes gone for a day
        health.prune(timedelta(days=1))
    return done


@shared_task(ignore_result=True)
def analysis_sweep() -> int:
    """Analyses whose message was lost, and the idle analysis queue's ranked games (games/review/analyses.py)."""
    return analyses.analysis_sweep()
