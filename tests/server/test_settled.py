"""A web process settles before it serves (ttr_server/settled.py): every view imported and both maps loaded, then
start-up's objects frozen out of the garbage collector's walks, so that a full collection (which holds every request
of the process) walks only what came after; each full collection is timed in /metrics."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, json, sys
import ttr_server.asgi
from games.engine.board import load_board
from ttr_server import metrics, settled
frozen, walked = gc.get_freeze_count(), len(gc.get_objects())


def counted():
    return sum(s.value for s in metrics.GC_FULL_SECONDS.collect()[0].samples if s.name.endswith("_count"))


gc.collect()  # a full collection: timed, then counted
before = counted()
settled.count_pauses()
print(json.dumps({"frozen": frozen, "walked": walked, "counted": counted() - before,
                  "views": "games.api.views_tournaments" in sys.modules, "maps": load_board.cache_info().currsize}))
"""


def test_a_web_process_imports_its_views_loads_the_maps_and_freezes_them_before_it_serves() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ttr_server.settings"}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found["views"] and found["maps"] == 2, found
    assert found["frozen"] > 50_000, found  # Django, DRF, Channels and ours: about 150,000 objects on 2026-11-28
    assert found["walked"] < found["frozen"] / 5, found  # a full collection now walks a small part of them
    assert found["counted"] == 1, found  # each full collection's time goes to ttr_gc_full_seconds
