"""The games app's Celery tasks, gathered for the worker (it reads each app's tasks module), as games/models.py
gathers the models for Django.

A task that a use case queues after its commit is defined beside that use case, in its layer, and queued as an
object (`notify.send(task, ...)`), never by a name: a bot's turns (play/bot_turns.py), scoring an ended game
(play/scoring.py), the matchmaker's run (lobby/matchmaker.py), an address's confirmation mail (people/mail.py),
an analysis (review/analyses.py), a hint's search (review/hints.py), a tournament's next step and beat's run of
them (tournaments/services.py).
What only beat runs is defined here: the batch of notification mails, and the monthly dumps. (The bots' beat, the
sweeps, is bots/tasks.py's.)
"""

from __future__ import annotations

from pathlib import Path

from celery import shared_task
from django.conf import settings

from games.api import dumps
from games.lobby.matchmaker import match
from games.people import mail
from games.people.mail import mail_confirmation
from games.play.bot_turns import play_bot_turns
from games.play.scoring import score_game
from games.review.analyses import analyse_game
from games.review.hints import search_hint
from games.tournaments.services import advance_tournament, tournaments_tick

__all__ = [
    "advance_tournament", "analyse_game", "dump_games", "mail_confirmation", "mail_notifications", "match",
    "play_bot_turns", "score_game", "search_hint", "tournaments_tick",
]


@shared_task(ignore_result=True)
def mail_notifications() -> int:
    """Mail the notifications waiting for it (games/people/mail.py); how many mails went."""
    return mail.send_pending()


@shared_task(ignore_result=True)
def dump_games() -> int:
    """Write the monthly dumps that are due (games/api/dumps.py) into TTR_DUMP_DIR; how many months were written."""
    return len(dumps.dump_due(Path(settings.TTR_DUMP_DIR)))
