"""Presence: which seats of a game have a socket open now. Not a fact of the game: never in the event log.

Every open socket of a seated user is one entry `(seat, connection)` of its game, with an expiry. With Redis
(`REDIS_URL`) the entries of every web process live in one sorted set per game (member `seat:connection`, score
the expiry time), so a table's presence is the same whichever process serves a socket or an HTTP request. Each
change runs as one Lua script that prunes expired entries, adds or removes one, and returns the seats now
present and a version number that grows with every change of that set: processes announce changes to the game's
group with that version, and a socket ignores an announcement older than the last it applied, so two changes
racing through different processes cannot leave a stale set on screen. Each web process renews its entries
(`renew`, every `RENEW_SECONDS`); those of a process that died expire after `TTL_SECONDS`. Without Redis the
entries live in this process (the embedded server has one web process).

Presence only decorates: while Redis is down or reconnecting, reads answer "nobody" and changes are skipped
(each logged once a while, not each time), and the next renewal after Redis is back puts every open socket's
entry back. No request or socket fails because of it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from django.conf import settings

from ttr_server import redis_config, unavailable

if TYPE_CHECKING:
    import redis
    import redis.asyncio

    from games.store.models import GameId

TTL_SECONDS = 60
RENEW_SECONDS = 20
REDIS_TIMEOUT_SECONDS = 2  # a read or a change that takes longer is given up (presence never holds a request up)
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Change:
    seats: list[int]
    version: int
    changed: bool  # whether the set of seats present is not what it was before


def _key(game_id: GameId) -> str:
    return f"ttr:presence:{game_id}"


def _member(seat: int, connection: str) -> str:
    return f"{seat}:{connection}"


def _seats(members: Iterable[str | bytes]) -> list[int]:
    return sorted({int((m.decode() if isinstance(m, bytes) else m).split(":", 1)[0]) for m in members})


# KEYS: the game's set, its version. ARGV: now, op ("add" | "remove" | "renew"), member, expiry.
_SCRIPT = """
local function seats()
  local found, list = {}, {}
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf')) do
    local seat = string.match(member, '^(%d+):')
    if not found[seat] then found[seat] = true; table.insert(list, seat) end
  end
  table.sort(list)
  return table.concat(list, ',')
end
local before = seats()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
if ARGV[2] == 'remove' then
  redis.call('ZREM', KEYS[1], ARGV[3])
elseif ARGV[2] == 'add' or redis.call('ZSCORE', KEYS[1], ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
end
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
local after = seats()
local changed = 0
if after ~= before then changed = 1; redis.call('INCR', KEYS[2]) end
local version = tonumber(redis.call('GET', KEYS[2]) or '0')
return {after, version, changed}
"""


@cache
def _redis() -> redis.Redis:
    timeout = REDIS_TIMEOUT_SECONDS
    return redis_config.client(settings.REDIS_URL, socket_timeout=timeout, socket_connect_timeout=timeout)


_async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, redis.asyncio.Redis] = weakref.WeakKeyDictionary()


def _async_redis() -> redis.asyncio.Redis:
    """This event loop's client (an asyncio client's connections belong to the loop that opened them)."""
    loop = asyncio.get_running_loop()
    if loop not in _async_clients:
        limit = settings.REDIS_MAX_CONNECTIONS
        timeout = REDIS_TIMEOUT_SECONDS
        _async_clients[loop] = redis_config.async_client(
            settings.REDIS_URL, max_connections=limit, socket_timeout=timeout, socket_connect_timeout=timeout
        )
    return _async_clients[loop]


def _change(answer: list[bytes | str | int]) -> Change:
    """The script's answer: the seats present (b"0,2"), the version, whether the set changed."""
    text = answer[0].decode() if isinstance(answer[0], bytes) else str(answer[0])
    return Change([int(s) for s in text.split(",") if s], int(answer[1]), bool(answer[2]))


class _Local:
    """The same operations on this process's memory (no Redis: one web process)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.entries: dict[str, dict[str, float]] = {}
        self.versions: dict[str, int] = {}

    def apply(self, game: str, op: str, member: str, now: float) -> Change:
        with self.lock:
            entries = self.entries.setdefault(game, {})
            before = _seats([m for m, t in entries.items() if t >= now])
            for gone in [m for m, t in entries.items() if t < now]:
                del entries[gone]
            if op == "remove":
                entries.pop(member, None)
            elif op == "add" or member in entries:
                entries[member] = now + TTL_SECONDS
            after = _seats(list(entries))
            if not entries:
                del self.entries[game]
            if after != before:
                self.versions[game] = self.versions.get(game, 0) + 1
            return Change(after, self.versions.get(game, 0), after != before)

    def seats(self, game: str, now: float) -> list[int]:
        with self.lock:
            return _seats([m for m, t in self.entries.get(game, {}).items() if t >= now])


_local = _Local()


async def _apply(game_id: GameId, op: str, seat: int, connection: str) -> Change:
    now = time.time()
    member = _member(seat, connection)
    if not settings.REDIS_URL:
        return _local.apply(str(game_id), op, member, now)
    client = _async_redis()
    keys = [_key(game_id), _key(game_id) + ":version"]
    arguments = (now, op, member, now + TTL_SECONDS, TTL_SECONDS * 2)
    try:
        answer: list[bytes | str | int] = await client.eval(_SCRIPT, 2, *keys, *arguments)
    except unavailable.redis_errors() as error:
        _skipped(error)
        return Change([], 0, changed=False)
    return _change(answer)


async def arrive(game_id: GameId, seat: int, connection: str) -> Change:
    """A socket of `seat` opened."""
    return await _apply(game_id, "add", seat, connection)


async def leave(game_id: GameId, seat: int, connection: str) -> Change:
    """A socket of `seat` closed."""
    return await _apply(game_id, "remove", seat, connection)


async def renew(game_id: GameId, seat: int, connection: str) -> Change:
    """The socket is still open: push its expiry on (and prune the expired entries of other processes)."""
    return await _apply(game_id, "renew", seat, connection)


def seats(game_id: GameId) -> list[int]:
    """The seats of the game with a socket open now (for the HTTP state; sync)."""
    now = time.time()
    if not settings.REDIS_URL:
        return _local.seats(str(game_id), now)
    try:
        members = _redis().zrangebyscore(_key(game_id), now, "+inf")  # without scores: the members alone
        return _seats(member for member in members if isinstance(member, bytes | str))
    except unavailable.redis_errors() as error:
        _skipped(error)
        return []


_last_warning = 0.0


def _skipped(error: Exception) -> None:
    """Say that presence is degraded, at most once every RENEW_SECONDS per process."""
    global _last_warning
    if time.monotonic() - _last_warning > RENEW_SECONDS:
        _last_warning = time.monotonic()
        logger.warning("presence unavailable (Redis): %s: %s", type(error).__name__, error)
