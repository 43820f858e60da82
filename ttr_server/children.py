"""Child processes that never outlive the process that started them (`make run`'s runall, the stack)."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int, *, nice: int = 0) -> Callable[[], None] | None:
    """For the child between fork and exec, on Linux: have the kernel send it SIGTERM when this process dies
    (even of SIGKILL), and lower its CPU priority by `nice`. Pass as Popen's `preexec_fn`."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork: the child only calls it

    def arrange() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before prctl: nobody would send the signal
            os._exit(1)
        if nice:
            os.nice(nice)

    return arrange
