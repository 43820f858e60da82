"""Says which database the server tests run on (PostgreSQL when reachable, else SQLite)."""

from __future__ import annotations

import pytest


def pytest_report_header(config: pytest.Config) -> str:
    try:
        from django.conf import settings

        engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    except Exception:  # Django not configured (engine-only run with -p no:django)
        return "database: none (engine tests only)"
    if engine == "sqlite3":
        return "database: SQLite (PostgreSQL not reachable: tests marked 'postgres' run on SQLite)"
    return f"database: {engine} at {settings.DATABASES['default'].get('HOST')}"


