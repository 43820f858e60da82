"""Django's PostgreSQL backend, whose connection pool checks a connection with `dbpool.check_quietly`.

Django gives psycopg_pool either no check or `ConnectionPool.check_connection` (an empty query per checkout), with
no way to name another; the pool keeps its check in `_check`. tests/server/test_pool_check.py holds both ends:
that the pool in use has this check, and what the check does.
"""

from __future__ import annotations

from typing import Any

import psycopg
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool

from ttr_server.dbpool import check_quietly


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self) -> ConnectionPool[psycopg.Connection[Any]] | None:
        pool: ConnectionPool[psycopg.Connection[Any]] | None = super().pool  # type: ignore[misc]  # not in django-stubs 5.2
        if pool is not None and getattr(pool, "_check", None) is not check_quietly:
            pool._check = check_quietly
        return pool
