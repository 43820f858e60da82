"""PgBouncer in transaction mode (ttr_server/databases.py, deploy/pgbouncer.ini, docs/OPERATIONS.md).

Two kinds of test. Those on a PgBouncer of their own (bench/fault_stack/pgbouncer.py, in front of the machine's
PostgreSQL) show what transaction pooling does to a client that keeps state on its session, the hazards the settings
avoid: a session's SET reaches another client, a cursor declared WITH HOLD (what `QuerySet.iterator()` makes without
DISABLE_SERVER_SIDE_CURSORS) and a prepared statement are gone in the next transaction, while the time zone Django
sets is carried over by PgBouncer. The others check that the test run itself goes through PgBouncer when
scripts/test-env routes it there (TTR_TEST_PGBOUNCER=1, scripts/test-all's first run), and skip, saying so, when not.
"""

from __future__ import annotations

import configparser
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.fault_stack import pgbouncer as launcher

MACHINE_POSTGRES = ("127.0.0.1", 5432)


def _postgres_answers() -> bool:
    import socket

    try:
        with socket.create_connection(MACHINE_POSTGRES, timeout=2):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def bouncer() -> Iterator[launcher.PgBouncer]:
    """A PgBouncer of the module's own with room for two server connections, in front of the machine's PostgreSQL."""
    if not launcher.installed():
        pytest.skip(f"{launcher.PGBOUNCER} is not installed (make servers installs Debian's pgbouncer)")
    if not _postgres_answers():
        pytest.skip("PostgreSQL does not answer on 127.0.0.1:5432")
    with launcher.pgbouncer(pool_size=2) as running:
        yield running


def _client(bouncer: launcher.PgBouncer, **options: Any) -> Any:
    import psycopg

    return psycopg.connect(bouncer.url("postgres"), autocommit=True, **options)


def test_the_production_configuration_pools_transactions() -> None:
    ini = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=(";",))
    ini.read(launcher.PRODUCTION_INI)
    assert ini["pgbouncer"]["pool_mode"] == "transaction"
    assert "options" not in ini["pgbouncer"]["ignore_startup_parameters"]  # no session settings smuggled in
    assert int(ini["pgbouncer"]["max_db_connections"]) < 100  # PostgreSQL's max_connections, by default


def test_a_session_set_reaches_the_next_client_of_the_server_connection(bouncer: launcher.PgBouncer) -> None:
    """Transaction pooling: one server connection serves one client's transaction, then another's; state a client
    leaves on its session (here a SET PgBouncer does not track) is what the next client finds."""
    with _client(bouncer) as first, _client(bouncer) as second:
        first.execute("SET lock_timeout = '4321ms'")  # not a parameter PgBouncer tracks: stays on the server connection
        seen = {second.execute("SHOW lock_timeout").fetchone()[0] for _ in range(3)}
        assert "4321ms" in seen, seen
        first.execute("RESET lock_timeout")
    rows = bouncer.pools("postgres")
    assert rows and rows[0]["pool_mode"] == "transaction"


def _hold_the_idle_server_connection(holder: Any) -> Any:
    """`holder` opens a transaction: it keeps the one idle server connection (PgBouncer hands the last used out
    first), so the next transaction of any other client runs on another one."""
    transaction = holder.transaction()
    transaction.__enter__()
    holder.execute("SELECT 1")
    return transaction


def test_a_cursor_with_hold_is_gone_in_the_next_transaction(bouncer: launcher.PgBouncer) -> None:
    """What `QuerySet.iterator()` does outside a transaction with server-side cursors on (Django's
    DISABLE_SERVER_SIDE_CURSORS False): DECLARE ... WITH HOLD, then FETCH in later transactions."""
    import psycopg

    with _client(bouncer) as client, _client(bouncer) as other:
        client.execute("DECLARE rows CURSOR WITH HOLD FOR SELECT generate_series(1, 10)")
        transaction = _hold_the_idle_server_connection(other)
        try:
            with pytest.raises(psycopg.errors.InvalidCursorName):
                client.execute("FETCH 5 FROM rows")
        finally:
            transaction.__exit__(None, None, None)


