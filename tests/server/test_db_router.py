"""Reads that may lag go to the replica (ttr_server/db_router.py, games/api/replica_reads.py), read-your-writes
kept: with a second database alias "replica" configured (a real second connection, to the test database: what a
standby streaming from it holds), the replay, audit, analysis, leaderboard, a player's page and the export read
from it, a person seated in the game reads their own game from the primary, and a replica that is down costs a
read on the primary, not an error. Also the multi-host DATABASE_URL of a failover pair (ttr_server/databases.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.conf import settings
from django.db import connections
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.server.helpers import register, seated_game, url
from ttr_server import databases, db_router


@pytest.fixture(scope="module")
def replica(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    """The alias "replica": a second connection to the test database, with the default's settings but the pool.
    Module-scoped, so that it exists when a test's database setup lists it; the tests that do not use it come
    first in this file."""
    with django_db_blocker.unblock():
        entry = {**connections["default"].settings_dict}
    entry["OPTIONS"] = {k: v for k, v in entry.get("OPTIONS", {}).items() if k != "pool"}  # a plain connection
    settings.DATABASES[db_router.REPLICA] = entry
    try:
        yield db_router.REPLICA
    finally:
        connections[db_router.REPLICA].close()
        del connections[db_router.REPLICA]
        settings.DATABASES.pop(db_router.REPLICA, None)  # (the same dict as connections.settings)


@contextmanager
def replica_down() -> Iterator[None]:
    """The replica's address is one where nothing listens, for the block."""
    connection = connections[db_router.REPLICA]
    connection.close()
    saved = connection.settings_dict["PORT"], dict(connection.settings_dict["OPTIONS"])
    connection.settings_dict["PORT"] = "1"
    connection.settings_dict["OPTIONS"]["connect_timeout"] = 2
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["PORT"], connection.settings_dict["OPTIONS"] = saved


def counted(client: APIClient, path: str, **params: Any) -> tuple[int, int, int]:
    """GET `path`: its status, how many of its queries read the view's data (any but the token's, the seat check's
    and the event store's own SQL, which reads on the default connection) on the primary, and how many went to the
    replica."""
    with CaptureQueriesContext(connections["default"]) as primary, \
            CaptureQueriesContext(connections[db_router.REPLICA]) as replica:
        status = client.get(path, params).status_code
    view_reads = [q for q in primary.captured_queries if not _outside_the_router(q["sql"])]
    return status, len(view_reads), len(replica.captured_queries)


def _outside_the_router(sql: str) -> bool:
    return sql.startswith(('SELECT "authtoken_token"', 'SELECT 1 AS "a" FROM "games_seat"', "SELECT data FROM games_event"))


pytestmark = pytest.mark.postgres


@pytest.fixture
def postgres_only(on_postgres: bool) -> None:
    if not on_postgres:
        pytest.skip("the replica's read-your-writes check asks PostgreSQL for its WAL position")


@pytest.mark.django_db
def test_without_a_replica_everything_reads_the_primary() -> None:
    router = db_router.ReplicaRouter()
    assert db_router.REPLICA not in settings.DATABASES
    with db_router.reads_from(db_router.REPLICA) as alias:
        assert alias == "default" and router.db_for_read(object) == "default"
    assert APIClient().get("/api/leaderboard", {"map": "europe"}).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_write_on_a_standby_answers_unavailable_not_a_bug(postgres_only: None) -> None:
    """A connection that finds its server a standby (a failover under way) fails as a read-only transaction: that
    is the database unavailable (503 with Retry-After), not a 500."""
    from django.db import DatabaseError, connection, transaction

    from ttr_server import unavailable

    with pytest.raises(DatabaseError) as caught, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION READ ONLY")
        cursor.execute("UPDATE auth_user SET first_name = first_name WHERE false")
    assert "read-only transaction" in str(caught.value)
    assert unavailable.which(caught.value) == "database"


