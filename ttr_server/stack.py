"""`python -m ttr_server.stack` (`make stack`): the production layout on this machine, without Docker.

It runs what docker-compose.yml runs, with the same commands (`COMMANDS`; a test holds the two to each other):
the migration, then HAProxy on the public port (`--port`, 8000; deploy/haproxy.cfg with the web processes filled
in: ttr_server/balancer.py) in front of N uvicorn web processes, each on its own port (`--base-port`, 8001, and
up; `--no-balancer` for those alone), the Celery worker(s) of the default queue,
the strong bot's search worker(s) and one beat, against the PostgreSQL of `DATABASE_URL` and the Redis of
`REDIS_URL` (both required: the embedded default is `make run`). Like compose's `restart: unless-stopped`, a
process that dies is started again after `RESTART_SECONDS` (`--no-restart` to watch it stay dead). Each child
logs JSON lines with its name (`process`) to this process's output, or to `<name>.log` files with `--log-dir`.
Its secrets (SECRET_KEY, the checkpoint signing keys) are generated into `<var>/secrets` on its first start
(ttr_server/local_secrets.py), as compose's entry point does on its volume: none is built in.
SIGTERM or Ctrl+C stops them all: the balancer softly (SIGUSR1: it takes no new connection and lets those under
way end), the web processes finish the requests under way and close their sockets with 1012 (behind the balancer,
after a drain: ttr_server/draining.py), the workers finish or hand back their tasks (late acks); whatever has not
stopped after `STOP_SECONDS` is killed, and nothing started here outlives the stack.

The `Stack` class is the same thing as a library, for the load benchmark and the fault suite: start, stop, kill
or restart one process by name, and read each one's pid and memory. It is also the embedded server's supervisor
(`Stack.embedded`, which `make run`'s `manage.py runall` runs): one web process, one worker of the default and
strong queues and one of the analysis queue (solo pools), and beat, all in runall's process group. It never
imports Django (its metrics module only to empty the metrics directory and drop a killed child's live gauges).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from ttr_server import balancer, children, draining, local_secrets, metrics

ROOT = Path(__file__).resolve().parent.parent
RESTART_SECONDS = 1.0
STOP_SECONDS = 25.0  # above the drain (3 s) plus uvicorn's graceful timeout (GRACE_SECONDS), and a strong search
GRACE_SECONDS = 20
START_SECONDS = 60.0

# Workers neither gossip nor mingle nor send event heartbeats: nothing here reads them (our own heartbeats are rows,
# ttr_server/health.py), and after a Redis restart the gossip consumer met a message without a hostname and
# stopped the worker ("Unrecoverable error: KeyError('hostname')"; tests/faults/test_worker_survival.py).
WORKER_QUIET = ["--without-gossip", "--without-mingle", "--without-heartbeat"]

# The commands of docker-compose.yml's services, word for word but for the port and the worker's name.
COMMANDS: dict[str, list[str]] = {
    "migrate": ["python", "manage.py", "migrate", "--noinput"],
    "web": [
        "uvicorn", "ttr_server.asgi:application", "--host", "0.0.0.0", "--port", "8000", "--lifespan", "off",
        "--timeout-graceful-shutdown", str(GRACE_SECONDS), "--proxy-headers", "--no-server-header",
        "--ws-per-message-deflate", "false",
    ],
    "worker": ["celery", "-A", "ttr_server", "-q", "worker", "-Q", "celery", "-n", "default@%h", "--loglevel=INFO",
               "--concurrency=2", *WORKER_QUIET],
    "worker-strong": ["celery", "-A", "ttr_server", "-q", "worker", "-Q", "celery-strong", "-n", "strong@%h",
                      "--loglevel=INFO", "--concurrency=4", "--prefetch-multiplier=1", *WORKER_QUIET],
    "worker-analysis": ["celery", "-A", "ttr_server", "-q", "worker", "-Q", "celery-analysis", "-n", "analysis@%h",
                        "--loglevel=INFO", "--concurrency=1", "--prefetch-multiplier=1", *WORKER_QUIET],
    "beat": ["celery", "-A", "ttr_server", "-q", "beat", "--loglevel=WARNING"],
}

# Who goes first when the cores are short: each service's niceness (0 unless named). A person's move (web) and the
# greedy bots and scoring (worker) come first; the strong bot's searches, which think for a fixed wall time
# (TTR_STRONG_SECONDS) and simply see fewer sampled games when the cores are busy, and the post-game analyses take
# what is left. compose gives each service the CPU weight (`cpu_shares`) the kernel gives that niceness, since
# containers compete by their cgroup's weight, not by nice (tests/server/test_priorities.py holds the two together).
PRIORITY: dict[str, int] = {"worker-strong": 10, "worker-analysis": 19}


def command(service: str, *, port: int | None = None, host: str = "127.0.0.1", index: int = 0,
            concurrency: int | None = None) -> list[str]:
    """The service's command as this machine runs it: the virtualenv's Python, and the web process's port, the
    worker's node name and concurrency where several run side by side."""
    words = list(COMMANDS[service])
    if port is not None:
        words[words.index("--port") + 1] = str(port)
        words[words.index("--host") + 1] = host
    if "-n" in words:
        name = words[words.index("-n") + 1]
        words[words.index("-n") + 1] = name.replace("@", f"{index}@", 1)
    if concurrency is not None:
        words = [f"--concurrency={concurrency}" if w.startswith("--concurrency=") else w for w in words]
    program, rest = words[0], words[1:]
    if program == "python":
        return [sys.executable, *rest]
    return [sys.executable, "-m", program, *rest]