def test_a_prepared_statement_is_gone_in_the_next_transaction(bouncer: launcher.PgBouncer) -> None:
    """What psycopg does with a prepare_threshold (Django sets None: never prepare): PgBouncer 1.18 cannot carry a
    prepared statement to the server connection the next transaction gets."""
    import psycopg

    with _client(bouncer) as client, _client(bouncer) as other:
        client.execute("SELECT %s::int", [1], prepare=True)
        transaction = _hold_the_idle_server_connection(other)
        try:
            with pytest.raises(psycopg.errors.InvalidSqlStatementName):
                client.execute("SELECT %s::int", [2], prepare=True)
        finally:
            transaction.__exit__(None, None, None)


def test_the_time_zone_django_sets_follows_the_client(bouncer: launcher.PgBouncer) -> None:
    """Django sets the session's time zone on a new connection when the server's differs (here Etc/UTC against
    UTC): TimeZone is a parameter PgBouncer tracks per client and sets on each server connection the client gets."""
    with _client(bouncer) as client, _client(bouncer) as other:
        client.execute("SET TIME ZONE 'America/New_York'")
        transaction = _hold_the_idle_server_connection(other)
        try:
            assert client.execute("SHOW TimeZone").fetchone()[0] == "America/New_York"
            assert other.execute("SHOW TimeZone").fetchone()[0] != "America/New_York"
        finally:
            transaction.__exit__(None, None, None)


def test_behind_pgbouncer_pins_the_settings_and_refuses_session_state() -> None:
    from django.core.exceptions import ImproperlyConfigured

    from ttr_server.databases import behind_pgbouncer

    database = behind_pgbouncer({"ENGINE": "django.db.backends.postgresql", "OPTIONS": {"pool": {"max_size": 4}}})
    assert database["DISABLE_SERVER_SIDE_CURSORS"] is True
    assert database["OPTIONS"] == {"pool": {"max_size": 4}, "server_side_binding": False, "prepare_threshold": None}
    for refused in ({"server_side_binding": True}, {"prepare_threshold": 5}, {"assume_role": "app"}):
        with pytest.raises(ImproperlyConfigured):
            behind_pgbouncer({"ENGINE": "django.db.backends.postgresql", "OPTIONS": refused})
    with pytest.raises(ImproperlyConfigured):
        behind_pgbouncer({"ENGINE": "django.db.backends.sqlite3"})


def _through_pgbouncer() -> str:
    admin_url = os.environ.get("TTR_PGBOUNCER_ADMIN_URL", "")
    if not admin_url:
        pytest.skip("this run goes to PostgreSQL direct (scripts/test-all's first run goes through PgBouncer: "
                    "TTR_TEST_PGBOUNCER=1 ./scripts/test-env ...)")
    return admin_url


@pytest.mark.django_db
def test_this_run_goes_through_pgbouncer_in_transaction_mode() -> None:
    _through_pgbouncer()
    from django.conf import settings
    from django.db import connection

    database = settings.DATABASES["default"]
    assert database["DISABLE_SERVER_SIDE_CURSORS"] is True and os.environ.get("DB_PGBOUNCER") == "1"
    with connection.cursor() as cursor:
        cursor.execute("SELECT inet_server_port()")  # the server's own port: PostgreSQL's, not PgBouncer's
        (server_port,) = cursor.fetchone()
    assert int(database["PORT"]) != server_port
    pools = launcher.pools_at(os.environ["TTR_PGBOUNCER_ADMIN_URL"], database["NAME"])
    assert pools and {row["pool_mode"] for row in pools} == {"transaction"}, pools


@pytest.mark.django_db
def test_this_runs_connections_bind_on_the_client_and_iterate_without_a_named_cursor() -> None:
    _through_pgbouncer()
    import psycopg
    from django.contrib.auth import get_user_model
    from django.db import connection

    connection.ensure_connection()
    assert connection.connection.prepare_threshold is None
    with connection.cursor() as cursor:
        assert isinstance(cursor.cursor, psycopg.ClientCursor)
    users = get_user_model().objects
    for number in range(3):
        users.create(username=f"iterated-{number}")
    open_cursors = []
    for _user in users.filter(username__startswith="iterated-").iterator(chunk_size=1):
        with connection.cursor() as cursor:  # a server-side cursor would be DECLAREd and open while we iterate
            cursor.execute("SELECT count(*) FROM pg_cursors")
            open_cursors.append(cursor.fetchone()[0])
    assert open_cursors == [0, 0, 0]


def test_the_launcher_says_so_and_goes_direct_without_pgbouncer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(launcher, "PGBOUNCER", str(tmp_path / "no-pgbouncer"))
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/x")
    assert launcher.main(["--", "true"]) == 0
    assert "is not installed" in capsys.readouterr().out
