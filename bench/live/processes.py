"""Processes a live server runs: free ports, waiting until a server answers, the members of a process group.

Processes are found by their process group in /proc: Linux only (`LINUX` says whether these helpers can run).
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
LINUX = Path("/proc/self/stat").exists()
START_SECONDS = 60
STOP_SECONDS = 15


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_answering(
    url: str, process: subprocess.Popen[bytes], log: Callable[[], str], seconds: float = START_SECONDS
) -> None:
    """Wait until `url` answers 200, failing with the end of `log()` if `process` exits or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited ({process.returncode}):\n{log()}"
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"the server did not answer in {seconds} s:\n{log()}")


@dataclass(frozen=True)
class Process:
    pid: int
    command: str


def group_members(group: int) -> list[Process]:
    """The processes of a process group that are still running (zombies are dead: not counted)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, pgrp, ...
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(Process(int(stat.parent.name), command.strip()))
    return found
