"""This process's game sockets, by game: the seq poll that no commit can slip past, and presence upkeep.

A commit's notice reaches the sockets through the channel layer (games/store/notify.py). The hub also asks the
database for the seq of every game this process has a socket open for, every `REALTIME_POLL_SECONDS`, and
wakes the sockets of a game that moved: under the embedded server (in-memory layer) that is how a move made by
the separate Celery worker reaches the sockets (every 50 ms: one indexed query for all of them), and with Redis
it repairs a notice lost on the way (every second). It runs only while this process has a socket open. It
also renews the presence entries of this process's sockets (games/table/presence.py) and announces any change.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ParamSpec, Protocol, TypeVar

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from games.clocks import turn_clocks
from games.play import selectors
from games.store import event_log, notify, states
from games.store.models import Event, Game
from games.store.notify import group_name
from games.table import presence
from ttr_server import metrics, unavailable

logger = logging.getLogger(__name__)


class Socket(Protocol):
    game_id: str
    seat: int | None
    channel_name: str

    def wake(self, seq: int) -> None: ...

    async def presence_changed(self, message: dict[str, Any]) -> None: ...

    async def chat_changed(self, message: dict[str, Any]) -> None: ...


_P = ParamSpec("_P")
_R = TypeVar("_R")


def run_sync(function: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> Awaitable[_R]:
    """Run sync (database) code with Channels' `database_sync_to_async` (Django's connections closed before and
    after: a pooled one goes back to the pool) in a thread of the loop's pool, not thread-sensitive: the sockets'
    reads do not queue behind one another in one thread."""
    return database_sync_to_async(function, thread_sensitive=False)(*args, **kwargs)


@dataclass
class Feed:
    """A game's rows as last read from the log, shared by this process's sockets of that game: when a move is
    announced, the first socket to pull reads the database and the others find the rows already read."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    game: Game | None = None  # the game row (with its seats) as of the last read
    rows: list[Event] = field(default_factory=list)  # the rows after `after`, up to game.seq
    after: int = 0
    deadline: str | None = None  # when the decision open at game.seq times out (a game with a clock)


@dataclass(frozen=True)
class Appended:
    """What a move made in this process appended: its game row (moved to the new seq by the append), the rows
    after `after`, and the deadline of the decision it opened."""

    game: Game
    rows: list[Event]
    after: int
    deadline: str | None


@dataclass
class Listening:
    """The hub's own channel on the layer, in the groups of the games it serves sockets of: a game's notice
    reaches this process once, and the hub wakes the game's sockets here (not one channel message per socket)."""

    channel: str
    receiver: asyncio.Task[None]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one group change at a time: an add and a discard never cross
    games: set[str] = field(default_factory=set)  # the games whose group the channel is in


