"""The web process's garbage collector (`gc_freeze`), set for a server: what was loaded at start-up is frozen (never scanned
again), and the young generation is collected every 20,000 allocations instead of 700 (the older ones every 20
and 100 of those, instead of 10 and 10).

A request allocates a few thousand short-lived objects and frees nearly all of them by reference counting; the
collector's passes over Django's and the engine's start-up heap were the tail of a move's latency. Measured by
`bench/api.py --clients 32 --seconds 15`, two alternating pairs each (2026-11-26): p99 157/164 ms -> 104/90 ms
with the freeze, then 101/120 -> 83/88 ms with the threshold too, and the web CPU per move 3.0-3.7 -> 2.7 ms.
(The Celery worker's bots gained nothing from it: `bench/strong.py` 703/710 against 703/713 playouts per CPU
second, so only the web processes do this.)
"""

from __future__ import annotations

import gc

THRESHOLDS = (20_000, 20, 100)  # as measured


def settle() -> None:
    """Call once the application is loaded (ttr_server/asgi.py)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
