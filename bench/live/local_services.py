"""The machine's own PostgreSQL and Redis servers, and `scratch_database()`: a new, empty database on the
PostgreSQL server for one run, dropped at the end."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

POSTGRES_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"  # the local server's maintenance database
REDIS_SERVER_URL = "redis://127.0.0.1:6379"


@contextmanager
def scratch_database(name: str, admin_url: str = POSTGRES_ADMIN_URL) -> Iterator[str]:
    """A new, empty PostgreSQL database `name` on the server of `admin_url`; its URL. Dropped on exit."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield admin_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
