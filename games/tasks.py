"""Celery entry points of the games app: scoring ended games (bots' turns and the sweep live in bots/tasks.py)."""

from __future__ import annotations

from smtplib import SMTPException

from celery import shared_task

from games.lobby import matchmaker
from games.lobby.matchmaker import MATCH
from games.people import mail
from games.play.scoring import game_score_and_rate
from games.store.notify import SCORE_GAME


@shared_task(name=SCORE_GAME, ignore_result=True, acks_late=True)
def score_game(game_id: str) -> bool:
    return game_score_and_rate(game_id)


@shared_task(name=MATCH, ignore_result=True)
def match() -> int:
    """Form the tables the queue allows now (games/lobby/matchmaker.py); how many."""
    return len(matchmaker.run())


# E-mail (games/people/mail.py): the batch of pending notifications, and an address's confirmation link.
@shared_task(name=mail.MAIL_NOTIFICATIONS, ignore_result=True)
def mail_notifications() -> int:
    """Mail the notifications waiting for it; how many mails went."""
    return mail.send_pending()


@shared_task(
    name=mail.MAIL_CONFIRMATION, ignore_result=True, autoretry_for=(OSError, SMTPException),
    retry_backoff=30, max_retries=5,
)
def mail_confirmation(user_id: int, address: str) -> bool:
    """Mail the link that confirms `address` (retried while the SMTP server cannot be reached)."""
    return mail.send_confirmation(user_id, address=address)
