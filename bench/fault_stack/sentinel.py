"""A Redis Sentinel group of one run's own: a primary, a replica and three Sentinels (quorum 2), each a process of
this run on a free loopback port with its files in a temp dir, and the means to break it.

`SentinelGroup` is a context manager: entering starts the five processes and waits until the replica is in sync
and every Sentinel answers (`wait_settled()` waits until each sees the replica and the other two); leaving SIGKILLs
every process still running and removes the dir, whatever happened in between. `kill_primary()` SIGKILLs the
current primary, `wait_promoted()` waits until a majority of the Sentinels name another server as the primary and
that server says it is one (the seconds it took are the drill's "promoted after"), `rejoin()` starts the killed
server again as a replica of the new primary (what an operator does with a repaired host), and `view()` is
Sentinel's view (`SENTINEL MASTERS` / `REPLICAS` from each Sentinel, and each server's `INFO replication`) for the
drill's report and the docs' "what to watch".

Nothing is kept on disk (`save ""`, no AOF), as the harness's own Redis: a replica resyncs over the socket.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import Any

from bench.live.processes import free_port

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
REDIS_SENTINEL = shutil.which("redis-sentinel")
MASTER_NAME = "ttr"
QUORUM = 2


def missing() -> str | None:
    """Why a Sentinel group cannot run here, or None."""
    if shutil.which("redis-server") is None:
        return "needs redis-server"
    if REDIS_SENTINEL is None:
        return "needs redis-sentinel (Debian's package redis-sentinel)"
    return None


@dataclass
class _Process:
    name: str
    port: int
    command: list[str]
    log: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


@dataclass
class SentinelGroup:
    """Primary, replica and three Sentinels on loopback (see the module's doc)."""

    down_after_ms: int = 1000
    failover_timeout_ms: int = 5000
    servers: list[_Process] = field(default_factory=list)
    sentinels: list[_Process] = field(default_factory=list)
    killed_at: float | None = None
    killed_port: int | None = None
    _dir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def directory(self) -> Path:
        assert self._dir is not None, "not started"
        return Path(self._dir.name)

    @property
    def url(self) -> str:
        """REDIS_URL for the app (ttr_server/redis_config.py): the Sentinels and the group's name."""
        hosts = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
        return f"redis+sentinel://{hosts}/{MASTER_NAME}/0"

    def __enter__(self) -> SentinelGroup:
        if (why := missing()) is not None:
            raise RuntimeError(why)
        self._dir = tempfile.TemporaryDirectory(prefix="ttr-sentinel-", ignore_cleanup_errors=True)
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        for process in [*self.sentinels, *self.servers]:
            process.kill()
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def _server(self, name: str, port: int, replica_of: int | None) -> _Process:
        data = self.directory / name
        data.mkdir(exist_ok=True)
        command = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                   "--dir", str(data)]
        if replica_of is not None:
            command += ["--replicaof", "127.0.0.1", str(replica_of)]
        return _Process(name, port, command, self.directory / f"{name}.log")

    def _start(self) -> None:
        primary, replica = free_port(), free_port()
        self.servers = [self._server("redis-a", primary, None), self._server("redis-b", replica, primary)]
        for server in self.servers:
            server.start()
        for server in self.servers:
            _wait(lambda server=server: _client(server.port).ping(), f"{server.name} answering")
        _wait(lambda: _info(replica).get("master_link_status") == "up", "the replica in sync")
        for index in range(3):
            port = free_port()
            config = self.directory / f"sentinel-{index}.conf"
            config.write_text(
                f"port {port}\nbind 127.0.0.1\ndaemonize no\ndir {self.directory}\n"
                f"sentinel monitor {MASTER_NAME} 127.0.0.1 {primary} {QUORUM}\n"
                f"sentinel down-after-milliseconds {MASTER_NAME} {self.down_after_ms}\n"
                f"sentinel failover-timeout {MASTER_NAME} {self.failover_timeout_ms}\n"
                f"sentinel parallel-syncs {MASTER_NAME} 1\n"
            )
            assert REDIS_SENTINEL is not None
            sentinel = _Process(f"sentinel-{index}", port, [REDIS_SENTINEL, str(config)],
                                self.directory / f"sentinel-{index}.log")
            sentinel.start()
            self.sentinels.append(sentinel)
        _wait(lambda: all(_sentinel_master(s.port) for s in self.sentinels), "every Sentinel answering")

    def wait_settled(self) -> None:
        """Wait until every Sentinel sees the primary's replica and the other two Sentinels (they find them
        through the primary within a few seconds of starting): only then can they agree on a failover."""
        _wait(self._settled, "every Sentinel seeing the primary, its replica and the other Sentinels", seconds=30)

    def _settled(self) -> bool:
        for sentinel in self.sentinels:
            master = _sentinel_master(sentinel.port)
            if int(master.get("num-slaves", 0)) < 1 or int(master.get("num-other-sentinels", 0)) < 2:
                return False
        return True

    def primary_port(self) -> int:
        """The port of the server a majority of the Sentinels name as the primary."""
        votes: dict[int, int] = {}
        for sentinel in self.sentinels:
            try:
                _, port = _client(sentinel.port).sentinel_get_master_addr_by_name(MASTER_NAME)
            except Exception:
                continue
            votes[int(port)] = votes.get(int(port), 0) + 1
        port, count = max(votes.items(), key=lambda item: item[1], default=(0, 0))
        if count < QUORUM:
            raise RuntimeError(f"no majority of Sentinels names a primary: {votes}")
        return port

    def kill_primary(self) -> int:
        """SIGKILL the current primary (once the Sentinels have settled); its port."""
        self.wait_settled()
        port = self.primary_port()
        server = next(s for s in self.servers if s.port == port)
        self.killed_at = time.monotonic()
        server.kill()
        self.killed_port = port
        return port

    def wait_promoted(self, seconds: float = 60.0) -> float:
        """Wait until a majority of the Sentinels name another server and it answers as the primary; the seconds
        since `kill_primary()`."""
        assert self.killed_at is not None and self.killed_port is not None, "kill_primary() first"

        def promoted() -> bool:
            try:
                port = self.primary_port()
            except RuntimeError:
                return False
            return port != self.killed_port and _info(port).get("role") == "master"

        _wait(promoted, "Sentinel's promotion of the replica", seconds=seconds, step=0.05)
        return time.monotonic() - self.killed_at

    def rejoin(self) -> None:
        """Start the killed server again as a replica of the new primary, and wait until it is in sync."""
        assert self.killed_port is not None
        primary = self.primary_port()
        old = next(s for s in self.servers if s.port == self.killed_port)
        revived = self._server(old.name, old.port, primary)
        self.servers[self.servers.index(old)] = revived
        revived.start()
        _wait(lambda: _info(revived.port).get("master_link_status") == "up", "the old primary in sync as a replica")

    def view(self) -> dict[str, Any]:
        """What the Sentinels and the servers say: the primary each Sentinel names, its flags and replicas, and
        each running server's role and replication offset (the replica's lag is the primary's offset minus its)."""
        sentinels: dict[str, dict[str, Any]] = {}
        for sentinel in self.sentinels:
            try:
                master = _sentinel_master(sentinel.port)
                replicas = _client(sentinel.port).sentinel_slaves(MASTER_NAME)
            except Exception as error:
                sentinels[sentinel.name] = {"error": type(error).__name__}
                continue
            sentinels[sentinel.name] = {
                "primary": f"{master.get('ip')}:{master.get('port')}", "flags": master.get("flags"),
                "num_other_sentinels": master.get("num-other-sentinels"),
                "replicas": [f"{r.get('ip')}:{r.get('port')} {r.get('flags')}" for r in replicas],
            }
        servers: dict[str, dict[str, Any]] = {}
        for server in self.servers:
            if not server.running:
                servers[f"{server.name}:{server.port}"] = {"running": False}
                continue
            info = _info(server.port)
            servers[f"{server.name}:{server.port}"] = {
                "role": info.get("role"), "offset": info.get("master_repl_offset"),
                "link": info.get("master_link_status"),
            }
        return {"sentinels": sentinels, "servers": servers}


@cache
def _client(port: int) -> Any:
    import redis

    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=1, socket_connect_timeout=1, decode_responses=True)


def _info(port: int) -> dict[str, Any]:
    try:
        return dict(_client(port).info("replication"))
    except Exception:
        return {}


def _sentinel_master(port: int) -> dict[str, Any]:
    try:
        return dict(_client(port).sentinel_master(MASTER_NAME))
    except Exception:
        return {}


def _wait(condition: Any, what: str, *, seconds: float = 20.0, step: float = 0.1) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except Exception:
            pass
        time.sleep(step)
    raise RuntimeError(f"timed out after {seconds:.0f} s waiting for {what}")
