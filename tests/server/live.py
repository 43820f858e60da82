"""A live embedded server, started as `make run` starts it, for integration tests and bench/bot_latency.py.

`embedded_server()` makes a temporary var dir (TTR_VAR_DIR), migrates a fresh SQLite database there, starts
`manage.py runall` on a free port in a process group of its own, with DATABASE_URL, REDIS_URL and
CELERY_BROKER_URL removed from the environment (so: SQLite, the in-memory channel layer and the filesystem
broker, as under `make run`), and waits until it answers. On exit it stops the server with SIGTERM and fails
if any process the server started is still running. Processes are found by their process group in /proc:
Linux only (`LINUX` says whether these helpers can run).

`production_stack()` starts what production runs instead, on the local servers: a fresh PostgreSQL database
(created, migrated, dropped at the end), Redis (one db number, flushed, for the channel layer and the
broker), one uvicorn web process and one Celery worker (solo pool) reading a queue of its own
(TTR_TASK_QUEUE, which the web process sends to as well), each in a process group of its own; on exit both
are stopped with SIGTERM and it fails if anything they started still runs.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ttr_server import local_secrets

ROOT = Path(__file__).resolve().parents[2]
LINUX = Path("/proc/self/stat").exists()
# what test-env, a shell or this process's settings may have set (the metrics directory follows TTR_VAR_DIR)
EMBEDDED_UNSET = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "PROMETHEUS_MULTIPROC_DIR")
START_SECONDS = 60
STOP_SECONDS = 15
POSTGRES_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"  # the local server's maintenance database
REDIS_SERVER_URL = "redis://127.0.0.1:6379"


def runall_command(port: int) -> list[str]:
    return [sys.executable, "manage.py", "runall", "--port", str(port)]


def make_run_command(port: int) -> list[str]:
    # -o: never rebuild the virtualenv here, even when pyproject.toml is newer than its stamp
    return ["make", "--no-print-directory", "-o", ".venv/.installed", "run", f"PORT={port}"]


def embedded_env(var_dir: Path) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in EMBEDDED_UNSET}
    env.update(TTR_VAR_DIR=str(var_dir), PYTHONUNBUFFERED="1")
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_answering(
    url: str, process: subprocess.Popen[bytes], log: Callable[[], str], seconds: float = START_SECONDS
) -> None:
    """Wait until `url` answers 200, failing with the end of `log()` if `process` exits or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited ({process.returncode}):\n{log()}"
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"the server did not answer in {seconds} s:\n{log()}")


@dataclass(frozen=True)
class Process:
    pid: int
    command: str


def group_members(group: int) -> list[Process]:
    """The processes of a process group that are still running (zombies are dead: not counted)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, pgrp, ...
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(Process(int(stat.parent.name), command.strip()))
    return found


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
            subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
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


@dataclass
class ProductionStack(LiveServer):
    """The web process (`process`, uvicorn) and the worker (`worker_process`), each leading its own group."""

    worker_process: subprocess.Popen[bytes] = field(kw_only=True)
    database_url: str = field(kw_only=True)
    redis_url: str = field(kw_only=True)
    queue: str = field(kw_only=True)

    def processes(self) -> list[Process]:
        return group_members(self.process.pid) + group_members(self.worker_process.pid)

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
def scratch_database(name: str, admin_url: str = POSTGRES_ADMIN_URL) -> Iterator[str]:
    """A new, empty PostgreSQL database `name` on the server of `admin_url`; its URL. Dropped on exit."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield admin_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


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


def client(server: LiveServer, username: str, password: str = "correct-horse-9") -> httpx.Client:
    """An HTTP client of the server's API with the token of a newly registered user."""
    http = httpx.Client(base_url=server.api, timeout=30)
    answer = http.post("/auth/register", json={"username": username, "password": password})
    assert answer.status_code == 201, answer.text
    http.headers["Authorization"] = f"Token {answer.json()['token']}"
    return http


def my_decision(http: httpx.Client, game: str, seconds: float = 60, poll: float = 0.02) -> dict[str, Any] | None:
    """Wait until the client's user alone decides in `game`: the bots have answered, so nothing else can move
    the seq. The `/state` answer then, or None once the game is over."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = http.get(f"/games/{game}/state").json()
        if state["status"] != "active":
            return None
        if state["view"]["deciding_seats"] == [state["view"]["your_seat"]]:
            return dict(state)
        time.sleep(poll)
    raise AssertionError(f"the bots did not answer in {seconds} s")
