"""What one socket, and one person's sockets, may make the server do (docs/API.md, WebSocket; settings TTR_WS_*).

`LimitedSocket` is the base of both consumers (/ws/games/, /ws/me/). It stands between the consumer and the ASGI
server: each message the client sends takes a token from a bucket (`Budget`: TTR_WS_MESSAGES_PER_SECOND, bursts
of TTR_WS_BURST); a message with no token left is answered `rate_limited` (429) and not handed to the consumer,
and a client that goes on sending another burst's worth regardless is closed with 4029. What the consumer sends
goes out through an `Outbox`, which waits on the client in a task of its own and holds at most
TTR_WS_OUTBOUND_LIMIT bytes for it: a client that does not read is dropped rather than buffered for. A signed-in
person has at most TTR_WS_PER_USER sockets open across both paths (games/realtime/people.py): opening one more
closes the oldest with 4008, whichever web process holds it (a `socket.evict` message on its channel).
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from games.realtime import people
from ttr_server import unavailable

if TYPE_CHECKING:
    from asgiref.typing import ASGIReceiveCallable, ASGISendCallable
    from channels.consumer import _ChannelScope

logger = logging.getLogger(__name__)
CLOSE_TOO_MANY_SOCKETS, CLOSE_TOO_MANY_MESSAGES = 4008, 4029
CLOSE_SECONDS = 10.0  # how long a close waits behind what the client has not read before the socket is dropped
Message = Any  # an ASGI event (the consumer's and the server's TypedDicts, as dicts)
Send = Callable[[Message], Awaitable[None]]
Receive = Callable[[], Awaitable[Message]]


class Budget:
    """A token bucket: `rate` tokens a second up to `burst`. `take()` says whether a message may be served (a
    token taken), refused (the bucket is empty: the refusal is owed, down to minus a burst) or is abuse (the
    client went on sending a whole burst past the refusals)."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = float(burst), time.monotonic()

    def take(self) -> str:
        now = time.monotonic()
        self.tokens, self.at = min(self.burst, self.tokens + (now - self.at) * self.rate), now
        self.tokens -= 1
        if self.tokens >= 0:
            return "served"
        return "refused" if self.tokens >= -self.burst else "abuse"


class Outbox:
    """The socket's ASGI `send`, with the client's pace taken off the consumer: messages queue here and a task
    hands them to the server one at a time (the server's own send waits while the connection's write buffer is
    full). More than `limit` bytes waiting (a lone message of any size is let through) means the client does
    not read: everything waiting is dropped, nothing more is queued, and `on_full` ends the socket. After a
    close nothing more goes out; a close stuck behind unread messages for CLOSE_SECONDS ends it too."""

    def __init__(self, send: Send, limit: int, on_full: Callable[[], None]) -> None:
        self.server_send, self.limit, self.on_full = send, limit, on_full
        self.waiting: collections.deque[tuple[Message, int]] = collections.deque()
        self.bytes = 0
        self.closed = False
        self.writer: asyncio.Task[None] | None = None

    async def send(self, message: Message) -> None:
        if message["type"] not in ("websocket.send", "websocket.close"):
            await self.server_send(message)  # the handshake's answer: before anything else, nothing waits
            return
        if self.closed:
            return
        size = len(message.get("text") or message.get("bytes") or "")
        if self.waiting and self.bytes + size > self.limit:
            self.give_up("the client does not read: %d bytes wait for it", self.bytes + size)
            return
        self.waiting.append((message, size))
        self.bytes += size
        if message["type"] == "websocket.close":
            self.closed = True
            asyncio.get_running_loop().call_later(CLOSE_SECONDS, self._close_overdue)
        if self.writer is None or self.writer.done():
            self.writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        while self.waiting:
            message, size = self.waiting[0]
            try:
                await self.server_send(message)
            except OSError:  # the client went away (uvicorn's ClientDisconnected): nobody to send the rest to
                self.closed = True
                self.waiting.clear()
                return
            self.waiting.popleft()
            self.bytes -= size

    def _close_overdue(self) -> None:
        if self.waiting:
            self.give_up("the client did not read up to the close in %d s", int(CLOSE_SECONDS))

    def give_up(self, why: str, *args: Any) -> None:
        logger.info("socket dropped: " + why, *args)
        self.closed = True
        self.waiting.clear()
        self.bytes = 0
        if self.writer is not None:
            self.writer.cancel()  # (the server's send waits for room in its buffer: nothing half-written)
        self.on_full()

    async def flush(self) -> None:
        """Let what waits go out (the close among it) before the connection is handed back to the server."""
        if self.writer is not None and not self.writer.done():
            try:
                await asyncio.wait_for(asyncio.shield(self.writer), CLOSE_SECONDS)
            except TimeoutError:
                self.writer.cancel()


