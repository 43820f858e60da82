"""A redis-server of one run's own, on a free port: killing and restarting it disturbs nobody else."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from pathlib import Path

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


class RedisServer:
    """A redis-server of this run's own, keeping nothing on disk (as the machine's)."""

    def __init__(self, port: int, log: Path) -> None:
        self.port, self.log = port, log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )
        deadline = time.monotonic() + 10
        import redis

        while time.monotonic() < deadline:
            try:
                redis.Redis.from_url(self.url, socket_timeout=1).ping()
                return
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def restart(self, down_seconds: float) -> None:
        """Killed outright (everything it held is lost: queued tasks, presence), back after `down_seconds`."""
        self.stop()
        time.sleep(down_seconds)
        self.start()

    def keys(self) -> int:
        import redis

        return int(redis.Redis.from_url(self.url, socket_timeout=2).dbsize())