@dataclass
class Child:
    name: str
    argv: list[str]
    url: str | None = None  # a web process's base URL
    env: dict[str, str] = field(default_factory=dict)  # its own variables, over the stack's
    stop_signal: int = signal.SIGTERM  # how `Stack.stop` asks it to end
    nice: int = 0  # its CPU priority (PRIORITY): set between fork and exec
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0
    expected_down: bool = False  # stopped on purpose: not restarted

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


@dataclass
class Stack:
    env: dict[str, str]
    web: int = 2
    base_port: int = 8001
    workers: int = 1
    strong_workers: int = 1
    analysis_workers: int = 1
    concurrency: int | None = None  # the default queue's pool size (compose's when None)
    strong_concurrency: int | None = None  # the search queue's pool size (compose's when None)
    priorities: bool = True  # each worker at its PRIORITY (False: all at the caller's, to measure what it buys)
    beat: bool = True
    restart: bool = True
    log_dir: Path | None = None
    own_groups: bool = True  # each child leads a process group of its own (a signal to one reaches its pool too)
    balancer_port: int | None = None  # HAProxy's public port in front of the web processes (None: no balancer)
    stats_port: int = 8404  # the balancer's stats page and Prometheus metrics, on loopback
    children: dict[str, Child] = field(default_factory=dict)
    stopping: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _watcher: threading.Thread | None = None

    def __post_init__(self) -> None:
        if self.balancer_port is None:  # nothing to drain for: SIGTERM stops a web process at once
            self.env = {draining.VARIABLE: "0", **self.env}
        for i in range(self.web):
            port = self.base_port + i
            self._add(f"web-{i}", command("web", port=port), f"http://127.0.0.1:{port}")
        if self.balancer_port is not None:
            self._add_balancer(self.balancer_port)
        for i in range(self.workers):
            self._add(f"worker-{i}", command("worker", index=i, concurrency=self.concurrency))
        for i in range(self.strong_workers):
            self._add(f"worker-strong-{i}", command("worker-strong", index=i, concurrency=self.strong_concurrency),
                      nice=PRIORITY["worker-strong"])
        for i in range(self.analysis_workers):
            self._add(f"worker-analysis-{i}", command("worker-analysis", index=i), nice=PRIORITY["worker-analysis"])
        if self.beat:
            self._add("beat", command("beat"))

    @classmethod
    def embedded(cls, env: dict[str, str], *, host: str, port: int, queues: list[str], analysis_queue: str,
                 worker: bool = True) -> Stack:
        """`make run`'s layout: the web process on `host:port`; unless `worker` is False, a worker of `queues`
        and one of `analysis_queue` (niced: judging a game yields the cores to moves and bots), solo pools, and beat.
        The children stay in the caller's process group, so a terminal's Ctrl+C reaches them all at once."""
        stack = cls(env, web=0, workers=0, strong_workers=0, analysis_workers=0, beat=False, own_groups=False)
        stack._add("web", command("web", port=port, host=host), f"http://{_local(host)}:{port}")
        if worker:
            stack._add("worker", [*_celery(), "worker", "--pool=solo", "--loglevel=INFO", "-Q", ",".join(queues),
                                  "-n", "embedded@%h", *WORKER_QUIET])
            stack._add("worker-analysis", [*_celery(), "worker", "--pool=solo", "--loglevel=INFO", "-Q", analysis_queue,
                                           "-n", "analysis@%h", *WORKER_QUIET], nice=PRIORITY["worker-analysis"])
            stack._add("beat", command("beat"))
        return stack

    def _add(self, name: str, argv: list[str], url: str | None = None, *, nice: int = 0) -> None:
        self.children[name] = Child(name, argv, url, nice=nice if self.priorities else 0)

    def _add_balancer(self, port: int) -> None:
        """HAProxy on `port`, in front of the web processes, its configuration written under the stack's var dir."""
        folder = Path(self.env.get("TTR_VAR_DIR", ROOT / "var" / "stack")) / "haproxy"
        folder.mkdir(parents=True, exist_ok=True)
        config = folder / "haproxy.cfg"
        webs = {name: c.url.removeprefix("http://") for name, c in self.children.items() if c.url}
        config.write_text(balancer.render(webs))
        self.children["balancer"] = Child(
            "balancer", balancer.command(config), stop_signal=signal.SIGUSR1,
            env=balancer.environment(public=f"127.0.0.1:{port}", stats=f"127.0.0.1:{self.stats_port}",
                                     stats_socket=folder / "admin.sock"),
        )

    @property
    def stats_socket(self) -> Path | None:
        """HAProxy's stats socket (ttr_server/balancer.py reads it), when a balancer runs."""
        child = self.children.get("balancer")
        return Path(child.env["TTR_LB_STATS_SOCKET"]) if child else None

    def balancer_states(self) -> dict[str, str]:
        """Each web process's state as HAProxy sees it (UP, DOWN, MAINT, "UP 1/2"...); empty without a balancer."""
        return balancer.states(self.stats_socket) if self.stats_socket else {}

    def _send(self, child: Child, signum: int) -> None:
        assert child.process is not None
        if self.own_groups:
            os.killpg(child.process.pid, signum)
        else:
            child.process.send_signal(signum)

    def _alive(self, child: Child) -> bool:
        """Whether anything of the child still runs (its whole group when it leads one)."""
        assert child.process is not None
        if self.own_groups:
            return bool(_group(child.process.pid))
        return child.process.poll() is None

    @property
    def metrics_directory(self) -> Path | None:
        value = self.env.get(metrics.DIRECTORY_VARIABLE)
        return Path(value) if value else None

    @property
    def urls(self) -> list[str]:
        """The web processes' own URLs (behind the balancer, when one runs)."""
        return [c.url for c in self.children.values() if c.url]

    @property
    def public_url(self) -> str:
        """Where clients go: the balancer, or the first web process when none runs."""
        return f"http://127.0.0.1:{self.balancer_port}" if self.balancer_port is not None else self.urls[0]

    def migrate(self) -> None:
        """Migrate the database; its report in JSON lines (games/management/commands/migrate.py), as every child's:
        to `migrate.log` with a log directory, else to this process's output."""
        env = {**self.env, "TTR_PROCESS": "migrate"}
        if self.log_dir is None:
            subprocess.run(command("migrate"), cwd=ROOT, env=env, check=True)
            return
        with open(self.log_dir / "migrate.log", "ab") as out:
            subprocess.run(command("migrate"), cwd=ROOT, env=env, check=True, stdout=out, stderr=subprocess.STDOUT)

    def start(self) -> None:
        """Empty the metrics directory, start every process, wait until every web process is ready."""
        if (folder := self.metrics_directory) is not None:
            metrics.empty_directory(folder=folder)
        for child in self.children.values():
            self._spawn(child)
        self._watcher = threading.Thread(target=self._watch, name="stack-watch", daemon=True)
        self._watcher.start()
        self.wait_ready()

    def _spawn(self, child: Child) -> None:
        env = {**self.env, **child.env, "TTR_PROCESS": child.name, "PYTHONUNBUFFERED": "1"}
        options: dict[str, Any] = {"cwd": ROOT, "env": env, "start_new_session": self.own_groups,
                                   "preexec_fn": children.die_with_parent(os.getpid(), nice=child.nice)}
        if self.log_dir is not None:
            with open(self.log_dir / f"{child.name}.log", "ab") as out:
                child.process = subprocess.Popen(child.argv, stdout=out, stderr=subprocess.STDOUT, **options)
        else:
            child.process = subprocess.Popen(child.argv, **options)
        child.starts += 1
        child.expected_down = False

    def _watch(self) -> None:
        """Restart what died (compose's `restart: unless-stopped`), and drop its live gauges."""
        while not self.stopping:
            time.sleep(0.2)
            with self._lock:
                for child in self.children.values():
                    if child.process is None or child.running() or child.expected_down or self.stopping:
                        continue
                    if child.pid is not None and (folder := self.metrics_directory) is not None:
                        metrics.forget_process(metrics.identity_of(child.pid), folder=folder)  # it could not itself
                    if self.restart:
                        time.sleep(RESTART_SECONDS)
                        if not self.stopping:
                            self._spawn(child)

    def wait_ready(self, seconds: float = START_SECONDS) -> None:
        """Wait until every web process answers /readyz 200 (its database and Redis are up) and, when the stack runs
        workers, until one has written a fresh heartbeat (/healthz's detail): the stack's first moves find a worker."""
        deadline = time.monotonic() + seconds
        for url in self.urls:
            while not _answers(f"{url}/readyz") or (self.workers and not _worker_beats(f"{url}/healthz?detail=1")):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{url} was not ready in {seconds:.0f} s")
                time.sleep(0.2)
        while self.balancer_port is not None and not self._balancer_serves():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the balancer did not see every web process up in {seconds:.0f} s")
            time.sleep(0.2)

    def _balancer_serves(self) -> bool:
        """HAProxy answers on the public port and has every web process in service."""
        try:
            states = self.balancer_states()
        except OSError:
            return False
        return len(states) == self.web and all(s == "UP" for s in states.values()) and _answers(
            f"{self.public_url}/readyz")

    def signal(self, name: str, signum: int, *, restart: bool | None = None) -> None:
        """Send `signum` to one process (its whole process group: a worker's pool children too). With
        `restart=False` it stays down until `revive`."""
        child = self.children[name]
        with self._lock:
            if restart is False:
                child.expected_down = True
            if child.process is not None and child.running():
                self._send(child, signum)

    def kill(self, name: str) -> None:
        self.signal(name, signal.SIGKILL)

    def revive(self, name: str) -> None:
        with self._lock:
            child = self.children[name]
            if not child.running():
                if child.process is not None:
                    child.process.wait()
                self._spawn(child)

    def pids(self) -> dict[str, list[int]]:
        """Each child's processes (its process group: a worker's pool children too)."""
        return {name: _group(c.pid) if c.running() and c.pid else [] for name, c in self.children.items()}

    def memory(self) -> dict[str, int]:
        """Each child's resident memory in bytes, its pool children included."""
        return {name: sum(_rss(pid) for pid in pids) for name, pids in self.pids().items()}

    def stop(self) -> list[str]:
        """SIGTERM to everything, then SIGKILL to what still runs after STOP_SECONDS; the names that had to be
        killed."""
        self.stopping = True
        with self._lock:
            for child in self.children.values():
                if child.running() and child.process:
                    self._send(child, child.stop_signal)
            deadline = time.monotonic() + STOP_SECONDS
            killed = []
            for child in self.children.values():
                if child.process is None:
                    continue
                while self._alive(child) and time.monotonic() < deadline:
                    child.process.poll()
                    time.sleep(0.05)
                if self._alive(child):
                    killed.append(child.name)
                    self._send(child, signal.SIGKILL)
                child.process.wait()
            return killed