class Hub:
    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.games: dict[str, set[Socket]] = {}
        self.task: asyncio.Task[None] | None = None
        self.feeds: dict[str, Feed] = {}
        self.people = 0  # open person sockets (/ws/me/, games/realtime/me.py)
        self.listening: Listening | None = None
        self.tasks: set[asyncio.Task[None]] = set()  # presence sends under way (kept referenced until done)

    async def read(self, game_id: str, after: int, fresh_from: int | None) -> tuple[Game, list[Event], str | None]:
        """The game, its rows after `after` and its current decision's deadline (ISO-8601, or None). The rows
        last read for this game serve when they start at or before `after` and reach `fresh_from` (a seq the
        caller knows the game has reached); otherwise, or with None, the database is read (and what it gave is
        kept for the game's other sockets)."""
        feed = self.feeds.setdefault(game_id, Feed())
        async with feed.lock:
            fresh = feed.game is not None and fresh_from is not None and feed.game.seq >= fresh_from
            if not (fresh and feed.after <= after):
                feed.game, feed.rows, feed.deadline = await run_sync(_read, game_id, after)
                feed.after = after
            assert feed.game is not None
            return feed.game, [row for row in feed.rows if row.seq > after], feed.deadline

    def prime(self, game_id: str, appended: Appended) -> None:
        """Keep what a move made through this process appended as the game's last read, so that the game's
        sockets here send it without reading the database (unless a read is under way, or newer)."""
        feed = self.feeds.get(game_id)
        if feed is None or feed.lock.locked() or (feed.game is not None and feed.game.seq >= appended.game.seq):
            return
        feed.game, feed.rows, feed.after, feed.deadline = appended.game, appended.rows, appended.after, appended.deadline

    def game_at(self, game_id: str, seq: int) -> Game | None:
        """A copy of the game row last read here (or left by a move made here), if it is at `seq`: a socket's move
        at that seq needs no read of its own, as the append checks the seq again (a stale one still gets
        `stale_seq` with the database's seq). Every change to a game in play moves its seq (a resignation, a
        timeout and the end are events), so a row at the move's seq is the row as it stands."""
        feed = self.feeds.get(game_id)
        game = feed.game if feed is not None else None
        return copy.copy(game) if game is not None and game.seq == seq else None

    async def join(self, socket: Socket) -> None:
        """Serve `socket`, and listen to its game's group if this process did not yet. Returns once the group is
        heard (or Redis said it is down: the poll serves meanwhile), so a move committed after is never missed."""
        self.add(socket)
        layer = get_channel_layer()
        if layer is None:
            return
        listening = await self._listening(layer)
        async with listening.lock:
            if socket.game_id in listening.games or socket.game_id not in self.games:
                return
            await layer_call(layer.group_add(group_name(socket.game_id), listening.channel), "listen")
            listening.games.add(socket.game_id)

    def leave(self, socket: Socket) -> None:
        """Stop serving `socket`; the game's last socket here stops the listening to its group."""
        self.remove(socket)
        if socket.game_id not in self.games and self.listening is not None:
            self._keep(asyncio.get_running_loop().create_task(self._unlisten(self.listening, socket.game_id)))

    async def _unlisten(self, listening: Listening, game_id: str) -> None:
        layer = get_channel_layer()
        async with listening.lock:
            if game_id in self.games or game_id not in listening.games or layer is None:
                return  # a socket of the game came back meanwhile, or it was never heard
            listening.games.discard(game_id)
            await layer_call(layer.group_discard(group_name(game_id), listening.channel), "stop listening")

    async def _listening(self, layer: Any) -> Listening:
        """This loop's channel and its receiver (made again on a new loop: tests run several)."""
        loop = asyncio.get_running_loop()
        listening = self.listening
        if listening is None or listening.receiver.done() or listening.receiver.get_loop() is not loop:
            channel = await layer.new_channel("hub.")
            listening = self.listening = Listening(channel, loop.create_task(self._receive(layer, channel)))
        return listening

    async def _receive(self, layer: Any, channel: str) -> None:
        while True:
            try:
                message = await layer.receive(channel)
            except Exception as error:  # Redis down: the layer subscribes again by itself; the poll serves meanwhile
                if unavailable.which(error) is None:
                    logger.exception("the hub's channel failed")
                await asyncio.sleep(1)
                continue
            self.deliver(message)

    def deliver(self, message: dict[str, Any]) -> None:
        """A message of a game's group, to this process's sockets of the game."""
        game_id = str(message.get("game"))
        if message.get("type") == "game.moved":
            self.wake(game_id, int(message["seq"]))
        elif message.get("type") == "presence.changed":
            for socket in list(self.games.get(game_id, ())):
                self._keep(asyncio.get_running_loop().create_task(socket.presence_changed(message)))
        elif message.get("type") in ("chat.posted", "chat.hidden"):  # a message's id (games/table/chat.py), never its text
            for socket in list(self.games.get(game_id, ())):
                self._keep(asyncio.get_running_loop().create_task(socket.chat_changed(message)))

    def _keep(self, task: asyncio.Task[None]) -> None:
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def add(self, socket: Socket) -> None:
        self.loop = asyncio.get_running_loop()
        self.games.setdefault(socket.game_id, set()).add(socket)
        metrics.OPEN_SOCKETS.inc()
        if self.task is None or self.task.done() or self.task.get_loop() is not self.loop:
            self.task = self.loop.create_task(self._watch())

    def add_person(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.people += 1

    def remove_person(self) -> None:
        self.people -= 1

    def remove(self, socket: Socket) -> None:
        sockets = self.games.get(socket.game_id, set())
        if socket in sockets:
            metrics.OPEN_SOCKETS.dec()
        sockets.discard(socket)
        if not sockets:
            self.games.pop(socket.game_id, None)
            self.feeds.pop(socket.game_id, None)

    def wake(self, game_id: str, seq: int) -> None:
        for socket in list(self.games.get(game_id, ())):
            socket.wake(seq)

    async def _watch(self) -> None:
        renewed = time.monotonic()
        while self.games:
            await asyncio.sleep(settings.REALTIME_POLL_SECONDS)
            try:
                for game_id, seq in (await run_sync(_seqs, list(self.games))).items():
                    self.wake(game_id, seq)
                if time.monotonic() - renewed > presence.RENEW_SECONDS:
                    renewed = time.monotonic()
                    await self._renew()
            except Exception:  # keep watching: the next round may work
                logger.exception("the realtime poll failed")

    async def _renew(self) -> None:
        for sockets in list(self.games.values()):
            for socket in list(sockets):
                if socket.seat is not None:
                    change = await presence.renew(socket.game_id, socket.seat, socket.channel_name)
                    await announce(socket.game_id, change)


def _read(game_id: str, after: int) -> tuple[Game, list[Event], str | None]:
    game = selectors.game_row(game_id)
    return game, list(event_log.rows_between(game.pk, after, game.seq)), deadline_of(game)


def deadline_of(game: Game) -> str | None:
    """The deadline (ISO-8601) of the decision open at the game's seq; None without a clock or a decision."""
    deadline = turn_clocks.deadline(game, states.state_at(game.pk, game.seq)) if turn_clocks.has_clock(game) else None
    return deadline.isoformat() if deadline else None


def _seqs(game_ids: list[str]) -> dict[str, int]:
    return {str(pk): seq for pk, seq in Game.objects.filter(pk__in=game_ids).values_list("pk", "seq")}


async def announce(game_id: str, change: presence.Change) -> None:
    """Tell the game's sockets (every process's) the seats present now, if that changed: public, no secret."""
    layer = get_channel_layer() if change.changed else None
    if layer is not None:
        message = {"type": "presence.changed", "game": game_id, "seats": change.seats, "version": change.version}
        await layer_call(layer.group_send(group_name(game_id), message), "announce presence")


async def layer_call(call: Awaitable[None], what: str) -> None:
    """Await a channel layer call; while Redis is down, say so in one line and go on. The seq poll keeps the
    sockets fed meanwhile, and the layer subscribes again by itself once Redis is back."""
    try:
        await call
    except Exception as error:
        service = unavailable.which(error)
        if service is None:
            raise
        logger.warning("could not %s: the %s is unavailable (%s)", what, service, type(error).__name__)


hub = Hub()


def post(group: str, message: dict[str, Any]) -> None:
    """Send a group message on the loop that serves this process's sockets (from any thread; returns at once).
    For the in-memory channel layer, which only this process's sockets can hear: none open, nothing to do."""
    loop, layer = hub.loop, get_channel_layer()
    if loop is None or loop.is_closed() or not (hub.games or hub.people) or layer is None:
        return

    def send() -> None:
        loop.create_task(layer.group_send(group, message))

    loop.call_soon_threadsafe(send)


notify.local_post = post  # the in-memory layer's notices reach this process's sockets through here
