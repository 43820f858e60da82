"""A live embedded server, started as `make run` starts it, for integration tests and bench/bot_latency.py.

`embedded_server()` makes a temporary var dir (TTR_VAR_DIR), migrates a fresh SQLite database there, starts
`manage.py runall` on a free port in a process group of its own, with DATABASE_URL, REDIS_URL and
CELERY_BROKER_URL removed from the environment (so: SQLite, the in-memory channel layer and the filesystem
broker, as under `make run`), and waits until it answers. On exit it stops the server with SIGTERM and fails
if any process the server started is still running (bench/live/processes.py: Linux only).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.live.processes import ROOT, STOP_SECONDS, Process, free_port, group_members, wait_answering

# what test-env, a shell or this process's settings may have set (the metrics directory follows TTR_VAR_DIR)
# What `make run` never has: the test run's servers (and its PgBouncer switch: the first test run sets DB_PGBOUNCER=1).
EMBEDDED_UNSET = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "PROMETHEUS_MULTIPROC_DIR", "DB_PGBOUNCER")


def runall_command(port: int) -> list[str]:
    return [sys.executable, "manage.py", "runall", "--port", str(port)]


def make_run_command(port: int) -> list[str]:
    # -o: never rebuild the virtualenv here, even when pyproject.toml is newer than its stamp
    return ["make", "--no-print-directory", "-o", ".venv/.installed", "run", f"PORT={port}"]


def embedded_env(var_dir: Path) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in EMBEDDED_UNSET}
    env.update(TTR_VAR_DIR=str(var_dir), PYTHONUNBUFFERED="1")
    return env


@dataclass
class LiveServer:
    process: subprocess.Popen[bytes]
    port: int
    var_dir: Path

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def processes(self) -> list[Process]:
        """Everything the server started and that still runs (its process group, itself included)."""
        return group_members(self.process.pid)

    def workers(self) -> list[Process]:
        """The embedded server's two workers: the default and strong queues', and the analysis queue's."""
        workers = [p for p in self.processes() if " -m celery " in p.command and " worker" in p.command]
        assert len(workers) == 2, (self.processes(), self.log())
        return workers

    def bot_worker(self) -> int:
        """The pid of the worker that plays the bots' turns (the default queue's)."""
        return next(p.pid for p in self.workers() if "embedded@" in p.command)

    def log(self) -> str:
        return (self.var_dir / "server.log").read_text(errors="replace")[-4000:]

    def wait_serving(self) -> None:
        wait_answering(f"{self.api}/games", self.process, self.log)

    def wait_stopped(self, seconds: float) -> list[Process]:
        """Wait until nothing the server started runs; what still runs after `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            self.process.poll()  # reap the top process, or it stays a zombie
            left = self.processes()
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.05)

    def stop(self) -> list[Process]:
        """SIGTERM to the server; what was still running after STOP_SECONDS (then killed)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        left = self.wait_stopped(STOP_SECONDS)
        if left:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        return left


@contextmanager
def embedded_server(command: Callable[[int], list[str]] = runall_command, *, migrate: bool = True) -> Iterator[LiveServer]:
    """A live server as `make run` starts it (`command(port)`; `migrate=False` when the command migrates)."""
    with tempfile.TemporaryDirectory(prefix="ttr-live-", ignore_cleanup_errors=True) as tmp:
        var_dir = Path(tmp)
        env = embedded_env(var_dir)
        if migrate:
            done = subprocess.run(
                [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, capture_output=True,
                text=True,
            )
            assert done.returncode == 0, f"migrate failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        port = free_port()
        with open(var_dir / "server.log", "wb") as log:
            process = subprocess.Popen(
                command(port), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        server = LiveServer(process, port, var_dir)
        try:
            server.wait_serving()
            yield server
        finally:
            left = server.stop()
        assert not left, f"still running {STOP_SECONDS} s after SIGTERM: {left}\n{server.log()}"
