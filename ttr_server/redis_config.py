"""Where Redis is, in one place: `REDIS_URL` names either one Redis server or a Sentinel group, and this module gives
what each user of Redis needs from it: the channel layer's host entry, Celery's broker URL and transport options,
and Redis clients (sync and asyncio) for presence, the per-person socket count and the readiness probe.

Two forms of `REDIS_URL` (docs/OPERATIONS.md, Redis failover):

- `redis://[[user]:password@]host:port/db` (or `rediss://`, `unix://`): one server, as before;
- `redis+sentinel://[[user]:password@]host:port[,host:port...]/master_name[/db]`: the Sentinels to ask (a
  comma-separated list; port 26379 when left out) and the name of the group they watch (`sentinel monitor
  <master_name> ...`); db 0 when left out. The user and password are the Redis servers' (the primary's and its
  replicas', which share them); the Sentinels are asked without a password.

Every client made from a Sentinel URL asks a Sentinel for the primary's address when it connects, and again after
its connection fails: a failover is seen as a connection error (answered 503 by ttr_server/unavailable.py) until
Sentinel has promoted a replica, and then as the new primary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    import redis
    import redis.asyncio

SENTINEL_SCHEME = "redis+sentinel"
SENTINEL_PORT = 26379
# How long a question to one Sentinel may take (connect and answer): a Sentinel that hangs is passed over for the
# next one this soon.
SENTINEL_TIMEOUT_SECONDS = 1.0


class RedisUrlError(ValueError):
    """REDIS_URL cannot be read (the message says why and never repeats the password)."""


@dataclass(frozen=True)
class SentinelGroup:
    """A Sentinel group: the Sentinels' addresses, the group's name, the database and the servers' credentials."""

    sentinels: tuple[tuple[str, int], ...]
    master_name: str
    db: int = 0
    username: str | None = None
    password: str | None = None

    def server_kwargs(self) -> dict[str, Any]:
        """Connection arguments for the primary (never for the Sentinels)."""
        found: dict[str, Any] = {"db": self.db}
        if self.username:
            found["username"] = self.username
        if self.password:
            found["password"] = self.password
        return found


def sentinel_group(url: str) -> SentinelGroup | None:
    """The Sentinel group a `redis+sentinel://` URL names; None for any other URL (one Redis server)."""
    if not url.startswith(f"{SENTINEL_SCHEME}://"):
        return None
    parts = urlsplit(url)
    at = parts.netloc.rpartition("@")
    credentials, hosts = (at[0], at[2]) if at[1] else ("", parts.netloc)
    username, _, password = credentials.partition(":")
    sentinels = tuple(_address(host) for host in hosts.split(",") if host.strip())
    if not sentinels:
        raise RedisUrlError(f"{SENTINEL_SCHEME}:// names no Sentinel (host:port[,host:port...])")
    path = [unquote(piece) for piece in parts.path.split("/") if piece]
    if not path or len(path) > 2:
        raise RedisUrlError(f"{SENTINEL_SCHEME}:// needs /master_name[/db] after the Sentinels, not {parts.path!r}")
    if len(path) == 2 and not path[1].isdigit():
        raise RedisUrlError(f"{SENTINEL_SCHEME}:// database must be a number, not {path[1]!r}")
    return SentinelGroup(
        sentinels, path[0], int(path[1]) if len(path) == 2 else 0,
        unquote(username) or None, unquote(password) or None,
    )


def _address(text: str) -> tuple[str, int]:
    host, colon, port = text.strip().rpartition(":")
    if not colon:
        return text.strip(), SENTINEL_PORT
    if not host or not port.isdigit():
        raise RedisUrlError(f"{SENTINEL_SCHEME}:// Sentinel address is not host:port: {text.strip()!r}")
    return host, int(port)


def check(url: str) -> None:
    """Raise RedisUrlError when `url` (REDIS_URL) is set but unreadable (settings call it: a typo stops the start)."""
    if not url:
        return
    if sentinel_group(url) is None and urlsplit(url).scheme not in ("redis", "rediss", "unix"):
        raise RedisUrlError(f"REDIS_URL must start with redis://, rediss://, unix:// or {SENTINEL_SCHEME}://")


def describe(url: str) -> str:
    """`url` for a log line: where it points, without credentials."""
    group = sentinel_group(url)
    if group is not None:
        hosts = ",".join(f"{host}:{port}" for host, port in group.sentinels)
        return f"Sentinel group {group.master_name!r} via {hosts}, db {group.db}"
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"


def channel_layer_host(url: str, **options: Any) -> dict[str, Any]:
    """The one `hosts` entry of channels-redis's pub/sub layer, with `options` (max_connections, socket_timeout)."""
    group = sentinel_group(url)
    if group is None:
        return {"address": url, **options}
    return {
        "sentinels": [list(address) for address in group.sentinels], "master_name": group.master_name,
        "sentinel_kwargs": _sentinel_kwargs(), **group.server_kwargs(), **options,
    }


def broker_url(url: str) -> str:
    """Celery's broker URL: the Redis URL itself, or kombu's `sentinel://a;sentinel://b/db` for a Sentinel group."""
    group = sentinel_group(url)
    if group is None:
        return url
    credentials = ""
    if group.username or group.password:
        from urllib.parse import quote

        credentials = f"{quote(group.username or '', safe='')}:{quote(group.password or '', safe='')}@"
    return ";".join(f"sentinel://{credentials}{host}:{port}/{group.db}" for host, port in group.sentinels)


def broker_transport_options(url: str) -> dict[str, Any]:
    """Celery's broker transport options for `url`: kombu's Sentinel transport needs the group's name."""
    group = sentinel_group(url)
    if group is None:
        return {}
    return {"master_name": group.master_name, "sentinel_kwargs": _sentinel_kwargs()}


def _sentinel_kwargs() -> dict[str, Any]:
    return {"socket_timeout": SENTINEL_TIMEOUT_SECONDS, "socket_connect_timeout": SENTINEL_TIMEOUT_SECONDS}


def client(url: str, **options: Any) -> redis.Redis:
    """A sync client of the primary (`options`: socket_timeout, max_connections...)."""
    import redis
    import redis.sentinel

    group = sentinel_group(url)
    if group is None:
        return redis.Redis.from_url(url, **options)
    manager: Any = redis.sentinel.Sentinel  # redis-py leaves Sentinel unannotated
    primary: redis.Redis = manager(list(group.sentinels), sentinel_kwargs=_sentinel_kwargs()).master_for(
        group.master_name, **group.server_kwargs(), **options
    )
    return primary


def async_client(url: str, **options: Any) -> redis.asyncio.Redis:
    """An asyncio client of the primary, for the running event loop (its connections belong to that loop)."""
    import redis.asyncio
    import redis.asyncio.sentinel

    group = sentinel_group(url)
    if group is None:
        return redis.asyncio.Redis.from_url(url, **options)
    manager: Any = redis.asyncio.sentinel.Sentinel  # redis-py leaves Sentinel unannotated
    primary: redis.asyncio.Redis = manager(list(group.sentinels), sentinel_kwargs=_sentinel_kwargs()).master_for(
        group.master_name, **group.server_kwargs(), **options
    )
    return primary


def close(client: redis.Redis) -> None:
    """Close a sync client of `client()` and, for a Sentinel group, its connections to the Sentinels."""
    manager = getattr(client.connection_pool, "sentinel_manager", None)
    try:
        client.close()
    finally:
        if manager is not None:
            manager.close()
