"""Server test setup: Celery runs tasks inline (tests/server/test_workers.py runs a real worker), auth
throttling is relaxed, the state cache starts empty."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _server_settings(settings: pytest.FixtureRequest) -> Iterator[None]:
    import bots.tasks  # noqa: F401  (registers the tasks a worker would: eager runs need them by name)
    import games.tasks  # noqa: F401
    from games import states
    from ttr_server.celery import app

    settings.AUTH_THROTTLE_RATE = "100000/min"
    app.conf.task_always_eager = True
    states.forget_all()
    yield
    states.forget_all()


@pytest.fixture
def on_postgres() -> bool:
    from django.db import connection

    return connection.vendor == "postgresql"
