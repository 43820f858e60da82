"""Celery entry points of the games app: scoring ended games (bots' turns and the sweep live in bots/tasks.py)."""

from __future__ import annotations

from celery import shared_task

from games.notify import SCORE_GAME
from games.scoring import game_score_and_rate


@shared_task(name=SCORE_GAME, ignore_result=True, acks_late=True)
def score_game(game_id: str) -> bool:
    return game_score_and_rate(game_id)
