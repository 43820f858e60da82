"""`/ws/games/{id}/`: one game's live stream for one viewer (docs/API.md, WebSocket).

On connect: `hello` with the state as the viewer may see it, its seq and the seats present. Then, whenever the
hub hears a new seq from the game's group (or its poll sees one), the socket reads the events after its own cursor
from the database (read once for all of this process's sockets of the game, games/realtime/hub.py), projected
for its own user as /events projects them (games.store.viewers.projected), and sends them as one `events` message (with
`deadline`, the clock of the decision now open, when the game has a clock): in seq order, no gap, no
duplicate, because one lock orders every send of events and the cursor only moves forward with what was sent.
A client's `move` goes through the same service as POST /moves and is answered with `move_result` (the HTTP
error body when refused); its events come first, as for everyone else.
`resync` answers the events after the seq the client names (one resync at a time: those asked meanwhile are
answered together, once, after it). `chat` writes a line of table talk (games/table/chat.py);
each new line reaches every socket of the game that may read it as a `chat` message, in order (the socket reads
the lines after its own chat cursor when the group says one was posted), and a line staff hid as `chat_hidden`.
Nothing a client sends can crash the socket: what
cannot be read gets an `error` message and changes nothing. An anonymous socket watches and never moves.
The limits on messages, unread output and sockets per person are games/realtime/limits.py's.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import close_old_connections

from games.api.authentication import signed_in
from games.api.serializers import MoveRequest
from games.api.typed_json import to_json
from games.clocks import turn_clocks
from games.engine.codec import move_from_dict
from games.play import moves, selectors, services
from games.play.shapes import GameState
from games.realtime import messages, socket_user
from games.realtime.hub import Appended, announce, deadline_of, hub, run_sync
from games.realtime.limits import LimitedSocket
from games.store import event_log, viewers
from games.store.models import Game
from games.store.service_error import ServiceError
from games.table import chat, presence
from ttr_server import json_logs, metrics, unavailable

logger = logging.getLogger(__name__)
CLOSE_UNAUTHORISED, CLOSE_NOT_FOUND = 4401, 4404
CLOSE_TRY_AGAIN = 1013  # RFC 6455: the database is briefly unavailable


class GameConsumer(LimitedSocket):
    game_id: str
    user: AbstractBaseUser | AnonymousUser
    seat: int | None = None
    presence_sent: list[int] | None

    async def connect(self) -> None:
        self.game_id = self.scope["url_route"]["kwargs"]["game_id"]
        self.user = self.scope.get("user") or AnonymousUser()
        self.cursor = self.wanted = 0  # the last seq sent; the last seq the game is known to have reached
        self.chat_cursor = 0  # the last chat message id this socket has looked at
        self.lock = asyncio.Lock()
        self.pulling: asyncio.Task[None] | None = None
        self.resyncing: asyncio.Task[None] | None = None
        self.resync_from: int | None = None  # the smallest `after` of the resyncs asked and not yet answered
        self.joined = False
        self.presence_version, self.presence_sent = -1, None
        json_logs.bind(game=self.game_id, user=self.user.get_username() or None)  # on every line about this socket
        await self.accept(socket_user.subprotocol(self.scope))  # `ttr.v1` when offered, beside the token
        if problem := self.scope.get("auth_problem"):  # set by games/realtime/socket_user.py
            await self.refuse({"code": "authentication_failed", "detail": str(problem)}, CLOSE_UNAUTHORISED)
            return
        if self.user.is_authenticated:
            await self.count_person(int(self.user.pk))
        async with self.lock:
            try:
                state = await self._join()
            except ServiceError as error:
                await self.refuse(messages.error_body(error)[1], CLOSE_NOT_FOUND)
                return
            except Exception as error:
                if unavailable.which(error) is None:
                    raise
                await self.refuse(messages.error_body(error)[1], CLOSE_TRY_AGAIN)  # the client reconnects
                return
            self.cursor = self.wanted = max(self.wanted, state["seq"])
            self.presence_sent = state["presence"]
            await self.send_json(
                {
                    "type": "hello", "seq": state["seq"], "status": state["status"], "state": state["view"],
                    "presence": state["presence"],
                }
            )
        self.wake(self.wanted)

    async def _join(self) -> dict[str, Any]:
        """Find the user's seat, listen to the game, say the seat is present; the state as the user may see it."""
        self.seat = await run_sync(self._seat)
        # Listen before reading the state: a move committed meanwhile is then heard, never missed.
        await hub.join(self)
        self.joined = True
        self.chat_cursor = await run_sync(chat.last_id, self.game_id)  # what came before: GET /chat
        if self.seat is not None:
            await announce(self.game_id, await presence.arrive(self.game_id, self.seat, self.channel_name))
        state: dict[str, Any] = await run_sync(self._state)
        return state

    def _state(self) -> dict[str, Any]:
        def read() -> GameState:
            state = selectors.game_state(selectors.game_row(self.game_id), user=self.user)
            services.mark_seen(self.game_id, seat=self.seat, seq=state.seq)
            return state

        return dict(to_json(unavailable.once_more_if_cut(read)))  # the `hello`'s seq, status, view and presence

    def _seat(self) -> int | None:
        return unavailable.once_more_if_cut(lambda: viewers.seat_of(selectors.game_row(self.game_id), self.user))

    async def refuse(self, error: dict[str, Any], code: int) -> None:
        await self.send_json({"type": "error", "error": error})
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if not self.joined:
            return
        self.joined = False
        hub.leave(self)
        if self.seat is not None and self.cursor:  # what the player saw here counts as seen (/api/me/games)
            try:
                await run_sync(services.mark_seen, self.game_id, seat=self.seat, seq=self.cursor)
            except Exception as error:
                if unavailable.which(error) is None:
                    raise
        if self.seat is not None:
            await announce(self.game_id, await presence.leave(self.game_id, self.seat, self.channel_name))

    # from the game's group, through the hub: (game, seq) and presence, never a secret

    async def presence_changed(self, message: dict[str, Any]) -> None:
        async with self.lock:  # after the hello (which holds the lock until it is sent) and between pushes
            if message["version"] <= self.presence_version or not self.joined:
                return  # an older change, overtaken on the way; or the socket is closing
            self.presence_version = message["version"]
            if message["seats"] != self.presence_sent:
                self.presence_sent = message["seats"]
                await self.send_json({"type": "presence", "seats": message["seats"]})

    async def chat_changed(self, message: dict[str, Any]) -> None:
        """A chat line was posted (send every line after this socket's chat cursor up to it that its viewer may
        read, in order) or hidden (say so: its id only)."""
        async with self.lock:
            if not self.joined:
                return
            if message["type"] == "chat.hidden":
                await self.send_json({"type": "chat_hidden", "id": message["id"]})
                return
            upto = int(message["id"])
            if upto <= self.chat_cursor:
                return
            lines = await run_sync(self._chat_lines, self.chat_cursor, upto)
            self.chat_cursor = upto
            for line in lines:
                await self.send_json({"type": "chat", **to_json(line)})

    def _chat_lines(self, after: int, upto: int) -> list[chat.Line]:
        return chat.visible(selectors.game_row(self.game_id), viewer=self.user, after=after, upto=upto)

    # events: pulled from the database after the cursor, one pull at a time

    def wake(self, seq: int) -> None:
        self.wanted = max(self.wanted, seq)
        if self.joined and self.wanted > self.cursor and (self.pulling is None or self.pulling.done()):
            self.pulling = asyncio.get_running_loop().create_task(self._catch_up())

    async def _catch_up(self) -> None:
        try:
            while self.joined and self.cursor < self.wanted:
                async with self.lock:
                    if not await self._send_events_after(self.cursor):
                        return  # nothing newer in the database (yet): the next notice or poll wakes us
        except Exception as error:
            if not self.joined or isinstance(error, OSError):  # the client went away meanwhile: nothing to tell
                logger.debug("a socket of game %s closed while events were sent to it", self.game_id)
                return
            if (service := unavailable.which(error)) is not None:  # the next notice or poll tries again
                logger.warning("events not sent to a socket: the %s is unavailable", service)
                return
            logger.exception("could not send events to a socket of game %s", self.game_id)

    async def _send_events_after(self, after: int, *, resync: bool = False) -> bool:
        """Send the events after `after` up to the game's seq as read (a push sends nothing when there are none).

        The rows come from the database through the hub, which reads them once for all of this process's
        sockets of the game (a resync always reads); each socket projects them for its own user."""
        game, rows, deadline = await hub.read(self.game_id, after, None if resync else self.wanted)
        seat, finished = viewers.seat_of(game, self.user), game.status == Game.Status.FINISHED
        if self.seat is None and seat is not None:  # a watcher who has taken a seat since: present from now
            self.seat = seat
            await announce(self.game_id, await presence.arrive(self.game_id, seat, self.channel_name))
        events = viewers.projected_text(rows, seat=seat, finished=finished)
        if not events and not resync:
            return False
        after_events: dict[str, Any] = {}
        if turn_clocks.has_clock(game):
            after_events["deadline"] = deadline  # the clock of the decision open now (None: nobody decides)
        if resync:
            after_events["resync"] = True  # the answer to a resync, which a client can tell from a push before it
        await self.send(text_data=events_message(game.seq, events, after_events))
        self.cursor = game.seq
        return True

    # what the client sends

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            message = messages.parse(text_data, bytes_data)
            if message["type"] == "move":
                await self.move(message)
            elif message["type"] == "chat":
                await run_sync(self._post_chat, message)
            else:
                self.ask_resync(messages.resync_after(message))
        except messages.Refused as refused:
            await self.send_json({"type": "error", "status": refused.status, "error": refused.body})
        except Exception as error:  # a bug, or the database gone meanwhile (503): say so, keep the socket
            status, body = messages.error_body(error)
            await self.send_json({"type": "error", "status": status, "error": body})

    async def move(self, message: dict[str, Any]) -> None:
        try:
            request = messages.move_request(message)
        except messages.Refused as refused:
            await self.send_json(_refused_move(refused))
            return
        result, appended = await run_sync(self._play, request)
        if appended is not None:
            hub.prime(self.game_id, appended)  # this process's sockets of the game take the rows from here
        if result["ok"]:  # the game's sockets here (this one too) send it now, not when the notice comes back
            hub.wake(self.game_id, result["seq"])
            async with self.lock:  # the mover's events before its result, as everyone else's
                if self.cursor < result["seq"]:
                    await self._send_events_after(self.cursor)
        await self.send_json(result)

    def _play(self, request: MoveRequest) -> tuple[dict[str, Any], Appended | None]:
        """The `move_result` answer, and what the move appended (None when refused, or when it ended the game:
        the sockets then read the finished game from the database)."""
        try:
            played, game = self._try_play(request)
        except Exception as error:
            if unavailable.which(error) != "database":
                return _refused_move(messages.refused(error)), None
            close_old_connections()  # a connection cut under the move: once more on a fresh one (as over HTTP)
            try:
                played, game = self._try_play(request)
            except Exception as again:
                return _refused_move(messages.refused(again)), None
        appended = None if played.finished else Appended(game, list(played.rows), request.expected_seq, deadline_of(game))
        return {"type": "move_result", "ok": True, "seq": played.seq}, appended

    def _try_play(self, request: MoveRequest) -> tuple[moves.Played, Game]:
        user = signed_in(self.user)  # an anonymous socket watches: NotAuthenticated
        # the row this process last read or appended, when it is at the move's seq (hub.game_at); else a read
        game = hub.game_at(self.game_id, request.expected_seq) or selectors.game_row(self.game_id)
        with metrics.moves_via("socket"):
            played = services.game_play(
                game, user=user, expected_seq=request.expected_seq, move=move_from_dict(request.move)
            )
        return played, game

    def _post_chat(self, message: dict[str, Any]) -> None:
        """Write a chat line (every socket of the game, this one too, then sends it); raises what refuses it."""
        user = signed_in(self.user)  # an anonymous socket reads and never writes: NotAuthenticated
        unknown = set(message) - {"type", "text", "channel"}
        if unknown:
            raise ServiceError("invalid", f"a chat message has text and channel only: {min(unknown)}?", field=min(unknown))
        chat.post(selectors.game_row(self.game_id), user=user, text=message.get("text"), channel=message.get("channel"))

    def ask_resync(self, after: int) -> None:
        """At most one resync in flight: those asked while one is read and sent are answered together, once, by
        one more (from the smallest seq they named), never each on its own (a client cannot pile them up)."""
        self.resync_from = after if self.resync_from is None else min(self.resync_from, after)
        if self.resyncing is None or self.resyncing.done():
            self.resyncing = asyncio.get_running_loop().create_task(self._resyncs())

    async def _resyncs(self) -> None:
        while self.resync_from is not None and self.joined:
            after, self.resync_from = self.resync_from, None
            try:
                async with self.lock:
                    await self._send_events_after(after, resync=True)
            except Exception as error:  # the database gone meanwhile (503), or a bug: say so, keep the socket
                status, body = messages.error_body(error)
                await self.send_json({"type": "error", "status": status, "error": body})

    async def send_json(self, message: dict[str, Any]) -> None:
        await self.send(text_data=event_log.compact_json(message))


def events_message(seq: int, events: list[str], after_events: dict[str, Any]) -> str:
    """The text of `{"type": "events", "seq": seq, "events": [...], **after_events}` as `send_json` writes it,
    from each event's text (shared by the game's sockets that see the whole event: encoded once, not per socket)."""
    text = f'{{"type":"events","seq":{seq},"events":[{",".join(events)}]'
    for key, value in after_events.items():
        text += f",{event_log.compact_json(key)}:{event_log.compact_json(value)}"
    return text + "}"


def _refused_move(refused: messages.Refused) -> dict[str, Any]:
    return {"type": "move_result", "ok": False, "status": refused.status, "error": refused.body}


class NoSuchPath(AsyncWebsocketConsumer):
    """Any other WebSocket path: say so and close (the router would otherwise fail the handshake with a 500)."""

    async def connect(self) -> None:
        await self.accept(socket_user.subprotocol(self.scope))
        await self.send(text_data=json.dumps({"type": "error", "error": {"code": "not_found", "detail": "no such path"}}))
        await self.close(code=CLOSE_NOT_FOUND)
