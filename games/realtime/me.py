"""`/ws/me/`: a person's own socket (docs/API.md, Playing by day): their notifications as they happen.

On connect: `hello` with how many notifications are unread and how many games wait for their move. Then a
`notification` message for each new row of their inbox, in order, once: the group `user.<id>` hears the new
row's id after its commit (games/people/inbox.py) and the socket reads the rows after its cursor from the database;
a poll every INBOX_POLL_SECONDS does the same, which is how a worker's notification arrives under the embedded
server (in-memory layer) and how a lost notice is repaired. Anonymous sockets are refused. The socket counts
among its person's (TTR_WS_PER_USER) and is under the other limits of games/realtime/limits.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from games.people import inbox
from games.people.models import Notification
from games.play import selectors
from games.realtime import socket_user
from games.realtime.hub import hub, layer_call, run_sync
from games.realtime.limits import LimitedSocket
from ttr_server import unavailable

logger = logging.getLogger(__name__)
CLOSE_UNAUTHORISED, CLOSE_TRY_AGAIN = 4401, 1013


class MeConsumer(LimitedSocket):
    async def connect(self) -> None:
        user = self.scope.get("user") or AnonymousUser()
        self.joined = False
        self.lock = asyncio.Lock()
        self.poller: asyncio.Task[None] | None = None
        await self.accept(socket_user.subprotocol(self.scope))
        problem = self.scope.get("auth_problem")  # set by games/realtime/socket_user.py
        if problem or not user.is_authenticated:
            detail = problem or "sign in (a session cookie or a token) to hear your notifications"
            await self._refuse({"code": "authentication_failed" if problem else "not_authenticated", "detail": detail})
            return
        self.user, self.user_id = user, int(user.pk)
        await self.count_person(self.user_id)
        self.group = inbox.user_group(self.user_id)
        await layer_call(self.channel_layer.group_add(self.group, self.channel_name), "listen")
        hub.add_person()
        self.joined = True
        try:
            self.cursor, hello = await run_sync(self._hello)
        except Exception as error:
            service = unavailable.which(error)
            if service is None:
                raise
            await self._refuse({"code": "unavailable", "detail": f"the {service} is unavailable"}, CLOSE_TRY_AGAIN)
            return
        await self._send({"type": "hello", **hello})
        self.poller = asyncio.get_running_loop().create_task(self._poll())

    def _hello(self) -> tuple[int, dict[str, Any]]:
        cursor = inbox.newest_id(self.user_id)  # first: a row written meanwhile is sent, never missed
        unread = Notification.objects.filter(user_id=self.user_id, read=False).count()
        return cursor, {"unread": unread, "your_turn": selectors.my_games(self.user).your_turn}

    async def _refuse(self, error: dict[str, Any], code: int = CLOSE_UNAUTHORISED) -> None:
        await self._send({"type": "error", "error": error})
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if self.poller is not None:
            self.poller.cancel()
        if not self.joined:
            return
        self.joined = False
        hub.remove_person()
        await layer_call(self.channel_layer.group_discard(self.group, self.channel_name), "stop listening")

    async def user_notified(self, message: dict[str, Any]) -> None:
        await self._pull()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        error = {"code": "invalid", "detail": "this socket only speaks: read your notifications with the API"}
        await self._send({"type": "error", "error": error})

    async def _poll(self) -> None:
        while self.joined:
            await asyncio.sleep(settings.INBOX_POLL_SECONDS)
            await self._pull()

    async def _pull(self) -> None:
        if not self.joined:
            return
        try:
            async with self.lock:
                rows, unread = await run_sync(self._new_rows)
                for row in rows:
                    await self._send({"type": "notification", **inbox.as_json(row), "unread": unread})
                    self.cursor = row.pk
        except Exception as error:
            if not self.joined or isinstance(error, OSError):
                return
            if unavailable.which(error) is None:
                logger.exception("could not send notifications to a person's socket")

    def _new_rows(self) -> tuple[list[Notification], int]:
        rows = inbox.rows_after(self.user_id, after=self.cursor)
        unread = Notification.objects.filter(user_id=self.user_id, read=False).count() if rows else 0
        return rows, unread

    async def _send(self, message: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(message, separators=(",", ":")))
