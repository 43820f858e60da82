"""The fault suite needs PostgreSQL (the local server), redis-server (started per run on its own port) and Linux
(processes found through /proc); without them it is skipped, saying which is missing."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from bench.fault_stack.harness import Harness, harness
from bench.live.processes import LINUX


def missing() -> str | None:
    if not LINUX:
        return "needs Linux (/proc)"
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        return "needs PostgreSQL (scripts/test-env sets DATABASE_URL when 127.0.0.1:5432 answers)"
    if shutil.which("redis-server") is None:
        return "needs redis-server"
    return None


@pytest.fixture(scope="package")
def stack(request: pytest.FixtureRequest) -> Iterator[Harness]:
    if (why := missing()) is not None:
        pytest.skip(why)
    name = f"ttr_faults_{os.getpid()}"
    extra = {"AUTH_THROTTLE_RATE": "100000/min", "TTR_STRONG_SECONDS": "0.3", "TTR_LOST_TASK_SECONDS": "3"}
    with harness(name, web=2, workers=1, strong_workers=1, concurrency=1, extra_env=extra) as running:
        yield running
