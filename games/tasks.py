"""Celery tasks of the games app (bots' turns live in bots/tasks.py)."""

from bots.tasks import play_bot_turns

__all__ = ["play_bot_turns"]
