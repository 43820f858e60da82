"""The database settings that depend on what stands between the processes and PostgreSQL.

`behind_pgbouncer(database)`: the settings of one DATABASES entry whose HOST:PORT is a PgBouncer in transaction
mode (`pool_mode = transaction`, deploy/pgbouncer.ini), where each transaction may run on a different server
connection and nothing set on a session outlives its transaction. What that asks of the code, checked against
Django 5.2's psycopg 3 backend (django/db/backends/postgresql/base.py) and this code base on 2026-11-27:

- Prepared statements: none. Django binds parameters on the client (its `Cursor` is psycopg's ClientCursor unless
  OPTIONS `server_side_binding` is True) and sets psycopg's `prepare_threshold` to None (never prepare). PgBouncer
  1.18 cannot carry a prepared statement from one transaction to the next, so both are pinned here.
- Server-side cursors: off (DISABLE_SERVER_SIDE_CURSORS). `QuerySet.iterator()` would DECLARE a named cursor, WITH
  HOLD in autocommit mode, and FETCH from it in later transactions, which PgBouncer may send to another server
  connection ("cursor does not exist"). Django's docs say the same for transaction pooling.
- Session state: none the code relies on. No advisory lock, LISTEN, temporary table, session-level SET or
  `SET ROLE` (OPTIONS `assume_role` is refused); row locks (`select_for_update`) and `LOCK TABLE` are taken inside
  `transaction.atomic()` and end with it. The one session SET is Django's own `SET TIME ZONE` on a new connection
  when the server's zone is not `TIME_ZONE` ("Etc/UTC" here): TimeZone is one of the parameters PgBouncer tracks
  per client and sets again on whichever server connection the client gets (tests/server/test_pgbouncer.py).
- The pool stays: each process keeps its psycopg_pool of client connections to PgBouncer (cheap), PgBouncer keeps
  `default_pool_size` server connections per database, which is the number PostgreSQL sees.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured


def behind_pgbouncer(database: dict[str, Any]) -> dict[str, Any]:
    """`database` (one DATABASES entry, changed in place and returned) made safe for PgBouncer's transaction mode."""
    if not database["ENGINE"].endswith("postgresql"):
        raise ImproperlyConfigured("DB_PGBOUNCER=1 needs a PostgreSQL DATABASE_URL (PgBouncer's address)")
    options = database.setdefault("OPTIONS", {})
    if options.get("server_side_binding") or options.get("prepare_threshold") is not None:
        raise ImproperlyConfigured("behind PgBouncer in transaction mode: no server-side binding, no prepared statements")
    if options.get("assume_role"):
        raise ImproperlyConfigured("behind PgBouncer in transaction mode: no SET ROLE (assume_role), a session's state")
    options["server_side_binding"] = False
    options["prepare_threshold"] = None
    database["DISABLE_SERVER_SIDE_CURSORS"] = True
    return database
