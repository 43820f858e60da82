"""What happens after a commit: tell the game's channel group the new seq; queue the workers' tasks.

The group message carries only (game id, seq), never a secret: each connection fetches what it may see.
Telling never waits: the message is handed to an event loop in a thread of its own (`_Sender`) and the move's
response goes on at once; a notice lost there is repaired by the web processes' poll of the seqs of the games
they serve (games/realtime/hub.py). The in-memory channel layer (embedded server) reaches only this process's
sockets, so there the message goes to the loop that serves them, if this process serves any; another process's
move (the Celery worker's) reaches them through that poll.
A task is queued as the object its module defines (`send(task, ...)`), never by a name: each is defined beside
the use case it runs, in the layer of the code that queues it (games/tasks.py gathers them for the worker).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from celery import Task
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import InMemoryChannelLayer, channel_layers, get_channel_layer

if TYPE_CHECKING:
    from games.store.models import GameId

logger = logging.getLogger(__name__)

# Set by games/realtime/hub.py when it is imported (a process that serves sockets): how a notice reaches this
# process's sockets through the in-memory layer. Registered from below, so nothing here imports the realtime code.
local_post: Callable[[str, dict[str, Any]], None] | None = None


def group_name(game_id: GameId) -> str:
    return f"game.{game_id}"


def game_moved(game_id: GameId, seq: int) -> None:
    """Tell the game's group that it is at `seq` now (returns at once; called after the commit)."""
    post(group_name(game_id), {"type": "game.moved", "game": str(game_id), "seq": seq})


def post(group: str, message: dict[str, Any]) -> None:
    """Send `message` to the channel group `group` without waiting (a game's, or a person's: games/people/inbox.py)."""
    layer = get_channel_layer()
    if layer is None:
        return
    if isinstance(layer, InMemoryChannelLayer):
        if local_post is not None:  # only this process's sockets can hear it (none: nobody to tell)
            local_post(group, message)
    else:
        _sender().send(group, message)


class _Sender:
    """An event loop in a daemon thread, with a channel layer of its own, that sends group messages."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
        threading.Thread(target=self.loop.run_forever, name="ttr-notify", daemon=True).start()

    def send(self, group: str, message: dict[str, Any]) -> None:
        asyncio.run_coroutine_threadsafe(self._send(group, message), self.loop)  # not waited for

    async def _send(self, group: str, message: dict[str, Any]) -> None:
        try:
            await self.layer.group_send(group, message)
        except Exception:  # the log is the truth: the web processes' poll or a resync repairs a lost notice
            logger.exception("could not notify %s of %s", group, message)


_sender_lock = threading.Lock()
_the_sender: _Sender | None = None


def _sender() -> _Sender:
    global _the_sender
    with _sender_lock:
        if _the_sender is None or _the_sender.pid != os.getpid():  # a forked child needs its own thread
            _the_sender = _Sender()
        return _the_sender


def send(task: Task[..., Any], *args: str | int, queue: str | None = None) -> None:
    """Queue `task` (run inline when the app is eager, as in tests), on `queue` when given, else the default
    queue. Called after a commit: the sweeps (bots/tasks.py) find and queue again what a lost message left undone."""
    try:
        if queue:
            task.apply_async(args, queue=queue)
        else:
            task.apply_async(args)
    except Exception:
        logger.exception("could not queue %s%r", task.name, args)
