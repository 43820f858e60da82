"""`manage.py runall [--port N]`: the embedded all-in-one server for `make run`.

Starts a Celery worker (solo pool, on the configured broker: with no REDIS_URL a filesystem broker that
needs no server), a second one for post-game analysis (its own queue: judging a game never delays a move) and
Celery beat (the schedule of the sweep: turn clocks, lost tasks) as child processes,
then serves the ASGI application with uvicorn on 127.0.0.1. Stopping the server (SIGTERM or SIGINT) stops
both, and on Linux they also die with this process if it is killed outright (SIGKILL): they never outlive
the server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from ttr_server import children, metrics
from ttr_server.stack import WORKER_QUIET

WORKER_STOP_SECONDS = 10  # a warm shutdown lets the task in hand finish; then the worker is killed


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
        _public_url_follows(options["host"], options["port"])
        metrics.empty_directory()  # this run's figures only (every process of it adds to the same files)
        workers: list[subprocess.Popen[bytes]] = []
        stopped_by: int | None = None
        try:
            if not options["no_worker"]:
                workers = [_start(_worker()), _start(_analysis_worker(), nice=ANALYSIS_NICE), _start(BEAT)]
            self.stdout.write(f"serving on http://{options['host']}:{options['port']}/ (API docs at /api/docs/)")
            uvicorn.run(
                "ttr_server.asgi:application", host=options["host"], port=options["port"], lifespan="off",
                ws_per_message_deflate=False,  # as in production (docker-compose.yml): CPU and memory per socket
            )
        except KeyboardInterrupt:
            stopped_by = signal.SIGINT
        except _Stop as stop:
            stopped_by = stop.signum
        finally:
            _stop(workers)
        if stopped_by is not None:
            _die_of(stopped_by)


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop(signum)


LOCAL_HOSTS = ("127.0.0.1", "0.0.0.0", "::", "::1", "localhost")


def _public_url_follows(host: str, port: int) -> None:
    """The links in mails point at this server (issue #30, finding 13: `PORT=19537 make run` mailed links to port
    8000), unless TTR_PUBLIC_URL says where the site is. The settings were read before --port was: this process's
    setting is changed here, and the workers and beat inherit it from the environment."""
    if os.environ.get("TTR_PUBLIC_URL"):
        return
    url = f"http://{'localhost' if host in LOCAL_HOSTS else host}:{port}"
    os.environ["TTR_PUBLIC_URL"] = url
    settings.TTR_PUBLIC_URL = url


def _worker() -> list[str]:
    """The default queue and the strong bot's."""
    queues = f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.TTR_STRONG_QUEUE}"
    return ["worker", "--pool=solo", "--loglevel=INFO", "-Q", queues, "-n", "embedded@%h", *WORKER_QUIET]


def _analysis_worker() -> list[str]:
    return ["worker", "--pool=solo", "--loglevel=INFO", "-Q", settings.TTR_ANALYSIS_QUEUE, "-n", "analysis@%h",
            *WORKER_QUIET]


BEAT = ["beat", "--loglevel=WARNING"]  # its schedule file: settings.CELERY_BEAT_SCHEDULE_FILENAME


ANALYSIS_NICE = 10  # the analysis worker shares this machine's cores with moves and bots: it yields to them


def _start(arguments: list[str], *, nice: int = 0) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "celery", "-A", "ttr_server", "-q", *arguments]  # -q: no banner, log lines only
    if nice:
        command = ["nice", "-n", str(nice), *command]
    return subprocess.Popen(command, preexec_fn=children.die_with_parent(os.getpid()))


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    """Stop the worker and beat, with SIGINT and SIGTERM ignored meanwhile: a second Ctrl+C must not cut the
    shutdown short and leave one behind."""
    if not children:
        return
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    for child in children:
        child.terminate()
    for child in children:
        try:
            child.wait(timeout=WORKER_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _die_of(signum: int) -> None:
    """End this process by the signal that stopped it, as its parent (a shell, make) expects."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
