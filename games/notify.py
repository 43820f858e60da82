"""What happens after a commit: tell the game's channel group the new seq; queue the bots' turns.

The group message carries only (game id, seq), never a secret: each connection fetches what it may see.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


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


def bots_may_play(game_id: Any, seq: int) -> None:
    """A bot decides next at `seq`: queue its turns (the task does nothing if the game has moved on)."""
    from bots.tasks import play_bot_turns

    play_bot_turns.delay(str(game_id), seq)
