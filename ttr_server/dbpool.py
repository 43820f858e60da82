"""The check a pooled PostgreSQL connection passes before a request gets it, without a round trip when it can.

psycopg_pool's own check (`ConnectionPool.check_connection`, what Django's CONN_HEALTH_CHECKS turns on) sends an
empty query every time a connection leaves the pool: one more round trip per request, a tenth of a move's. An idle
connection has nothing to read on its socket, and a server that ended the session (a restart,
`pg_terminate_backend`) leaves its error message and the socket's end there. So the socket is polled first, a
system call, and only a connection with something to read is tried with the empty query, which raises for a
broken one: the pool then drops it and hands out another, as before.
"""

from __future__ import annotations

import select

import psycopg
from psycopg_pool import ConnectionPool


def check_quietly(conn: psycopg.Connection) -> None:  # type: ignore[type-arg]  # the pool checks connections of any row type
    if conn.closed:
        raise psycopg.OperationalError("the pooled connection is closed")
    poll = select.poll()
    poll.register(conn.fileno(), select.POLLIN | select.POLLPRI)
    if poll.poll(0):  # something to read on an idle connection: an error, the end, or a notice; find out
        ConnectionPool.check_connection(conn)
