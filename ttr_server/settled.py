"""A process settled before it serves: what its first requests or tasks would import and load is loaded now, then
frozen out of the garbage collector's sight (`gc.freeze`).

A web process holds some 150,000 objects once Django, DRF, Channels and our modules are imported. CPython's full
collection walks every one of them: 270-300 ms on this machine, all that time holding every request of the process
(the interpreter's lock), and it comes back whenever enough new objects have outlived two younger collections. Frozen,
the start-up's objects are never walked again (they live as long as the process anyway); a full collection walks
only what came after (the games' states, the requests under way). Called once, at the end of start-up: by
ttr_server/asgi.py in each web process, and by ttr_server/celery.py in each worker before it forks its pool (the
children inherit the frozen objects, and leave their pages shared). Each full collection's time is then counted
in `ttr_gc_full_seconds` (/metrics), which bench/load.py reports.
"""

from __future__ import annotations

import gc
import os
import time
from collections import deque
from typing import Any

MAPS = ("europe", "usa")


def settle() -> int:
    """Import every view (the URL configuration) and load both maps, then freeze; the objects frozen. TTR_SETTLE=0
    leaves the process as it was before (bench/load.py --no-settle measures what settling buys)."""
    if os.environ.get("TTR_SETTLE", "1") == "0":
        return 0
    from django.urls import get_resolver

    from games.engine.board import load_board

    get_resolver().url_patterns  # noqa: B018  (imports every view module: the first request would)
    for name in MAPS:
        load_board(name)
    gc.collect()  # what start-up left as garbage is freed first, not frozen
    gc.freeze()
    if _timed not in gc.callbacks:
        gc.callbacks.append(_timed)
    return gc.get_freeze_count()


_began: list[float] = []
_pauses: deque[float] = deque(maxlen=1000)  # timed, not yet counted


def _timed(phase: str, info: dict[str, Any]) -> None:
    """Each full collection's time (the younger ones, a thousand a second, are not timed). Only kept here: a
    collection may run inside the metrics' own lock, which counting it now would take again (`count_pauses`)."""
    if info["generation"] != 2:
        return
    if phase == "start":
        _began[:] = [time.perf_counter()]
    elif _began:
        _pauses.append(time.perf_counter() - _began.pop())


def count_pauses() -> None:
    """Count the full collections timed since the last call in ttr_gc_full_seconds: after each request
    (ttr_server/observe.py) and each task (ttr_server/celery.py)."""
    if not _pauses:
        return
    from ttr_server import metrics

    while _pauses:
        metrics.GC_FULL_SECONDS.observe(_pauses.popleft())
