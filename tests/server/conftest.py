"""Server test setup: Celery runs tasks inline (tests/server/test_workers.py runs a real worker), auth
throttling and the limits on attempts are relaxed (not the cap of games), the state cache starts empty."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _server_settings(settings: pytest.FixtureRequest) -> Iterator[None]:
    import bots.tasks  # noqa: F401  (registers the tasks a worker would: eager runs need them by name)
    import games.tasks  # noqa: F401
    from games.store import states
    from ttr_server.celery import app

    settings.AUTH_THROTTLE_RATE = "100000/min"
    # The limits on wrong passwords, confirmation mails and queue joins (tests/server/test_abuse_limits.py sets them).
    settings.TTR_PASSWORD_FAILURES_PER_USERNAME = settings.TTR_PASSWORD_FAILURES_PER_IP = 100000
    settings.TTR_CONFIRMATION_MAILS_PER_ACCOUNT = settings.TTR_CONFIRMATION_MAILS_PER_ADDRESS = 100000
    settings.TTR_QUEUE_JOINS = 100000
    # A ranked game is analysed as it is scored: inline here (eager), seconds of CPU for each of the suite's ranked
    # games. Off but where a test turns it on (tests/server/test_analysis.py).
    settings.TTR_ANALYSIS_RANKED = False
    app.conf.task_always_eager = True
    states.forget_all()
    yield
    states.forget_all()


@pytest.fixture
def on_postgres() -> bool:
    from django.db import connection

    return connection.vendor == "postgresql"
