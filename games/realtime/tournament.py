"""`/ws/tournaments/{id}/`: a tournament's live status, standings and tables, for anyone (docs/API.md, WebSocket).

On connect: `status` (`status`, `round`, `players`, `next_round_at`), `standings` and `tables` (`round`: a Swiss's
round under way, null for an arena's every table), the same JSON as GET /api/tournaments/{id} and its /tables give
(games/tournaments/reading.py). Then, whenever the tournament's group (games/tournaments/notices.py) hears that it
changed, the socket reads it again and sends, in that order, those of the three that changed. Nothing in them is
anyone's own: a signed-in watcher reads their part (joined, my game) over HTTP.

A notice can be lost, and under the embedded server (in-memory layer) a worker's never arrives: `Watching` keeps
this process's tournament sockets by tournament and, every REALTIME_POLL_SECONDS while one is open, reads the seq
and next round of all their tournaments in one query, waking the sockets of a tournament whose values moved (the
game sockets' seq poll, games/realtime/hub.py, for tournaments). The read is shared: the sockets of a tournament
woken together take the texts one read made, as long as that read began after they were woken.
The socket is under the limits of games/realtime/limits.py (counted among its person's when signed in); a bad
token closes 4401, an unknown tournament 4404, a database that is down 1013, as a game's socket does.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from games.api.typed_json import to_json
from games.realtime import socket_user
from games.realtime.consumer import CLOSE_NOT_FOUND, CLOSE_TRY_AGAIN, CLOSE_UNAUTHORISED
from games.realtime.hub import layer_call, run_sync
from games.realtime.limits import LimitedSocket
from games.store.event_log import compact_json
from games.tournaments import reading
from games.tournaments.models import Tournament
from games.tournaments.notices import group_name
from ttr_server import json_logs, unavailable

logger = logging.getLogger(__name__)
KINDS = ("status", "standings", "tables")  # the messages, in the order they are sent
NOT_FOUND = {"code": "not_found", "detail": "no such tournament"}
Version = tuple[int, datetime | None]  # what moves when the messages change: the log's seq, a daily Swiss's next round


@dataclass(frozen=True)
class Read:
    version: Version
    texts: tuple[str, str, str]  # the messages of KINDS, as sent


def read(tournament_id: str) -> Read | None:
    """The tournament's three messages as they stand (None: no such tournament)."""
    tournament = Tournament.objects.select_related("created_by").filter(pk=tournament_id).first()
    if tournament is None:
        return None
    detail = to_json(reading.tournament_detail(tournament))
    swiss = tournament.format == Tournament.Format.SWISS
    status = {"type": "status", **{key: detail[key] for key in ("status", "round", "players", "next_round_at")}}
    standings = {"type": "standings", "standings": detail["standings"]}
    tables = {
        "type": "tables", "round": (tournament.round or None) if swiss else None,
        "tables": to_json(reading.tables_of(tournament, None))["results"],
    }
    texts = (compact_json(status), compact_json(standings), compact_json(tables))
    return Read((tournament.seq, tournament.next_round_at), texts)


def versions(tournament_ids: list[str]) -> dict[str, Version]:
    rows = Tournament.objects.filter(pk__in=tournament_ids).values_list("pk", "seq", "next_round_at")
    return {str(pk): (seq, next_round_at) for pk, seq, next_round_at in rows}


@dataclass
class Feed:
    """A tournament's messages as last read here, shared by this process's sockets of it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    sockets: set[TournamentConsumer] = field(default_factory=set)
    began: float = -math.inf  # when the last read began (time.monotonic)
    last: Read | None = None


class Watching:
    """This process's tournament sockets, by tournament: the shared read and the poll of the module docstring."""

    def __init__(self) -> None:
        self.feeds: dict[str, Feed] = {}
        self.task: asyncio.Task[None] | None = None

    def add(self, socket: TournamentConsumer) -> None:
        self.feeds.setdefault(socket.tournament_id, Feed()).sockets.add(socket)
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self._watch())

    def remove(self, socket: TournamentConsumer) -> None:
        feed = self.feeds.get(socket.tournament_id)
        if feed is not None:
            feed.sockets.discard(socket)
            if not feed.sockets:
                del self.feeds[socket.tournament_id]

    async def read(self, tournament_id: str, since: float) -> Read | None:
        """The tournament's messages from a read that began at `since` or later (the last one, if it did)."""
        feed = self.feeds.get(tournament_id) or Feed()  # (a socket that left meanwhile: a read of its own)
        async with feed.lock:
            if feed.began < since or feed.last is None:
                feed.began = time.monotonic()
                feed.last = await run_sync(unavailable.once_more_if_cut, lambda: read(tournament_id))
            return feed.last

    async def _watch(self) -> None:
        while self.feeds:
            await asyncio.sleep(settings.REALTIME_POLL_SECONDS)
            try:
                await self.poll()
            except Exception as error:  # keep watching: the next round may work
                if (service := unavailable.which(error)) is None:
                    logger.exception("the tournaments' poll failed")
                else:
                    logger.warning("the tournaments' poll skipped a round: the %s is unavailable", service)

    async def poll(self) -> None:
        """Wake the sockets of each tournament whose seq or next round moved since it was last read here."""
        found, now = await run_sync(versions, list(self.feeds)), time.monotonic()
        for tournament_id, version in found.items():
            feed = self.feeds.get(tournament_id)
            if feed is not None and feed.last is not None and feed.last.version != version:
                for socket in list(feed.sockets):
                    socket.wake(now)


