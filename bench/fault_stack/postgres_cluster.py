"""A PostgreSQL primary and its synchronous streaming standby, of one run's own: for the failover drill
(bench/failover.py) and its small version in the tests (tests/faults/test_pg_failover.py).

`postgres_cluster()` makes both in a temporary directory with PostgreSQL's own programs (`initdb`, `pg_basebackup`,
`pg_ctl`), on free loopback ports, and removes everything at the end whatever happened (both servers stopped
`immediate`, any process left killed, the directory deleted). The primary waits, before it answers a commit, until
the standby has applied it (`synchronous_standby_names` names the standby, `synchronous_commit = remote_apply`):
a move answered 201 is on two servers, and a read on the standby after it sees it. The standby has no synchronous
standby of its own: once promoted it commits alone (until a new standby is made from it).

The faults: `kill_primary()` SIGKILLs the primary's postmaster and every process of it (the machine is gone: no
shutdown, no last WAL sent); `promote()` makes the standby the primary (`pg_ctl promote`, waiting until it accepts
writes). `replication()` is `pg_stat_replication` on the primary: the standby's state and its lag.

Run as root (a container), the servers run as the `postgres` user (`initdb` refuses root): through `runuser`.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.live.processes import free_port

BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
PROGRAMS = ("initdb", "pg_ctl", "pg_basebackup", "postgres")
STANDBY_NAME = "standby"  # the standby's application_name, which synchronous_standby_names names
START_SECONDS = 60.0


def run_program(command: tuple[str | Path, ...], *, user: str | None, cwd: Path, timeout: float) -> str:
    """One of PostgreSQL's programs (initdb, pg_ctl, pg_basebackup...), as `user` when the drill runs as root (the
    server refuses to run as root); its output, or RuntimeError with the end of what it said."""
    argv = [str(part) for part in command]
    if user:
        argv = ["runuser", "-u", user, "--", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stdout[-1500:]} {done.stderr[-1500:]}")
    return done.stdout


def missing_programs() -> list[str]:
    """PostgreSQL's programs this module needs that are not in BIN (empty: it can run)."""
    return [name for name in PROGRAMS if not (BIN / name).exists()]


def _server_user() -> str | None:
    """The user the servers run as: `postgres` when we are root (initdb refuses root), else ourselves (None)."""
    if os.geteuid() != 0:
        return None
    pwd.getpwnam("postgres")  # KeyError: no such user to run them as
    return "postgres"


