"""A pooled connection is tried with a round trip only when its socket says something happened
(ttr_server/dbpool.py): a healthy idle one is handed out as it is, one the server ended is refused."""

from __future__ import annotations

import time

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from ttr_server.dbpool import check_quietly

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


@pytest.fixture
def connections() -> tuple[psycopg.Connection, psycopg.Connection]:  # type: ignore[type-arg]
    try:
        pooled = psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError:
        pytest.skip("PostgreSQL is not reachable at 127.0.0.1:5432")
    admin = psycopg.connect(ADMIN_URL, autocommit=True)
    yield pooled, admin
    pooled.close()
    admin.close()


def test_a_quiet_connection_passes_without_a_round_trip(connections, monkeypatch) -> None:
    pooled, _ = connections
    tried: list[object] = []
    monkeypatch.setattr(ConnectionPool, "check_connection", staticmethod(lambda conn: tried.append(conn)))
    check_quietly(pooled)
    assert tried == []
    assert pooled.execute("SELECT 1").fetchone() == (1,)


def test_a_connection_the_server_ended_is_refused(connections) -> None:
    pooled, admin = connections
    pid = pooled.info.backend_pid
    admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    deadline = time.monotonic() + 5
    while admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone() != (0,):
        assert time.monotonic() < deadline, "the backend did not end"
        time.sleep(0.05)
    with pytest.raises(psycopg.OperationalError):
        check_quietly(pooled)


def test_a_closed_connection_is_refused(connections) -> None:
    pooled, _ = connections
    pooled.close()
    with pytest.raises(psycopg.OperationalError):
        check_quietly(pooled)


@pytest.mark.django_db
def test_the_servers_pool_checks_quietly() -> None:
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the pool is PostgreSQL's")
    assert connection.pool._check is check_quietly


def test_after_a_failure_every_connection_is_tried_for_a_while(connections, monkeypatch) -> None:
    from ttr_server import dbpool

    pooled, _ = connections
    tried: list[object] = []
    monkeypatch.setattr(ConnectionPool, "check_connection", staticmethod(lambda conn: tried.append(conn)))
    monkeypatch.setattr(dbpool, "_distrusted_until", 0.0)
    dbpool.distrust(seconds=60)
    check_quietly(pooled)
    assert tried == [pooled]
    monkeypatch.setattr(dbpool, "_distrusted_until", time.monotonic() - 1)
    check_quietly(pooled)
    assert tried == [pooled]


@pytest.mark.django_db
def test_a_read_cut_by_the_database_is_tried_once_more_and_other_failures_are_not(monkeypatch) -> None:
    from django.db import OperationalError

    from ttr_server import dbpool, unavailable

    monkeypatch.setattr(dbpool, "_distrusted_until", 0.0)
    calls: list[int] = []

    def cut_once() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return "read"

    assert unavailable.once_more_if_cut(cut_once) == "read" and len(calls) == 2
    assert dbpool._distrusted_until > time.monotonic()  # and the pool tries each connection for a while

    def always_cut() -> str:
        raise OperationalError("the database is gone")

    with pytest.raises(OperationalError):
        unavailable.once_more_if_cut(always_cut)

    def broken() -> str:
        calls.append(1)
        raise ValueError("a bug, not the database")

    calls.clear()
    with pytest.raises(ValueError):
        unavailable.once_more_if_cut(broken)
    assert len(calls) == 1
