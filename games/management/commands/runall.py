"""`manage.py runall [--port N]`: the embedded all-in-one server for `make run`.

The same supervisor as the production layout's (ttr_server/stack.py, `Stack.embedded`): uvicorn serving the ASGI
application on 127.0.0.1, a Celery worker (solo pool, on the configured broker: with no REDIS_URL a filesystem
broker that needs no server), a second one for post-game analysis (its own queue: judging a game never delays a
move) and Celery beat (the schedule of the sweep: turn clocks, lost tasks), each a child process. Stopping the
server (SIGTERM or SIGINT) stops them all, and on Linux they also die with this process if it is killed outright
(SIGKILL): they never outlive the server.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from ttr_server import metrics
from ttr_server.stack import Stack, supervise


class Command(BaseCommand):
    help = "Run the web server and a Celery worker together (embedded default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--no-worker", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        host, port = options["host"], options["port"]
        _public_url_follows(host, port)
        metrics.empty_directory()  # this run's figures only (every process of it adds to the same files)
        queues = [settings.CELERY_TASK_DEFAULT_QUEUE, settings.TTR_STRONG_QUEUE]
        stack = Stack.embedded(
            dict(os.environ), host=host, port=port, queues=queues, analysis_queue=settings.TTR_ANALYSIS_QUEUE,
            worker=not options["no_worker"],
        )
        self.stdout.write(f"serving on http://{host}:{port}/ (API docs at /api/docs/)")
        self.stdout.flush()
        _die_of(supervise(stack, name="runall"))


LOCAL_HOSTS = ("127.0.0.1", "0.0.0.0", "::", "::1", "localhost")


def _public_url_follows(host: str, port: int) -> None:
    """The links in mails point at this server (issue #30, finding 13: `PORT=19537 make run` mailed links to port
    8000), unless TTR_PUBLIC_URL says where the site is. The settings were read before --port was: this process's
    setting is changed here, and the children inherit it from the environment."""
    if os.environ.get("TTR_PUBLIC_URL"):
        return
    url = f"http://{'localhost' if host in LOCAL_HOSTS else host}:{port}"
    os.environ["TTR_PUBLIC_URL"] = url
    settings.TTR_PUBLIC_URL = url


def _die_of(signum: int) -> None:
    """End this process by the signal that stopped it, as its parent (a shell, make) expects."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
