"""`summary`: the figures of a run from its `Recorder`: moves by path, latency percentiles by path, HTTP statuses,
5xx count, counters."""

from __future__ import annotations

import math
import time
from collections import Counter
from typing import Any

from bench.traffic.recorder import Recorder


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def summary(recorder: Recorder) -> dict[str, Any]:
    """Figures: moves by path, latency p50/p99/max in ms by path, HTTP statuses, 5xx count, counters."""
    received, acks, server_errors, anomalies = recorder.snapshot()
    latencies, statuses, counters = recorder.tallies()
    seconds = time.monotonic() - recorder.started

    def ms(value: float | None) -> float | None:
        return None if value is None else round(1000 * value, 1)

    moves = Counter(ack.path for ack in acks)
    return {
        "seconds": round(seconds, 1),
        "moves": dict(moves),
        "moves_per_s": round(sum(moves.values()) / seconds, 1) if seconds > 0 else None,
        "latency_ms": {
            path: {"n": len(values), "p50": ms(_percentile(values, 0.5)), "p99": ms(_percentile(values, 0.99)),
                   "max": ms(max(values) if values else None)}
            for path, values in latencies.items()
        },
        "statuses": statuses,
        "5xx": len(server_errors),
        "anomalies": len(anomalies),
        "received": len(received),
        "counters": counters,
    }