def test_the_router_sends_writes_and_migrations_to_the_primary() -> None:
    router = db_router.ReplicaRouter()
    settings.DATABASES[db_router.REPLICA] = {}
    try:
        with db_router.reads_from(db_router.REPLICA):
            assert router.db_for_read(object) == db_router.REPLICA
            assert router.db_for_write(object) == "default"
        assert router.db_for_read(object) == "default"
    finally:
        settings.DATABASES.pop(db_router.REPLICA, None)  # (the same dict as connections.settings)
    assert router.allow_migrate("default", "games") and not router.allow_migrate(db_router.REPLICA, "games")


def test_a_multi_host_url_becomes_libpq_lists() -> None:
    entry = databases.parse_url(
        "postgres://ttr:s%40cret@10.0.0.1:5433,[::1]:5434,db3/ttr?target_session_attrs=read-write&connect_timeout=3"
    )
    assert entry["ENGINE"] == "django.db.backends.postgresql"
    assert (entry["HOST"], entry["PORT"], entry["NAME"]) == ("10.0.0.1,::1,db3", "5433,5434,5432", "ttr")
    assert (entry["USER"], entry["PASSWORD"]) == ("ttr", "s@cret")
    assert entry["OPTIONS"] == {"target_session_attrs": "read-write", "connect_timeout": "3"}
    single = databases.parse_url("postgres://ttr@127.0.0.1:5432/ttr")
    assert (single["HOST"], single["PORT"]) == ("127.0.0.1", 5432)
    replica = databases.replica("postgres://ttr@10.0.0.2:5432/ttr", {**entry, "OPTIONS": {"pool": {"max_size": 4}}})
    assert replica["OPTIONS"] == {"pool": {"max_size": 4}} and replica["TEST"] == {"MIRROR": "default"}


@pytest.mark.parametrize("bad", ["postgres://u@h1:x,h2/ttr", "postgres://u@h1,:5/ttr", "postgres://u@h1,h2/"])
def test_a_bad_multi_host_url_is_refused_clearly(bad: str) -> None:
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        databases.parse_url(bad)


@pytest.mark.django_db(transaction=True, databases=["default", "replica"])
@pytest.mark.usefixtures("replica")
def test_lagging_reads_go_to_the_replica_and_a_seated_person_reads_the_primary(postgres_only: None) -> None:
    table = seated_game("rtr", players=2)
    outsider = register("rtr_out")
    status, primary, replica = counted(outsider, url(table.game_id, "replay"), at=1)
    assert status == 200 and replica > 0, (status, primary, replica)
    assert primary == 0, "a person outside the game reads the replay from the replica only"
    status, primary, replica = counted(table.clients[0], url(table.game_id, "replay"), at=1)
    assert status == 200 and replica == 0 and primary > 0, ("a seated person reads the primary", primary, replica)
    # the audit answers 409 until the game is over: from the replica for an outsider, the primary for a player
    assert counted(outsider, url(table.game_id, "audit"))[2] > 0
    assert counted(table.clients[1], url(table.game_id, "audit"))[2] == 0
    assert counted(outsider, url(table.game_id, "analysis"))[2] > 0
    status, primary, replica = counted(APIClient(), "/api/leaderboard", map="europe")
    assert status == 200 and replica > 0 and primary == 0, (status, primary, replica)
    status, primary, replica = counted(APIClient(), "/api/users/rtr0")
    assert status == 200 and replica > 0 and primary == 0, (status, primary, replica)
    # the export: the replica once it has replayed what the primary had committed (the same server here)
    status, primary, replica = counted(table.clients[0], "/api/me/export")
    assert status == 200 and replica > 0, (status, primary, replica)
    # a move, the game's state, the lobby: the primary only
    status, primary, replica = counted(table.clients[0], url(table.game_id, "state"))
    assert status == 200 and replica == 0, (status, primary, replica)


@pytest.mark.django_db(transaction=True, databases=["default", "replica"])
@pytest.mark.usefixtures("replica")
def test_a_replica_that_is_down_costs_a_read_on_the_primary(postgres_only: None) -> None:
    table = seated_game("rtd", players=2)
    outsider = register("rtd_out")
    with replica_down():
        assert outsider.get(url(table.game_id, "replay"), {"at": 1}).status_code == 200
        assert APIClient().get("/api/leaderboard", {"map": "europe"}).status_code == 200
        assert table.clients[0].get("/api/me/export").status_code == 200
