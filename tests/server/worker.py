"""A real Celery worker for integration tests: its own process, on Redis, reading the test's PostgreSQL.

`celery_worker()` starts `celery -A ttr_server worker` (thread pool, two threads, so that two deliveries of
one task can really race) with DATABASE_URL naming the test database and the run's own queue
(TTR_TASK_QUEUE, set by scripts/test-env), turns the test process's eager mode off so that tasks travel
through the broker, and stops the worker at the end. Tests that use it need committed data
(`django_db(transaction=True)`): the worker sees only what is committed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 30
T = TypeVar("T")


def worker_env(**extra: str) -> dict[str, str]:
    from django.conf import settings
    from django.db import connection

    db = connection.settings_dict
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        REDIS_URL=settings.REDIS_URL,
        TTR_TASK_QUEUE=settings.CELERY_TASK_DEFAULT_QUEUE,
        PYTHONUNBUFFERED="1",
        LOG_TASKS="1",  # the tests read the worker's "received" and "succeeded" lines
        **extra,
    )
    env.pop("CELERY_BROKER_URL", None)
    return env


@contextmanager
def celery_worker(log_path: Path, *, queues: str | None = None, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """A worker process (`queues`: only those, comma-separated; else every queue of the settings)."""
    from ttr_server.celery import app

    command = [
        sys.executable, "-m", "celery", "-A", "ttr_server", "worker", "--pool=threads", "--concurrency=2",
        "--loglevel=INFO", "--without-gossip", "--without-mingle", "--without-heartbeat",
        *(["-Q", queues] if queues else []),
    ]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=worker_env(**env), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        wait_for(lambda: b"ready." in log_path.read_bytes() or None, START_SECONDS, lambda: _tail(log_path))
        yield process
    finally:
        app.conf.task_always_eager = eager
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_for(found: Callable[[], T | None], seconds: float, why: Callable[[], str] = lambda: "") -> T:
    """Poll `found` until it answers something other than None (or fail after `seconds`)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = found()
        if answer is not None and answer is not False:
            return answer
        time.sleep(0.05)
    raise AssertionError(f"not done within {seconds} s {why()}")


def _tail(path: Path) -> str:
    return path.read_bytes()[-3000:].decode(errors="replace")


def needs_real_services() -> Any:
    """Skip unless the tests run on PostgreSQL and Redis (the worker reads the test database over TCP)."""
    import pytest
    from django.conf import settings

    on_postgres = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    return pytest.mark.skipif(
        not (on_postgres and settings.REDIS_URL), reason="needs PostgreSQL and Redis (scripts/test-env finds them)"
    )
