"""`manage.py alive web|worker|sweep`: a container's health check (docker-compose.yml), exit 0 when healthy.

- `web [--url URL]`: the web process answers /healthz (default http://127.0.0.1:8000/healthz).
- `worker`: a worker of this host (its container) wrote its heartbeat in the last few seconds.
- `sweep`: the sweep ran in the last few seconds (beat schedules it, a worker runs it).
"""

from __future__ import annotations

import socket
import urllib.request
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ttr_server import health


class Command(BaseCommand):
    help = "Exit 0 when this container's process is healthy (web, worker or sweep)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("what", choices=["web", "worker", "sweep"])
        parser.add_argument("--url", default="http://127.0.0.1:8000/healthz")

    def handle(self, *args: Any, **options: Any) -> None:
        what = options["what"]
        if what == "web":
            try:
                with urllib.request.urlopen(options["url"], timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError as error:
                raise CommandError(f"{options['url']}: {error}") from error
            raise CommandError(f"{options['url']} did not answer 200")
        this_host = f"@{socket.gethostname()}"  # a worker's node name ends with its host
        age = health.newest_age("sweep") if what == "sweep" else health.newest_age("worker:", suffix=this_host)
        if age is None or age > health.STALE_SECONDS:
            raise CommandError(f"{what}: no heartbeat in the last {health.STALE_SECONDS:.0f} s (last: {age} s ago)")
        self.stdout.write(f"{what}: alive ({age:.1f} s ago)")
