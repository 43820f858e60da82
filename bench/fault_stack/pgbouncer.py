"""A PgBouncer of one run's own on a free loopback port, in transaction mode, in front of a PostgreSQL server.

Its configuration is production's (deploy/pgbouncer.ini's [pgbouncer] section: pool mode, sizes, timeouts) with this
machine's parts put over it: the port, a temporary directory for its files, every database name (`*`) forwarded to
the server at `server_host:server_port`, `auth_type = trust` (the machine's PostgreSQL trusts loopback) and an admin
console (the database `pgbouncer`: SHOW POOLS, KILL, RECONNECT).

    python -m bench.fault_stack.pgbouncer [--server-port 5432] -- COMMAND...

runs COMMAND with DATABASE_URL's host and port moved to a PgBouncer of its own, DB_PGBOUNCER=1 and
TTR_PGBOUNCER_ADMIN_URL set, and stops PgBouncer afterwards (scripts/test-env uses it for the test run).
"""

from __future__ import annotations

import argparse
import configparser
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_INI = ROOT / "deploy" / "pgbouncer.ini"
PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
START_SECONDS = 15
# Production's settings that have no meaning here (files and addresses) or would slow a test run down.
LOCAL = {
    "listen_addr": "127.0.0.1",
    "unix_socket_dir": "",
    "auth_type": "trust",
    "admin_users": "postgres",
    "stats_users": "postgres",
    "min_pool_size": "0",  # no server connection kept to a database nobody uses any more (tests create and drop them)
    "server_check_delay": "0",  # check a server connection before reuse: a test may terminate backends
    "logfile": "",
    "pidfile": "",
}


def installed() -> bool:
    return os.access(PGBOUNCER, os.X_OK)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run_as_postgres() -> dict[str, Any]:
    """PgBouncer (like PostgreSQL) will not run as root: then it runs as the `postgres` user."""
    if os.geteuid() != 0:
        return {}
    return {"user": "postgres", "group": pwd.getpwnam("postgres").pw_gid}


class PgBouncer:
    """One PgBouncer process in `directory`, listening on 127.0.0.1:`port`."""

    def __init__(self, directory: Path, *, server_host: str = "127.0.0.1", server_port: int = 5432,
                 user: str = "postgres", port: int | None = None, pool_size: int | None = None) -> None:
        self.directory, self.user = directory, user
        self.server_host, self.server_port = server_host, server_port
        self.port = port or _free_port()
        self.pool_size = pool_size
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def log(self) -> Path:
        return self.directory / "pgbouncer.log"

    @property
    def admin_url(self) -> str:
        return f"postgres://{self.user}@127.0.0.1:{self.port}/pgbouncer"

    def url(self, database: str) -> str:
        return f"postgres://{self.user}@127.0.0.1:{self.port}/{database}"

    def write_config(self) -> Path:
        production = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=(";",))
        production.read(PRODUCTION_INI)
        settings = {**dict(production["pgbouncer"]), **LOCAL, "listen_port": str(self.port)}
        settings["auth_file"] = str(self.directory / "userlist.txt")
        if self.pool_size is not None:
            settings["default_pool_size"] = str(self.pool_size)
        (self.directory / "userlist.txt").write_text(f'"{self.user}" ""\n')
        lines = ["[databases]", f"* = host={self.server_host} port={self.server_port}", "", "[pgbouncer]"]
        lines += [f"{key} = {value}" for key, value in settings.items()]
        path = self.directory / "pgbouncer.ini"
        path.write_text("\n".join(lines) + "\n")
        return path

    def start(self) -> None:
        config = self.write_config()
        owner = _run_as_postgres()
        if owner:
            shutil.chown(self.directory, "postgres")
            for path in self.directory.iterdir():
                shutil.chown(path, "postgres")
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                [PGBOUNCER, str(config)], stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **owner
            )
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"pgbouncer exited ({self.process.returncode}): {self.log.read_text()[-2000:]}")
            try:
                self.admin("SHOW VERSION")
                return
            except Exception:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"pgbouncer did not answer in {START_SECONDS} s: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # immediate shutdown (SIGINT would PAUSE first: wait for queries)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def admin(self, command: str) -> list[dict[str, Any]]:
        return admin_command(self.admin_url, command)

    def pools(self, database: str | None = None) -> list[dict[str, Any]]:
        """SHOW POOLS: per database and user, cl_active, cl_waiting, sv_active, sv_idle, maxwait, pool_mode."""
        return pools_at(self.admin_url, database)

    def release(self, database: str) -> None:
        """Close every client and server connection PgBouncer holds to `database` (KILL), then let new clients in
        again (RESUME): PostgreSQL can then drop or rename it."""
        self.admin(f"KILL {database}")
        self.admin(f"RESUME {database}")


