"""`manage.py migrate`, Django's own, whose report ("Applying games.0001_initial... OK") becomes log lines when
the logs are JSON (ttr_server/json_logs.py; `make stack`, compose): every line a production process writes is then one
JSON object, the migration step's too. At a terminal (LOG_FORMAT=console) it writes as Django's does, and a
caller that hands it a `stdout` of its own (call_command, tests) gets the text."""

from __future__ import annotations

import logging
from typing import Any

from django.core.management.commands import migrate

from ttr_server import json_logs

logger = logging.getLogger("django.migrate")


class _Lines:
    """A text stream that logs each finished line (Django writes "  Applying x..." and " OK" in two calls)."""

    def __init__(self) -> None:
        self.pending = ""

    def write(self, text: str) -> int:
        *lines, self.pending = (self.pending + text).split("\n")
        for line in lines:
            if line.strip():
                logger.info(line.strip())
        return len(text)

    def flush(self) -> None:
        pass  # Django flushes after "Applying x...": the line ends with its " OK"

    def close(self) -> None:
        if self.pending.strip():
            logger.info(self.pending.strip())
        self.pending = ""


class Command(migrate.Command):
    def execute(self, *args: Any, **options: Any) -> str | None:
        lines = _Lines() if json_logs.json_lines() and not options.get("stdout") else None
        if lines is not None:
            options["stdout"] = lines
        try:
            return super().execute(*args, **options)
        finally:
            if lines is not None:
                lines.close()
