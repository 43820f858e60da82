"""The check a pooled PostgreSQL connection passes before a request gets it, without a round trip when it can.

psycopg_pool's own check (`ConnectionPool.check_connection`, what Django's CONN_HEALTH_CHECKS turns on) sends an
empty query every time a connection leaves the pool: one more round trip per request, a tenth of a move's. An idle
connection has nothing to read on its socket, and a server that ended the session (a restart,
`pg_terminate_backend`) leaves its error message and the socket's end there. So the socket is polled first, a
system call, and only a connection with something to read is tried with the empty query, which raises for a
broken one: the pool then drops it and hands out another, as before.

A server that is ending sessions (a restart, `pg_terminate_backend` of many) may not have written to every socket
yet when the next request checks one. So once a request has met a broken connection (`distrust()`, from
ttr_server/unavailable.py and the socket's move), every connection is tried with the query for DISTRUST_SECONDS,
and the request's second try gets a connection that works.
"""

from __future__ import annotations

import select
import time
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

DISTRUST_SECONDS = 5.0
_distrusted_until = 0.0


def distrust(seconds: float = DISTRUST_SECONDS) -> None:
    """A connection just failed: try every connection with a round trip for the next `seconds`."""
    global _distrusted_until
    _distrusted_until = max(_distrusted_until, time.monotonic() + seconds)


def check_quietly(conn: psycopg.Connection[Any]) -> None:  # Any: the pool checks connections of any row type
    if conn.closed:
        raise psycopg.OperationalError("the pooled connection is closed")
    if time.monotonic() < _distrusted_until:
        ConnectionPool.check_connection(conn)
        return
    poll = select.poll()
    poll.register(conn.fileno(), select.POLLIN | select.POLLPRI)
    if poll.poll(0):  # something to read on an idle connection: an error, the end, or a notice; find out
        ConnectionPool.check_connection(conn)
