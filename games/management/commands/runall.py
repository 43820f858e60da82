"""`manage.py runall [--port N]`: the embedded all-in-one server for `make run`.

Starts a Celery worker (solo pool, on the configured broker: with no REDIS_URL a filesystem broker that
needs no server) as a child process, then serves the ASGI application with uvicorn on 127.0.0.1. Stopping
the server (SIGTERM or SIGINT) stops the worker, and on Linux the worker also dies with this process if it
is killed outright (SIGKILL): it never outlives the server.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

WORKER_STOP_SECONDS = 10  # a warm shutdown lets the task in hand finish; then the worker is killed
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


class _Stop(BaseException):
    """Raised by the SIGTERM handler, so that `finally` stops the worker before this process ends."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class Command(BaseCommand):
    help = "Run the web server and a Celery worker together (embedded default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--no-worker", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        import uvicorn

        # uvicorn handles SIGTERM itself while it serves, but then puts back the handler it found and raises
        # the signal again: the default handler would end this process there and then, before `finally`
        # stopped the worker. This handler makes it an exception instead, as SIGINT already is.
        signal.signal(signal.SIGTERM, _raise_stop)
        worker, stopped_by = None, None
        try:
            worker = None if options["no_worker"] else _start_worker()
            self.stdout.write(f"serving on http://{options['host']}:{options['port']}/ (API docs at /api/docs/)")
            uvicorn.run("ttr_server.asgi:application", host=options["host"], port=options["port"], lifespan="off")
        except KeyboardInterrupt:
            stopped_by = signal.SIGINT
        except _Stop as stop:
            stopped_by = stop.signum
        finally:
            _stop(worker)
        if stopped_by is not None:
            _die_of(stopped_by)


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop(signum)


def _start_worker() -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "celery", "-A", "ttr_server", "worker", "--pool=solo", "--loglevel=INFO"]
    return subprocess.Popen(command, preexec_fn=_die_with_parent(os.getpid()))


def _die_with_parent(parent: int) -> Callable[[], None] | None:
    """For the child between fork and exec, on Linux: have the kernel send it SIGTERM when this process dies."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork: the child only calls it

    def arrange() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before prctl: nobody would send the signal
            os._exit(1)

    return arrange


def _stop(worker: subprocess.Popen[bytes] | None) -> None:
    """Stop the worker, with SIGINT and SIGTERM ignored meanwhile: a second Ctrl+C must not cut the shutdown
    short and leave the worker behind."""
    if worker is None:
        return
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    worker.terminate()
    try:
        worker.wait(timeout=WORKER_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


def _die_of(signum: int) -> None:
    """End this process by the signal that stopped it, as its parent (a shell, make) expects."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
