"""Each signed-in person's open sockets (/ws/games/ and /ws/me/ together), oldest first: the TTR_WS_PER_USER cap.

With Redis (`REDIS_URL`) the sockets of every web process live in one sorted set per person (member the socket's
channel name, score when it opened), so the cap holds across processes: `arrive` adds a socket and, in the same
Lua script, takes out and returns the oldest beyond the cap, whose consumers the caller then tells to close
(games/realtime/limits.py). `leave` takes a closed socket out. A process that died leaves its entries behind: they
are the oldest, so they are the first taken out (their close message reaches nobody), and the set expires a day
after its last arrival. Without Redis the sets live in this process (the embedded server has one web process).
While Redis is down the cap is not kept (a socket cannot open then anyway: its handshake closes 1013).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from django.conf import settings

from games.table import presence
from ttr_server import unavailable

if TYPE_CHECKING:
    import redis.asyncio

logger = logging.getLogger(__name__)
KEEP_SECONDS = 86400

# KEYS: the person's set. ARGV: now, the new socket's channel, the cap, how long the set is kept.
_SCRIPT = """
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[4])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if over <= 0 then return {} end
local oldest = redis.call('ZRANGE', KEYS[1], 0, over - 1)
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1)
return oldest
"""
_local: dict[int, dict[str, float]] = {}


def _redis() -> redis.asyncio.Redis:
    return presence._async_redis()  # this loop's client, with presence's short timeouts


def _key(user_id: int) -> str:
    return f"ttr:sockets:{user_id}"


async def arrive(user_id: int, channel: str) -> list[str]:
    """Count a newly opened socket of the person; the channels of their sockets beyond the cap, oldest first."""
    cap, now = settings.TTR_WS_PER_USER, time.time()
    if not settings.REDIS_URL:
        sockets = _local.setdefault(user_id, {})
        sockets[channel] = now
        over = sorted(sockets, key=sockets.__getitem__)[: max(0, len(sockets) - cap)]
        for gone in over:
            del sockets[gone]
        return over
    try:
        oldest: list[bytes | str] = await _redis().eval(_SCRIPT, 1, _key(user_id), now, channel, cap, KEEP_SECONDS)
    except unavailable.redis_errors() as error:
        logger.warning("sockets per person not counted: Redis is unavailable (%s)", type(error).__name__)
        return []
    return [name.decode() if isinstance(name, bytes) else str(name) for name in oldest]


async def leave(user_id: int, channel: str) -> None:
    """The socket closed (or was closed as the oldest: then it is gone already)."""
    if not settings.REDIS_URL:
        sockets = _local.get(user_id, {})
        sockets.pop(channel, None)
        if not sockets:
            _local.pop(user_id, None)
        return
    try:
        await _redis().zrem(_key(user_id), channel)
    except unavailable.redis_errors():
        pass  # the entry is taken out as the oldest one day, or expires
