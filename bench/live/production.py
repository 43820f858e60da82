"""`production_stack()`: what production runs instead of `make run`, on the machine's PostgreSQL and Redis: a
fresh PostgreSQL database (created, migrated, dropped at the end), Redis (one db number, flushed, for the channel
layer and the broker), one uvicorn web process and one Celery worker (solo pool) reading a queue of its own
(TTR_TASK_QUEUE, which the web process sends to as well), each in a process group of its own; on exit both are
stopped with SIGTERM and it fails if anything they started still runs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench.live.embedded import EMBEDDED_UNSET, LiveServer
from bench.live.local_services import POSTGRES_ADMIN_URL, REDIS_SERVER_URL, scratch_database
from bench.live.processes import ROOT, START_SECONDS, STOP_SECONDS, Process, free_port, group_members
from ttr_server import local_secrets


@dataclass
class ProductionStack(LiveServer):
    """The web process (`process`, uvicorn) and the worker (`worker_process`), each leading its own group."""

    worker_process: subprocess.Popen[bytes] = field(kw_only=True)
    database_url: str = field(kw_only=True)
    redis_url: str = field(kw_only=True)
    queue: str = field(kw_only=True)

    def processes(self) -> list[Process]:
        return group_members(self.process.pid) + group_members(self.worker_process.pid)

    def bot_worker(self) -> int:
        return self.worker_process.pid

    def log(self) -> str:
        return "\n".join(
            f"--- {name}:\n" + (self.var_dir / name).read_text(errors="replace")[-3000:]
            for name in ("web.log", "worker.log")
            if (self.var_dir / name).exists()
        )

    def wait_worker_ready(self) -> None:
        """Wait until the worker consumes its queue (its log says "ready"): a task sent before would wait."""
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            assert self.worker_process.poll() is None, f"the worker exited:\n{self.log()}"
            if " ready." in (self.var_dir / "worker.log").read_text(errors="replace"):
                return
            time.sleep(0.1)
        raise AssertionError(f"the worker was not ready in {START_SECONDS} s:\n{self.log()}")

    def stop(self) -> list[Process]:
        """SIGTERM to the web process, then to the worker (a warm shutdown); what still ran after STOP_SECONDS
        (then killed, with its whole group)."""
        left = []
        for process in (self.process, self.worker_process):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + STOP_SECONDS
            while (running := group_members(process.pid)) and time.monotonic() < deadline:
                process.poll()
                time.sleep(0.05)
            if running:
                left += running
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        return left


def production_env(var_dir: Path, database_url: str, redis_url: str, queue: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in EMBEDDED_UNSET}
    env.update(
        TTR_VAR_DIR=str(var_dir), DATABASE_URL=database_url, REDIS_URL=redis_url, TTR_TASK_QUEUE=queue,
        DEBUG="0", PYTHONUNBUFFERED="1",
    )
    local_secrets.ensure(local_secrets.default_directory(env))  # a production process needs secrets of its own
    return env


def worker_command(queue: str, name: str) -> list[str]:
    """One Celery worker, solo pool (tasks run in the process that takes them: no hop to a pool child)."""
    celery = [sys.executable, "-m", "celery", "-A", "ttr_server", "worker", "--pool=solo", "--loglevel=INFO"]
    return [*celery, "-Q", queue, "--hostname", f"{name}@%h"]


def web_command(port: int) -> list[str]:
    uvicorn = [sys.executable, "-m", "uvicorn", "ttr_server.asgi:application", "--host", "127.0.0.1"]
    return [*uvicorn, "--port", str(port), "--lifespan", "off", "--no-access-log", "--ws-per-message-deflate", "false"]


@contextmanager
def stack_environment(
    name: str, redis_db: int, admin_url: str = POSTGRES_ADMIN_URL
) -> Iterator[tuple[Path, dict[str, str]]]:
    """Where a production-layout stack runs: Redis db `redis_db` (flushed at start and at the end: pick one
    nothing else uses), a scratch database `name`, migrated, and a temporary directory for its files and logs.
    Yields that directory and the processes' environment (its task queue is `<name>-tasks`)."""
    import redis

    redis_url = f"{REDIS_SERVER_URL}/{redis_db}"
    store = redis.Redis.from_url(redis_url)
    store.flushdb()
    try:
        with scratch_database(name, admin_url) as database_url, tempfile.TemporaryDirectory(
            prefix=f"{name}-", ignore_cleanup_errors=True
        ) as tmp:
            var_dir = Path(tmp)
            env = production_env(var_dir, database_url, redis_url, queue=f"{name}-tasks")
            subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
            yield var_dir, env
    finally:
        store.flushdb()
        store.close()


@contextmanager
def production_stack(
    *, redis_db: int = 9, name: str | None = None, admin_url: str = POSTGRES_ADMIN_URL
) -> Iterator[ProductionStack]:
    """A live stack as production runs it, on the local PostgreSQL and Redis (see the module's docstring).

    `redis_db`: the Redis db number it owns (see `stack_environment`).
    `name`: of the database (`ttr_live_<pid>` by default) and of the task queue."""
    name = name or f"ttr_live_{os.getpid()}"
    with stack_environment(name, redis_db, admin_url) as (var_dir, env):
        port = free_port()

        def start(command: list[str], log_name: str) -> subprocess.Popen[bytes]:
            with open(var_dir / log_name, "wb") as log:
                return subprocess.Popen(
                    command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
                )

        worker = start(worker_command(env["TTR_TASK_QUEUE"], name), "worker.log")
        try:
            web = start(web_command(port), "web.log")
        except BaseException:
            worker.kill()
            worker.wait()
            raise
        stack = ProductionStack(
            web, port, var_dir, worker_process=worker, database_url=env["DATABASE_URL"], redis_url=env["REDIS_URL"],
            queue=env["TTR_TASK_QUEUE"],
        )
        try:
            stack.wait_serving()
            stack.wait_worker_ready()
            yield stack
        finally:
            left = stack.stop()
        assert not left, f"still running {STOP_SECONDS} s after SIGTERM: {left}\n{stack.log()}"
