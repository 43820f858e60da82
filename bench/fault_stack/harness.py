"""The production layout on this machine, with the means to break it: for the fault suite and bench/load.py,
by_day.py and faults.py.

`harness()` starts, for one run: a Redis server of its own (on a free port: restarting it disturbs nobody else),
a scratch PostgreSQL database on the local server (created, migrated, dropped at the end), and the stack of
ttr_server/stack.py on them (N web processes, the default queue's worker(s), the strong bot's worker(s), beat),
each process logging JSON lines to `<var>/logs/<name>.log`. Its faults are real: signals to real processes, a
Redis server killed and started again, PostgreSQL's own `pg_terminate_backend` and `ALLOW_CONNECTIONS`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.fault_stack.redis_server import RedisServer
from bench.live.local_services import POSTGRES_ADMIN_URL, scratch_database
from bench.live.processes import free_port
from ttr_server.stack import ROOT, STOP_SECONDS, Stack, stack_env


@dataclass
class Harness:
    stack: Stack
    redis: RedisServer
    database_url: str
    var_dir: Path
    env: dict[str, str]

    @property
    def urls(self) -> list[str]:
        return self.stack.urls

    @property
    def public_url(self) -> str:
        """The balancer's URL with `balancer=True`, else the first web process's."""
        return self.stack.public_url

    @property
    def database(self) -> str:
        return self.database_url.rsplit("/", 1)[1]

    def _admin(self, statement: str, *params: Any) -> list[tuple[Any, ...]]:
        """A statement on the server's maintenance database (what no app connection may be cut from)."""
        return _execute(self.database_url.rsplit("/", 1)[0] + "/postgres", statement, params)

    def query(self, statement: str, *params: Any) -> list[tuple[Any, ...]]:
        """A query on the stack's database, on a connection of its own."""
        return _execute(self.database_url, statement, params)

    def terminate_connections(self) -> int:
        """Every app connection to the database, cut by the server (`pg_terminate_backend`); how many."""
        rows = self._admin(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            self.database,
        )
        return len(rows)

    def refuse_connections(self, seconds: float) -> None:
        """The database is gone for `seconds`: new connections refused, open ones cut."""
        with self.database_refused():
            time.sleep(seconds)

    @contextmanager
    def database_refused(self) -> Iterator[None]:
        """The database is gone until the block ends: new connections refused, open ones cut."""
        self._admin(f'ALTER DATABASE "{self.database}" ALLOW_CONNECTIONS false')
        try:
            self.terminate_connections()
            yield
        finally:
            self._admin(f'ALTER DATABASE "{self.database}" ALLOW_CONNECTIONS true')

    def connections(self) -> int:
        return int(self._admin("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", self.database)[0][0])

    def metrics(self) -> str:
        return httpx.get(f"{self.urls[0]}/metrics", timeout=10).text

    def manage(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *arguments], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=300
        )

    def log_lines(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every JSON line every process wrote, with the process's name."""
        for path in sorted((self.var_dir / "logs").glob("*.log")):
            for line in path.read_text(errors="replace").splitlines():
                if line.startswith("{"):
                    try:
                        yield path.stem, json.loads(line)
                    except ValueError:
                        continue

    def server_errors(self) -> list[str]:
        """Log lines of a 500 (Django's 'Internal Server Error') or of a socket's unexpected failure."""
        found = []
        for name, line in self.log_lines():
            event = str(line.get("event", ""))
            if line.get("level") in ("error", "critical") and (
                (line.get("logger") == "django.request" and "Internal Server Error" in event)
                or "unexpected error on a game socket" in event
            ):
                found.append(f"{name}: {event[:300]} {str(line.get('exception', ''))[-600:]}")
        return found


def _execute(url: str, statement: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        cursor = connection.execute(statement, params)  # type: ignore[arg-type]
        return cursor.fetchall() if cursor.description else []


@contextmanager
def harness(
    name: str, *, web: int = 2, workers: int = 1, strong_workers: int = 1, concurrency: int | None = None,
    extra_env: dict[str, str] | None = None, admin_url: str = POSTGRES_ADMIN_URL, balancer: bool = False,
    analysis_workers: int = 1, beat: bool = True, strong_concurrency: int | None = None, priorities: bool = True,
) -> Iterator[Harness]:
    """The stack on a Redis server of its own and a scratch database `name` on the PostgreSQL server of `admin_url`
    (the machine's, or a cluster a drill started). `extra_env` comes last: it may point the stack elsewhere (a
    PgBouncer, a multi-host URL, Sentinel) while the harness keeps its scratch database and Redis for its checks.
    With `balancer`, HAProxy runs in front of the web processes on a free port (`Harness.public_url`)."""
    with tempfile.TemporaryDirectory(prefix=f"{name}-", ignore_cleanup_errors=True) as tmp:
        var_dir = Path(tmp)
        (var_dir / "logs").mkdir()
        redis_server = RedisServer(free_port(), var_dir / "logs" / "redis-server.txt")
        redis_server.start()
        try:
            with scratch_database(name, admin_url) as database_url:
                env = {**stack_env_for(database_url, redis_server.url, var_dir), **(extra_env or {})}
                stack = Stack(
                    env, web=web, base_port=_free_ports(web), workers=workers, strong_workers=strong_workers,
                    concurrency=concurrency, strong_concurrency=strong_concurrency or concurrency,
                    log_dir=var_dir / "logs", analysis_workers=analysis_workers, beat=beat, priorities=priorities,
                    balancer_port=free_port() if balancer else None, stats_port=free_port(),
                )
                stack.migrate()
                try:
                    stack.start()
                    yield Harness(stack, redis_server, database_url, var_dir, env)
                finally:
                    killed = stack.stop()
                assert not killed, f"still running {STOP_SECONDS:.0f} s after SIGTERM (then killed): {killed}"
        finally:
            redis_server.stop()


def stack_env_for(database_url: str, redis_url: str, var_dir: Path) -> dict[str, str]:
    env = stack_env(var_dir=var_dir, base={**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url})
    for unset in ("CELERY_BROKER_URL", "TTR_TASK_QUEUE", "TTR_STRONG_QUEUE", "DJANGO_SETTINGS_MODULE"):
        env.pop(unset, None)  # the stack's own queues (compose's defaults) on its own Redis
    env.update(DEBUG="0", LOG_FORMAT="json")
    return env


def _free_ports(count: int) -> int:
    """The first of `count` consecutive free ports."""
    for _ in range(50):
        first = free_port()
        if all(_port_free(first + i) for i in range(count)):
            return first
    raise RuntimeError("no free ports")


def _port_free(port: int) -> bool:
    import socket

    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True