def _celery() -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "ttr_server", "-q"]  # -q: no banner, log lines only


def _local(host: str) -> str:
    """The address this machine reaches a server bound to `host` at."""
    return "127.0.0.1" if host in ("0.0.0.0", "::", "localhost") else host


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def _worker_beats(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            beats = json.loads(answer.read()).get("heartbeats") or {}
    except (OSError, ValueError):
        return False
    return any(name.startswith("worker:") and beat.get("state") == "ok" for name, beat in beats.items())


def _group(leader: int | None) -> list[int]:
    """The live processes of the process group led by `leader`."""
    if leader is None:
        return []
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == leader and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def _rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def stack_env(*, var_dir: Path | None = None, base: dict[str, str] | None = None) -> dict[str, str]:
    """The children's environment: `base` (this process's by default), with the stack's scratch directory and
    metrics directory, and its secrets generated there if missing; DATABASE_URL and REDIS_URL are required."""
    env = dict(os.environ if base is None else base)
    missing = [name for name in ("DATABASE_URL", "REDIS_URL") if not env.get(name)]
    if missing:
        raise SystemExit(
            f"stack: set {' and '.join(missing)} (the production layout runs on PostgreSQL and Redis; "
            "`make run` is the embedded one), e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/ttr "
            "REDIS_URL=redis://127.0.0.1:6379/0 make stack"
        )
    var = var_dir or Path(env.get("TTR_VAR_DIR", ROOT / "var" / "stack"))
    env["TTR_VAR_DIR"] = str(var)
    env["PROMETHEUS_MULTIPROC_DIR"] = str(var / "metrics")
    env.setdefault("DEBUG", "0")
    # The stack's own secrets, made on its first start (its SECRET_KEY unless the environment sets one, and the
    # checkpoint signing keys): a production process refuses to start without them (ttr_server/settings.py).
    local_secrets.ensure(local_secrets.default_directory(env))
    return env


class _Stop(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop(signum)


def supervise(stack: Stack, *, name: str, migrate: bool = False) -> int:
    """Run `stack` until SIGTERM or SIGINT (Ctrl+C), then stop every child; the signal that stopped it. What each
    supervisor says goes to stderr under its `name`."""
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, _raise_stop)  # even where it was inherited ignored (a background job's)
    stopped_by = signal.SIGTERM
    try:
        if migrate:
            stack.migrate()
        stack.start()
        behind = f" in front of {', '.join(stack.urls)}" if stack.balancer_port is not None else ""
        print(f"{name}: serving on {stack.public_url}{behind} ({', '.join(stack.children)})", file=sys.stderr,
              flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        stopped_by = signal.SIGINT
    except _Stop as stop:
        stopped_by = signal.Signals(stop.signum)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):  # a second Ctrl+C must not leave a child behind
            signal.signal(signum, signal.SIG_IGN)
        killed = stack.stop()
        print(f"{name}: stopped{' (killed: ' + ', '.join(killed) + ')' if killed else ''}", file=sys.stderr, flush=True)
    return stopped_by


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ttr_server.stack", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000, help="the balancer's public port (HAProxy)")
    parser.add_argument("--stats-port", type=int, default=8404, help="the balancer's stats page, on loopback")
    parser.add_argument("--no-balancer", action="store_true", help="no HAProxy: the web processes' own ports only")
    parser.add_argument("--web", type=int, default=2, help="web processes (ports BASE_PORT, BASE_PORT+1, ...)")
    parser.add_argument("--base-port", type=int, default=8001)
    parser.add_argument("--workers", type=int, default=1, help="workers of the default queue")
    parser.add_argument("--strong-workers", type=int, default=1, help="workers of the strong bot's search queue")
    parser.add_argument("--concurrency", type=int, help="the default queue's worker pool size (compose's: 2)")
    parser.add_argument("--strong-concurrency", type=int, help="the search queue's worker pool size (compose's: 4)")
    parser.add_argument("--no-beat", action="store_true")
    parser.add_argument("--no-restart", action="store_true", help="leave a process that died dead")
    parser.add_argument("--log-dir", type=Path, help="write each process's lines to DIR/<name>.log")
    args = parser.parse_args(argv)
    if not args.no_balancer and balancer.program() is None:
        raise SystemExit("stack: haproxy is not installed (`make servers` installs Debian's; or --no-balancer)")
    env = stack_env()
    Path(env["TTR_VAR_DIR"]).mkdir(parents=True, exist_ok=True)
    if args.log_dir:
        args.log_dir.mkdir(parents=True, exist_ok=True)
    stack = Stack(
        env, web=args.web, base_port=args.base_port, workers=args.workers, strong_workers=args.strong_workers,
        concurrency=args.concurrency, strong_concurrency=args.strong_concurrency,
        beat=not args.no_beat, restart=not args.no_restart, log_dir=args.log_dir,
        balancer_port=None if args.no_balancer else args.port, stats_port=args.stats_port,
    )
    supervise(stack, name="stack", migrate=True)


if __name__ == "__main__":
    main()