class LimitedSocket(AsyncWebsocketConsumer):
    """A consumer under the limits of the module docstring. Subclasses call `count_person(user_id)` once the
    person is known (and the socket accepted)."""

    async def __call__(self, scope: _ChannelScope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        self.ended, self.end_code = asyncio.Event(), 1000
        self.budget = Budget(settings.TTR_WS_MESSAGES_PER_SECOND, settings.TTR_WS_BURST)
        self.outbox = Outbox(send, settings.TTR_WS_OUTBOUND_LIMIT, lambda: self.end(1006))
        self.person_id: int | None = None
        try:
            await super().__call__(scope, self._limited(receive), self.outbox.send)
        finally:
            if self.person_id is not None:
                await people.leave(self.person_id, self.channel_name)
            await self.outbox.flush()

    def end(self, code: int) -> None:
        """Stop serving this socket: the consumer hears a disconnect with `code` and cleans up as for any other."""
        self.end_code = code
        self.ended.set()

    def _limited(self, receive: Receive) -> Receive:
        async def limited() -> Message:
            while True:
                message = await self._next(receive)
                if message["type"] != "websocket.receive":
                    return message
                verdict = self.budget.take()
                if verdict == "served":
                    return message
                if verdict == "abuse":
                    await self.outbox.send({"type": "websocket.close", "code": CLOSE_TOO_MANY_MESSAGES})
                    return {"type": "websocket.disconnect", "code": CLOSE_TOO_MANY_MESSAGES}
                await self.outbox.send({"type": "websocket.send", "text": _rate_limited()})

        return limited

    async def _next(self, receive: Receive) -> Message:
        """The client's next message, or a disconnect once the socket was ended from here."""
        if self.ended.is_set():
            return {"type": "websocket.disconnect", "code": self.end_code}
        received, ended = asyncio.ensure_future(receive()), asyncio.ensure_future(self.ended.wait())
        try:
            await asyncio.wait((received, ended), return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
            if not received.done():
                received.cancel()  # (the server's queue keeps the message for no one: the socket ends)
        return received.result() if received.done() else {"type": "websocket.disconnect", "code": self.end_code}

    async def count_person(self, user_id: int) -> None:
        """Count this socket among its person's; close their oldest beyond TTR_WS_PER_USER (4008)."""
        self.person_id = user_id
        for channel in await people.arrive(user_id, self.channel_name):
            try:
                await self.channel_layer.send(channel, {"type": "socket.evict"})
            except Exception as error:
                if unavailable.which(error) is None:
                    raise
                logger.warning("could not close a socket beyond a person's limit: the channel layer is unavailable")

    async def socket_evict(self, message: Message) -> None:
        """A newer socket of the same person opened past the limit: this one, the oldest, goes."""
        await self.outbox.send({"type": "websocket.close", "code": CLOSE_TOO_MANY_SOCKETS})
        self.end(CLOSE_TOO_MANY_SOCKETS)


def _rate_limited() -> str:
    rate, burst = settings.TTR_WS_MESSAGES_PER_SECOND, settings.TTR_WS_BURST
    detail = f"more than {rate:g} messages a second (bursts of {burst}) on this socket; go on and it is closed (4029)"
    body = {"type": "error", "status": 429, "error": {"code": "rate_limited", "detail": detail}}
    return json.dumps(body, separators=(",", ":"))