@dataclass
class Server:
    name: str
    port: int
    data: Path
    log: Path

    def pid(self) -> int | None:
        """The postmaster's pid (the first line of postmaster.pid), or None when it is not running."""
        try:
            return int((self.data / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None

    def url(self, database: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"


@dataclass
class PostgresCluster:
    root: Path
    primary: Server
    standby: Server
    user: str | None = field(default_factory=_server_user)
    killed: list[int] = field(default_factory=list)

    def multi_host_url(self, database: str, **params: str) -> str:
        """The application's URL: both servers, libpq picking the one that accepts writes."""
        query = "&".join(f"{k}={v}" for k, v in {"target_session_attrs": "read-write", **params}.items())
        return f"postgres://postgres@127.0.0.1:{self.primary.port},127.0.0.1:{self.standby.port}/{database}?{query}"

    def admin_url(self) -> str:
        """The maintenance database on whichever server is up (libpq tries the primary, then the standby): for
        the fault harness's scratch database, made on the primary and still there to drop after a failover."""
        return f"postgres://postgres@127.0.0.1:{self.primary.port},127.0.0.1:{self.standby.port}/postgres"

    # --- running PostgreSQL's programs -------------------------------------------------------------------------

    def _run(self, *command: str | Path, timeout: float = START_SECONDS) -> str:
        return run_program(command, user=self.user, cwd=self.root, timeout=timeout)

    def _start(self, server: Server) -> None:
        self._run(BIN / "pg_ctl", "-D", server.data, "-l", server.log, "-w", "-t", str(int(START_SECONDS)), "start")

    # --- making it ---------------------------------------------------------------------------------------------

    def create(self) -> None:
        self._run(BIN / "initdb", "-D", self.primary.data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--locale=C.UTF-8", "--no-sync")
        common = {
            "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": f"'{self.root}'",
            "max_connections": "200",
            "wal_level": "replica",
            "max_wal_senders": "5",
            "hot_standby": "on",
            "shared_buffers": "64MB",
            "log_line_prefix": "'%m [%p] %q%a '",
            "track_commit_timestamp": "on",  # when each row's transaction committed: the drill's write gap
        }
        self._configure(self.primary, {
            **common, "port": str(self.primary.port),
            "synchronous_standby_names": f"'FIRST 1 ({STANDBY_NAME})'",
            "synchronous_commit": "remote_apply",
        })
        with (self.primary.data / "pg_hba.conf").open("a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 trust\n")
        self._start(self.primary)
        self._run(BIN / "pg_basebackup", "-h", "127.0.0.1", "-p", str(self.primary.port), "-U", "postgres",
                  "-D", self.standby.data, "-X", "stream", "-c", "fast", "--no-sync")
        (self.standby.data / "standby.signal").touch()
        if self.user:
            shutil.chown(self.standby.data / "standby.signal", self.user)
        self._configure(self.standby, {
            **common, "port": str(self.standby.port),
            "primary_conninfo": f"'host=127.0.0.1 port={self.primary.port} user=postgres "
                                f"application_name={STANDBY_NAME}'",
            "synchronous_standby_names": "''",  # alone once promoted: no standby to wait for
            "synchronous_commit": "on",
        })
        self._start(self.standby)
        self.wait_synchronous()

    def _configure(self, server: Server, settings: dict[str, str]) -> None:
        with (server.data / "postgresql.conf").open("a") as conf:
            conf.write("\n# bench/fault_stack/postgres_cluster.py\n")
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())

    def wait_synchronous(self, seconds: float = START_SECONDS) -> None:
        """Until the primary sees the standby streaming as its synchronous standby."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if any(row["sync_state"] == "sync" and row["state"] == "streaming" for row in self.replication()):
                return
            time.sleep(0.1)
        raise RuntimeError(f"the standby is not synchronous after {seconds} s: {self.replication()}")

    # --- reading it --------------------------------------------------------------------------------------------

    def replication(self) -> list[dict[str, Any]]:
        """pg_stat_replication on the primary: each standby's state, sync_state, and lag (seconds; bytes of WAL
        not yet replayed)."""
        return query(self.primary.url(), """
            SELECT application_name, state, sync_state,
                   extract(epoch FROM write_lag)::float AS write_lag_s,
                   extract(epoch FROM flush_lag)::float AS flush_lag_s,
                   extract(epoch FROM replay_lag)::float AS replay_lag_s,
                   pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint AS replay_lag_bytes
            FROM pg_stat_replication""")

    def in_recovery(self, server: Server) -> bool:
        return bool(query(server.url(), "SELECT pg_is_in_recovery() AS r")[0]["r"])

    # --- the faults --------------------------------------------------------------------------------------------

    def kill_primary(self) -> list[int]:
        """SIGKILL the primary's postmaster and every process it started, at once; their pids."""
        pid = self.primary.pid()
        if pid is None:
            return []
        pids = [pid, *_children(pid)]
        for each in pids:
            with suppress(ProcessLookupError):
                os.kill(each, signal.SIGKILL)
        self.killed += pids
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(each) for each in pids):
            time.sleep(0.02)
        return pids

    def promote(self, seconds: float = START_SECONDS) -> float:
        """The standby becomes the primary (`pg_ctl promote`, waiting until it accepts writes); seconds it took."""
        started = time.monotonic()
        self._run(BIN / "pg_ctl", "-D", self.standby.data, "-w", "-t", str(int(seconds)), "promote")
        deadline = started + seconds
        while self.in_recovery(self.standby):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the standby still in recovery {seconds} s after promote")
            time.sleep(0.05)
        return time.monotonic() - started

    # --- cleaning up -------------------------------------------------------------------------------------------

    def destroy(self) -> None:
        """Both servers stopped (`immediate`), any of their processes left killed, the directory removed."""
        for server in (self.standby, self.primary):
            pid = server.pid()
            if pid is not None and _alive(pid):
                with suppress(RuntimeError, subprocess.TimeoutExpired):
                    self._run(BIN / "pg_ctl", "-D", server.data, "-m", "immediate", "-w", "-t", "20", "stop", timeout=30)
                for each in [pid, *_children(pid)]:
                    if _alive(each):
                        os.kill(each, signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)


def query(url: str, statement: str, *params: Any) -> list[dict[str, Any]]:
    """`statement` on a connection of its own (autocommit), its rows as dicts."""
    import psycopg
    from psycopg.rows import dict_row

    with psycopg.connect(url, autocommit=True, connect_timeout=5, row_factory=dict_row) as connection:
        cursor = connection.execute(statement, params)  # type: ignore[arg-type]
        return list(cursor.fetchall()) if cursor.description else []


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@contextmanager
def postgres_cluster(prefix: str = "ttr-pg-") -> Iterator[PostgresCluster]:
    """A primary and its synchronous standby, started; everything stopped and removed on exit."""
    problems = missing_programs()
    if problems:
        raise RuntimeError(f"PostgreSQL's programs are missing from {BIN}: {', '.join(problems)}")
    root = Path(tempfile.mkdtemp(prefix=prefix))
    user = _server_user()
    if user:
        shutil.chown(root, user)
    root.chmod(0o700)
    ports = _two_ports()
    cluster = PostgresCluster(
        root,
        Server("primary", ports[0], root / "primary", root / "primary.log"),
        Server("standby", ports[1], root / "standby", root / "standby.log"),
        user,
    )
    try:
        cluster.create()
        yield cluster
    finally:
        cluster.destroy()


def _two_ports() -> tuple[int, int]:
    first = free_port()
    second = free_port()
    while second == first:
        second = free_port()
    return first, second
