"""A web process's full garbage collection, with and without start-up frozen (ttr_server/settled.py):

    .venv/bin/python bench/gc_pauses.py [--states 200] [--rounds 3]

Each round starts two fresh processes, one of each kind, that set Django up and import every view as a web process
does, then hold `--states` mid-game 4-player Europe states (a web process's state cache), and time five full
collections (`gc.collect()`, which is what CPython's own full collections do, the process's requests held meanwhile).
The "settled" process calls `settle()` before making the states, as ttr_server/asgi.py does. Prints each kind's
median and the ratio, round by round (the two kinds alternate: a noisy machine weighs on both).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import gc, json, os, random, sys, time
sys.path.insert(0, {root!r})
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ttr_server.settings")
os.environ.setdefault("DEBUG", "1")
import django
django.setup()
from django.urls import get_resolver
get_resolver().url_patterns
import channels.routing, rest_framework.views  # what ttr_server/asgi.py imports beside Django
if {settled}:
    from ttr_server.settled import settle
    settle()
from games.engine.evolve import replay
from games.engine.simulate import play_random_game
states = []
for n in range({states}):
    events = play_random_game("europe", 4, random.Random(n)).events
    states.append(replay(events[: len(events) // 2]))
times = []
for _ in range(5):
    started = time.perf_counter()
    gc.collect()
    times.append(1000 * (time.perf_counter() - started))
print(json.dumps({{"tracked": len(gc.get_objects()), "frozen": gc.get_freeze_count(), "ms": times}}))
"""


def run(settled: bool, states: int) -> dict[str, object]:
    code = CHILD.format(root=str(ROOT), settled=settled, states=states)
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}  # nothing here reaches a database
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    found: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ratios = []
    for n in range(args.rounds):
        plain, settled = run(False, args.states), run(True, args.states)
        p, s = statistics.median(plain["ms"]), statistics.median(settled["ms"])  # type: ignore[arg-type]
        ratios.append(s / p)
        print(f"round {n + 1}: full collection, median of 5: plain {p:.1f} ms ({plain['tracked']:,} objects walked), "
              f"settled {s:.1f} ms ({settled['tracked']:,} walked, {settled['frozen']:,} frozen); ratio {s / p:.3f}")
    print(f"settled / plain: {', '.join(f'{r:.3f}' for r in ratios)}")


if __name__ == "__main__":
    main()
