"""Reads that may lag go to the standby (the alias "replica", DATABASE_REPLICA_URL), everything else to the primary.

Nothing goes to the replica unless a view says so: `ReplicaRouter.db_for_read` answers the alias that
`reads_from()` set for the current context (a request's thread), and "default" otherwise; every write goes to
"default", even of an object read from the replica. The views that may read a lagging copy (replay, audit, analysis,
leaderboard, a player's page, the export) say so through games/api/replica_reads.py, which keeps read-your-writes:
a person seated in the game reads their own game from the primary, and an export goes to the replica only when it
has replayed everything the primary had committed when the request began (`caught_up()`).

With the drill's synchronous standby (`synchronous_commit = remote_apply`) the standby has applied every commit
before its client hears of it, so it is never behind what anyone was told; an asynchronous replica can be, which is
what the rules above are for. Without a replica configured everything reads from "default".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.db import connections

DEFAULT = "default"
REPLICA = "replica"

_reads: ContextVar[str] = ContextVar("ttr_reads_from", default=DEFAULT)


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


def reading_alias() -> str:
    """The alias the current context's reads go to."""
    return _reads.get()


@contextmanager
def reads_from(alias: str) -> Iterator[str]:
    """The block's reads go to `alias` ("replica" falls back to "default" when no replica is configured)."""
    chosen = alias if alias == DEFAULT or replica_configured() else DEFAULT
    token = _reads.set(chosen)
    try:
        yield chosen
    finally:
        _reads.reset(token)


def caught_up() -> bool:
    """Whether the replica has replayed all the primary had committed now (one small query to each): a read on it
    then sees every write made before this call, the caller's own included."""
    with connections[DEFAULT].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()")
        primary_lsn = cursor.fetchone()[0]
    with connections[REPLICA].cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(pg_last_wal_replay_lsn() >= %s::pg_lsn, NOT pg_is_in_recovery())", [primary_lsn]
        )
        return bool(cursor.fetchone()[0])


class ReplicaRouter:
    """DATABASE_ROUTERS' router: reads where `reads_from()` says (the primary by default), writes to the primary,
    migrations on the primary only (the replica is a copy of it)."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str:
        return _reads.get()

    def db_for_write(self, model: type[Any], **hints: Any) -> str:
        return DEFAULT

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # the same database, whichever copy an object was read from

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool:
        return db != REPLICA
