"""What happens after a commit: tell the game's channel group the new seq; queue the workers' tasks.

The group message carries only (game id, seq), never a secret: each connection fetches what it may see.
Tasks are sent by name: `games` never imports `bots` (dependencies point one way, DESIGN.md).
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from celery import current_app
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

PLAY_BOT_TURNS = "bots.tasks.play_bot_turns"
SCORE_GAME = "games.tasks.score_game"


def group_name(game_id: Any) -> str:
    return f"game.{game_id}"


def game_moved(game_id: Any, seq: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group_name(game_id), {"type": "game.moved", "seq": seq})
    except Exception:  # the log is the truth; a lost notice is repaired by the client's resync
        logger.exception("could not notify game %s of seq %s", game_id, seq)


def send(task: str, *args: Any) -> None:
    """Queue the task `task` by name (run inline when the app is eager and knows the task, as in tests)."""
    try:
        current_app.signature(task, args=args).apply_async()
    except Exception:  # the sweep (bots.tasks.sweep) finds and re-queues what a lost message left undone
        logger.exception("could not queue %s%r", task, args)


def bots_may_play(game_id: Any, seq: int) -> None:
    """A bot decides next at `seq`: queue its turns (the task does nothing if the game has moved on)."""
    send(PLAY_BOT_TURNS, str(game_id), seq)


def game_ended(game_id: Any) -> None:
    send(SCORE_GAME, str(game_id))
