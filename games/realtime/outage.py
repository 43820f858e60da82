"""A socket whose handshake meets a dependency that is down (the database, Redis) closes with 1013, never a 500.

`closing_when_unavailable(app)` wraps the WebSocket application (ttr_server/asgi.py). What the consumers can
foresee they answer themselves (`unavailable` then close 1013); this is for what fails before a consumer can
speak: the channel layer's subscription for the socket (Redis), the token or session lookup (the database).
Such a failure (ttr_server/unavailable.py names it) is logged as one warning line without a traceback, and the
socket is accepted (with our subprotocol when the client offered it) and closed with 1013, "try again later",
so the client reconnects as it would after a restart. Any other error still reaches the server as it is.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from games.realtime import socket_user
from ttr_server import unavailable

logger = logging.getLogger(__name__)
CLOSE_TRY_AGAIN = 1013  # RFC 6455: try again later
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Message, Receive, Send], Awaitable[None]]


def closing_when_unavailable(app: App) -> App:
    async def guarded(scope: Message, receive: Receive, send: Send) -> None:
        said = {"accepted": False, "closed": False}

        async def watched(message: Message) -> None:
            said["accepted"] = said["accepted"] or message["type"] == "websocket.accept"
            said["closed"] = said["closed"] or message["type"] == "websocket.close"
            await send(message)

        try:
            await app(scope, receive, watched)
        except Exception as error:
            service = unavailable.which(error)
            if service is None or said["closed"]:
                raise
            logger.warning("a socket closed 1013: the %s is unavailable (%s)", service, type(error).__name__)
            try:
                if not said["accepted"]:
                    await send({"type": "websocket.accept", "subprotocol": socket_user.subprotocol(scope)})
                error_message = {"type": "error", "error": unavailable.body(service)}
                await send({"type": "websocket.send", "text": json.dumps(error_message)})
                await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})
            except OSError:
                pass  # the client is gone already

    return guarded
