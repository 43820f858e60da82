"""Says which database the server tests run on (PostgreSQL when reachable, else SQLite), and hashes the tests'
passwords fast."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings as hypothesis_settings

# No per-example deadline for the property tests: on a shared 2-core machine (two pytest runs, browsers and servers
# side by side) one example can take ten times its quiet time, and hypothesis's 200 ms default then fails a test
# whose property holds. A test that must be fast is a benchmark (bench/), not a deadline here.
hypothesis_settings.register_profile("shared-machine", deadline=None)
hypothesis_settings.load_profile("shared-machine")

# Every test's passwords are hashed with MD5: PBKDF2, the production hasher, costs ~0.5 s a user on this machine.
# (The servers a test starts in a process of its own keep the production hasher.)
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True, scope="session")
def _fast_passwords() -> Iterator[None]:
    try:
        from django.conf import settings
        from django.test.utils import override_settings

        settings.PASSWORD_HASHERS  # noqa: B018  (raises when Django is not configured: an engine-only run)
    except Exception:
        yield
        return
    with override_settings(PASSWORD_HASHERS=FAST_HASHERS):
        yield


def pytest_report_header(config: pytest.Config) -> str:
    try:
        from django.conf import settings

        engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    except Exception:  # Django not configured (engine-only run with -p no:django)
        return "database: none (engine tests only)"
    if engine == "sqlite3":
        return "database: SQLite (PostgreSQL not reachable: tests marked 'postgres' run on SQLite)"
    bouncer = settings.DATABASES["default"].get("DISABLE_SERVER_SIDE_CURSORS")  # set by DB_PGBOUNCER=1
    through = " through PgBouncer (transaction mode)" if bouncer else ""
    return f"database: {engine} at {settings.DATABASES['default'].get('HOST')}{through}"




@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None) -> Iterator[None]:
    """pytest-django's, and when the run's connections go through a PgBouncer of its own (scripts/test-env with
    TTR_TEST_PGBOUNCER=1), that PgBouncer lets go of the test databases before pytest-django drops them: PostgreSQL
    refuses to drop a database while PgBouncer holds idle server connections to it."""
    yield
    import os

    if not os.environ.get("TTR_PGBOUNCER_ADMIN_URL"):
        return
    from django.db import connections

    from bench.fault_stack.pgbouncer import release_from_environment

    for alias in connections:
        release_from_environment(connections[alias].settings_dict["NAME"])
