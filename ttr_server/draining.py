"""A web process's drain on SIGTERM, for the load balancer in front (docs/OPERATIONS.md, "Load balancer (HAProxy)").

uvicorn stops accepting connections the moment it gets SIGTERM. Behind HAProxy that is too soon: the balancer still
counts the process as up until its health check says otherwise, and would send it requests whose connections are
refused. So the first SIGTERM only marks the process draining: `/readyz` answers 503 from then on (HAProxy's check,
every second and every 250 ms once one has failed, takes it out after two failures: deploy/haproxy.cfg), it goes on
serving whatever still reaches it, and `DRAIN_SECONDS` later the signal is handed to uvicorn, which stops accepting,
finishes the requests under way (`--timeout-graceful-shutdown`) and closes its sockets with 1012; their clients
reconnect through the balancer to another process and resync. A second SIGTERM is handed on at once; SIGINT (a
terminal's Ctrl+C) is uvicorn's own. `TTR_DRAIN_SECONDS=0` turns the wait off (the stack does when no balancer runs).
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

logger = logging.getLogger(__name__)
VARIABLE = "TTR_DRAIN_SECONDS"
DRAIN_SECONDS = 3.0  # above HAProxy's time to see it: inter 1 s, then 2 failures 250 ms apart, and the check's own time

_draining = threading.Event()
_tried = False


def draining() -> bool:
    """Whether this process has had SIGTERM and is waiting for the balancer to take it out."""
    return _draining.is_set()


def seconds() -> float:
    try:
        return max(0.0, float(os.environ.get(VARIABLE, DRAIN_SECONDS)))
    except ValueError:
        return DRAIN_SECONDS


def ensure() -> None:
    """`install` once, on the first request (ttr_server/http.py): uvicorn installs its signal handlers when it starts
    serving, after it has imported the application, so the application can only find them from then on. It runs
    on the event loop's thread, the main one, where signal handlers are set. A check then costs a global's read."""
    global _tried
    if not _tried:
        _tried = True
        try:
            install()
        except ValueError:  # not the main thread (an application called from elsewhere): no drain, no harm
            logger.warning("draining: SIGTERM handler not installed (not the main thread)")


def install() -> bool:
    """Put the drain in front of uvicorn's SIGTERM handler. Does nothing where the handler is not uvicorn's (a test,
    a management command) or the wait is 0; whether it did."""
    uvicorns = signal.getsignal(signal.SIGTERM)
    owner = getattr(uvicorns, "__self__", None)
    if not callable(uvicorns) or not type(owner).__module__.startswith("uvicorn.") or seconds() <= 0:
        return False
    signal.signal(signal.SIGTERM, _handler(uvicorns, seconds()))
    return True


def _handler(uvicorns: Callable[[int, FrameType | None], Any], wait: float) -> Callable[[int, FrameType | None], None]:
    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        if _draining.is_set():
            uvicorns(signum, frame)  # a second SIGTERM: stop now
            return
        _draining.set()
        logger.info("draining: /readyz answers 503; the server stops taking connections in %.1f s", wait)
        timer = threading.Timer(wait, uvicorns, args=(signum, None))  # it only sets uvicorn's should_exit flag
        timer.daemon = True
        timer.start()

    return on_sigterm
