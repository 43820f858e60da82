"""Prometheus metrics, in prometheus-client's multiprocess mode: every process (each web process, each worker,
beat) writes its figures to files in PROMETHEUS_MULTIPROC_DIR, and `/metrics` on any web process adds them all up.

Each process's files are named by host and pid (not pid alone: in containers every process may be pid 1, and
the directory is a volume they share). A gauge of open sockets counts live processes only: a process removes its
own gauge files when it exits (`forget_this_process`), and the stack's supervisor removes those of a child that was
killed outright (`forget_process`). Counters and histograms of dead processes are kept: a counter never goes down.
The directory is emptied when the stack (or `make run`) starts.

Moves are counted where they are appended (games/play/services.py), by the move's type and by the path it came
through: `http`, `socket`, `bot` or `sweep` (a timed-out decision), which the caller names with `move_path`.
"""

from __future__ import annotations

import atexit
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from prometheus_client import Counter, Gauge, Histogram, values

DIRECTORY_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


def identity_of(pid: int) -> str:
    """The name a process of this host gives its files (for the supervisor of a process that was killed)."""
    return f"{socket.gethostname()}-{pid}"


def _identity() -> str:
    return identity_of(os.getpid())


if os.environ.get(DIRECTORY_VARIABLE):
    values.ValueClass = values.MultiProcessValue(process_identifier=_identity)

LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
BOT_BUCKETS = (0.001, 0.005, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0)

MOVES = Counter("ttr_moves_appended", "Moves appended to game logs", ["type", "path"])
MOVE_SECONDS = Histogram("ttr_move_seconds", "Time to decide and append a move (one transaction)", ["path"],
                         buckets=LATENCY_BUCKETS)
REQUESTS = Counter("ttr_http_requests", "HTTP requests answered", ["method", "status"])
REQUEST_SECONDS = Histogram("ttr_http_request_seconds", "HTTP request time in the web process", ["method"],
                            buckets=LATENCY_BUCKETS)
OPEN_SOCKETS = Gauge("ttr_open_sockets", "Game WebSockets open now", multiprocess_mode="livesum")
GC_FULL_SECONDS = Histogram("ttr_gc_full_seconds", "Full garbage collections: each holds the whole process",
                            buckets=LATENCY_BUCKETS)
BOT_SECONDS = Histogram("ttr_bot_decision_seconds", "Time a bot took to choose a move", ["level"], buckets=BOT_BUCKETS)
TASK_RUNS = Counter("ttr_task_runs", "Celery task runs", ["task"])
TASK_FAILURES = Counter("ttr_task_failures", "Celery task runs that raised", ["task"])
SWEEP_ACTIONS = Counter("ttr_sweep_actions", "What the sweep did", ["action"])
UNAVAILABLE = Counter("ttr_unavailable", "Requests answered 503 because a service was down", ["service"])

_path: ContextVar[str] = ContextVar("ttr_move_path", default="http")


def move_path() -> str:
    """The path of the moves played here now (`http` unless a caller said otherwise)."""
    return _path.get()


@contextmanager
def moves_via(path: str) -> Iterator[None]:
    """Count the moves appended inside this block as having come through `path`."""
    token = _path.set(path)
    try:
        yield
    finally:
        _path.reset(token)


def directory() -> Path | None:
    value = os.environ.get(DIRECTORY_VARIABLE)
    return Path(value) if value else None


def forget_process(identity: str, *, folder: Path | None = None) -> None:
    """Drop the live gauges of a process that is gone (its counters stay). `folder`: this process's directory
    when None."""
    folder = folder or directory()
    if folder is not None:
        for path in folder.glob(f"gauge_live*_{identity}.db"):
            path.unlink(missing_ok=True)


def forget_this_process() -> None:
    forget_process(_identity())


atexit.register(forget_this_process)  # a process that ends normally takes its open sockets with it


def empty_directory(*, folder: Path | None = None) -> None:
    """Start afresh (the stack and `make run` do, before starting anything). `folder`: this process's directory
    when None."""
    folder = folder or directory()
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        for path in folder.glob("*.db"):
            path.unlink(missing_ok=True)