@contextmanager
def pgbouncer(directory: Path | None = None, **options: Any) -> Iterator[PgBouncer]:
    """A PgBouncer started in `directory` (else a temporary one, removed afterwards); stopped on exit."""
    with tempfile.TemporaryDirectory(prefix="pgbouncer-", ignore_cleanup_errors=True) as tmp:
        bouncer = PgBouncer(directory or Path(tmp), **options)
        bouncer.start()
        try:
            yield bouncer
        finally:
            bouncer.stop()


def admin_command(admin_url: str, command: str) -> list[dict[str, Any]]:
    """A command on a PgBouncer's admin console (simple query protocol: psycopg's ClientCursor); its rows."""
    import psycopg
    from psycopg.rows import dict_row

    with psycopg.connect(admin_url, autocommit=True, cursor_factory=psycopg.ClientCursor, connect_timeout=5) as console:
        cursor = console.cursor(row_factory=dict_row)
        cursor.execute(command)
        return list(cursor.fetchall()) if cursor.description else []


def pools_at(admin_url: str, database: str | None = None) -> list[dict[str, Any]]:
    """SHOW POOLS: per database and user, cl_active, cl_waiting, sv_active, sv_idle, maxwait, pool_mode."""
    return [row for row in admin_command(admin_url, "SHOW POOLS") if database is None or row["database"] == database]


def release_from_environment(database: str) -> None:
    """When this process's database is behind a PgBouncer of the run's own (TTR_PGBOUNCER_ADMIN_URL), let go of
    `database` there (KILL and RESUME): the test run's teardown drops the test database on PostgreSQL next."""
    admin_url = os.environ.get("TTR_PGBOUNCER_ADMIN_URL")
    if admin_url:
        admin_command(admin_url, f"KILL {database}")
        admin_command(admin_url, f"RESUME {database}")


def _around(command: list[str], server_port: int, say: Callable[[str], None]) -> int:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        say("pgbouncer: no PostgreSQL DATABASE_URL: the run goes direct")
        return subprocess.call(command)
    if not installed():
        say(f"pgbouncer: {PGBOUNCER} is not installed (make servers): the run goes to PostgreSQL direct")
        return subprocess.call(command)
    parts = urlsplit(url)
    with pgbouncer(server_host=parts.hostname or "127.0.0.1", server_port=parts.port or server_port,
                   user=parts.username or "postgres") as bouncer:
        netloc = f"{parts.username or 'postgres'}@127.0.0.1:{bouncer.port}"
        env = {
            **os.environ,
            "DATABASE_URL": urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment)),
            "DB_PGBOUNCER": "1",
            "TTR_PGBOUNCER_ADMIN_URL": bouncer.admin_url,
        }
        say(f"pgbouncer: the run's database connections go through PgBouncer (transaction mode) on 127.0.0.1:"
            f"{bouncer.port} to {parts.hostname}:{parts.port}")
        process = subprocess.Popen(command, env=env)
        try:
            return process.wait()
        except KeyboardInterrupt:
            process.send_signal(signal.SIGINT)
            return process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-port", type=int, default=5432, help="PostgreSQL's port when DATABASE_URL has none")
    parser.add_argument("command", nargs="+", help="the command to run (after --)")
    args = parser.parse_args(argv)
    return _around(args.command, args.server_port, lambda line: print(line, flush=True))


if __name__ == "__main__":
    sys.exit(main())
