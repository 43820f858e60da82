"""A consumer's messages handed to their handlers without Channels' `aclose_old_connections()` first
(`socket_dispatch`).

Channels' `AsyncConsumer.dispatch` (4.3) runs `close_old_connections` before every message to every consumer, in the
one thread that Django's thread-sensitive sync code shares: with hundreds of sockets each notice queued behind the
other sockets' hops. The game consumer never touches the database from that thread (its reads run in pool threads
that close their connections themselves: games/realtime/hub.py `run_sync`), so there is nothing to close there.
This is Channels' `dispatch` without that line.
"""

from __future__ import annotations

from typing import Any

from channels.consumer import AsyncConsumer, get_handler_name

from ttr_server import overrides


class QuickDispatch(AsyncConsumer):
    """Put first among a consumer's bases (before Channels' consumer classes)."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        if not overrides.enabled("socket_dispatch"):
            await super().dispatch(message)
            return
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)
