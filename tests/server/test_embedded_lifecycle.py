"""Integration: stopping the embedded server (`make run`, `manage.py runall`) stops everything it started.

Each case starts a live server (bench/live/embedded.py), checks that its Celery worker runs, signals the
server as a user or a supervisor would, and checks that within a few seconds no process it started is left.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import pytest

from bench.live.embedded import embedded_server, make_run_command, runall_command
from bench.live.processes import LINUX

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not LINUX, reason="the live-server helpers read /proc")]

STOPPED_WITHIN = 8  # seconds: uvicorn's shutdown, then the worker's warm shutdown


@pytest.mark.parametrize(
    ("command", "signum", "to_group"),
    [
        pytest.param(runall_command, signal.SIGTERM, False, id="runall-SIGTERM"),
        pytest.param(runall_command, signal.SIGINT, False, id="runall-SIGINT"),
        pytest.param(runall_command, signal.SIGKILL, False, id="runall-SIGKILL"),  # the worker dies with it
        pytest.param(make_run_command, signal.SIGTERM, False, id="make-run-SIGTERM"),  # make passes it on
        # make does not pass SIGINT on (the terminal sends Ctrl+C to the whole foreground group): do that
        pytest.param(make_run_command, signal.SIGINT, True, id="make-run-Ctrl+C"),
    ],
)
def test_a_signal_to_the_server_stops_its_worker_too(
    command: Callable[[int], list[str]], signum: signal.Signals, to_group: bool
) -> None:
    with embedded_server(command, migrate=command is runall_command) as server:
        workers = server.workers()
        if to_group:
            os.killpg(server.process.pid, signum)
        else:
            server.process.send_signal(signum)
        left = server.wait_stopped(STOPPED_WITHIN)
        assert not left, f"still running {STOPPED_WITHIN} s after {signum.name} (workers: {workers}):\n{server.log()}"
