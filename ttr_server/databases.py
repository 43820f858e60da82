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


# --- The database URLs: one server, or several for failover (libpq's multi-host form); the replica alias. ---------
# DATABASE_URL may name several servers, as libpq does: postgres://user@host1:port1,host2:port2/name?target_session_attrs=
# read-write. dj_database_url cannot parse that (it is not one host), so `parse_url` does: HOST and PORT become libpq's
# comma lists ("host1,host2", "port1,port2"), which Django's psycopg backend passes through (`host`, `port`) to
# psycopg, which tries each in turn; the query string's keys become OPTIONS (libpq parameters such as
# target_session_attrs and connect_timeout). A single-host URL is dj_database_url's, as before.
# DATABASE_REPLICA_URL (optional): the alias "replica", a standby for the reads that may lag (ttr_server/db_router.py).

POSTGRES_SCHEMES = ("postgres", "postgresql", "pgsql")
REPLICA = "replica"


def parse_url(url: str, *, conn_max_age: int = 0) -> dict[str, Any]:
    """One DATABASES entry from `url` (dj_database_url's, or libpq's multi-host form that it cannot parse)."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    import dj_database_url

    scheme, _, rest = url.partition("://")
    netloc = rest.split("/", 1)[0]
    if scheme not in POSTGRES_SCHEMES or "," not in netloc:
        return dict(dj_database_url.parse(url, conn_max_age=conn_max_age))
    parts = urlsplit(url)
    userinfo, _, hostlist = netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    hosts, ports = [], []
    for item in hostlist.split(","):
        if item.startswith("["):  # [IPv6]:port
            host, _, after = item[1:].partition("]")
            port = after.removeprefix(":")
        else:
            host, _, port = item.partition(":")
        if not host or (port and not port.isdigit()):
            raise ImproperlyConfigured(f"DATABASE_URL: {item!r} is not host:port (in a list of hosts)")
        hosts.append(unquote(host))
        ports.append(port or "5432")
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured("DATABASE_URL: no database name after the hosts")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(user),
        "PASSWORD": unquote(password),
        "HOST": ",".join(hosts),
        "PORT": ",".join(ports),
        "CONN_MAX_AGE": conn_max_age,
        "CONN_HEALTH_CHECKS": False,
        "DISABLE_SERVER_SIDE_CURSORS": False,
        "OPTIONS": dict(parse_qsl(parts.query, keep_blank_values=True)),
    }


def replica(url: str, default: dict[str, Any]) -> dict[str, Any]:
    """The "replica" entry: `url`'s server, with the default entry's connection handling (its pool, health checks,
    PgBouncer's settings); in tests a mirror of the default database (no second test database)."""
    entry = parse_url(url)
    if not entry["ENGINE"].endswith("postgresql") or not default["ENGINE"].endswith("postgresql"):
        raise ImproperlyConfigured("DATABASE_REPLICA_URL needs a PostgreSQL DATABASE_URL and a PostgreSQL replica")
    for key in ("CONN_MAX_AGE", "CONN_HEALTH_CHECKS", "DISABLE_SERVER_SIDE_CURSORS"):
        entry[key] = default.get(key, entry.get(key))
    kept = ("pool", "server_side_binding", "prepare_threshold")
    inherited = {k: v for k, v in default.get("OPTIONS", {}).items() if k in kept}
    entry["OPTIONS"] = {**inherited, **entry.get("OPTIONS", {})}
    entry["TEST"] = {"MIRROR": "default"}
    return entry