watching = Watching()


class TournamentConsumer(LimitedSocket):
    tournament_id: str

    async def connect(self) -> None:
        self.tournament_id = self.scope["url_route"]["kwargs"]["tournament_id"]
        user = self.scope.get("user") or AnonymousUser()
        self.joined = False
        self.lock = asyncio.Lock()  # one read-and-send at a time: a later read is never sent before an earlier one
        self.sent: dict[str, str] = {}  # the text last sent of each kind
        self.heard = self.seen = -math.inf  # when a change was last heard of; when the last read sent began
        self.pulling: asyncio.Task[None] | None = None
        json_logs.bind(tournament=self.tournament_id, user=user.get_username() or None)
        await self.accept(socket_user.subprotocol(self.scope))
        if problem := self.scope.get("auth_problem"):  # set by games/realtime/socket_user.py
            await self.refuse({"code": "authentication_failed", "detail": str(problem)}, CLOSE_UNAUTHORISED)
            return
        if user.is_authenticated:
            await self.count_person(int(user.pk))
        # Listen before reading: a change committed meanwhile is then heard, never missed.
        await layer_call(self.channel_layer.group_add(group_name(self.tournament_id), self.channel_name), "listen")
        watching.add(self)
        self.joined = True
        try:
            found = await self.send_latest(time.monotonic(), every=True)
        except Exception as error:
            if (service := unavailable.which(error)) is None:
                raise
            await self.refuse(unavailable.body(service), CLOSE_TRY_AGAIN)  # the client reconnects
            return
        if not found:
            await self.refuse(NOT_FOUND, CLOSE_NOT_FOUND)

    async def refuse(self, error: dict[str, Any], code: int) -> None:
        await self.send(text_data=compact_json({"type": "error", "error": error}))
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if not self.joined:
            return
        self.joined = False
        watching.remove(self)
        group = group_name(self.tournament_id)
        await layer_call(self.channel_layer.group_discard(group, self.channel_name), "stop listening")

    async def tournament_changed(self, message: dict[str, Any]) -> None:
        """The group's notice (its seq is not trusted to move: a daily Swiss's next round is set without an event)."""
        self.wake(time.monotonic())

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        error = {"code": "invalid", "detail": "this socket only speaks: act on the tournament with the API"}
        await self.send(text_data=compact_json({"type": "error", "error": error}))

    def wake(self, heard: float) -> None:
        self.heard = max(self.heard, heard)
        if self.joined and (self.pulling is None or self.pulling.done()):
            self.pulling = asyncio.get_running_loop().create_task(self._catch_up())

    async def _catch_up(self) -> None:
        try:
            while self.joined and self.seen < self.heard:
                await self.send_latest(self.heard)
        except Exception as error:
            if not self.joined or isinstance(error, OSError):  # the client went away meanwhile
                return
            if (service := unavailable.which(error)) is not None:  # the poll wakes the socket again
                logger.warning("a tournament socket was not updated: the %s is unavailable", service)
                return
            logger.exception("could not update a socket of tournament %s", self.tournament_id)

    async def send_latest(self, since: float, *, every: bool = False) -> bool:
        """Send the messages (every one, or those that changed) from a read begun at `since` or later; False when
        there is no such tournament."""
        async with self.lock:
            latest = await watching.read(self.tournament_id, since)
            self.seen = max(self.seen, since)
            if latest is None:
                return False
            for kind, text in zip(KINDS, latest.texts, strict=True):
                if every or self.sent.get(kind) != text:
                    self.sent[kind] = text
                    await self.send(text_data=text)
            return True
