"""The progress line of a long verification on stderr: games done of the total, and games a second. On a terminal
one line, rewritten at most four times a second; into a file or a pipe a line now and then."""

from __future__ import annotations

import sys
import time
from typing import TextIO

TTY_INTERVAL = 0.25  # seconds between two rewrites of the line on a terminal
LOG_INTERVAL = 30.0  # seconds between two lines elsewhere


class Progress:
    def __init__(self, total: int, *, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total, self.enabled = total, enabled
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.interval = TTY_INTERVAL if self.tty else LOG_INTERVAL
        self.started = time.perf_counter()
        self._shown = self.started
        self._width = 0

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if self.enabled and now - self._shown >= self.interval:
            self._shown = now
            self._write(done, now)

    def finish(self, done: int) -> None:
        if self.enabled and self.tty and self._width:
            self._write(done, time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()

    def _write(self, done: int, now: float) -> None:
        rate = done / (now - self.started) if now > self.started else 0.0
        text = f"verifying: {done:,}/{self.total:,} games, {rate:,.1f} games/s"
        if self.tty:
            self.stream.write("\r" + text.ljust(self._width))
            self._width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
