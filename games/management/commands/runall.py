"""`manage.py runall [--port N]`: the embedded all-in-one server for `make run`.

Starts a Celery worker (solo pool, on the configured broker: with no REDIS_URL a filesystem broker that
needs no server) as a child process, then serves the ASGI application with uvicorn on 127.0.0.1. Stopping
the server stops the worker.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Run the web server and a Celery worker together (embedded default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--no-worker", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        import uvicorn

        worker = None
        if not options["no_worker"]:
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "ttr_server", "worker", "--pool=solo", "--loglevel=INFO"]
            )
        self.stdout.write(f"serving on http://{options['host']}:{options['port']}/ (API docs at /api/docs/)")
        try:
            uvicorn.run("ttr_server.asgi:application", host=options["host"], port=options["port"], lifespan="off")
        finally:
            if worker is not None:
                worker.terminate()
                worker.wait(timeout=10)
