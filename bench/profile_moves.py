"""Where a move's time goes on the web processes: py-spy samples uvicorn while bench/api.py's clients play.

    .venv/bin/pip install -e '.[bench]'      # py-spy, a binary wheel
    .venv/bin/python bench/profile_moves.py [--clients 32] [--seconds 20] [--workers 3] [--raw /tmp/moves.txt]

A fresh database, uvicorn with `--workers` processes and `--clients` client threads as in bench/api.py; once
every client is in a game, `py-spy record --subprocesses --format raw` samples the supervisor and its workers
for `--seconds` (only threads that are running: py-spy leaves idle threads out unless told `--idle`). Then each
sampled stack is put in the first bucket of BUCKETS that it matches (innermost frame first within a request,
so "the engine step inside the move view" counts as the engine), and the buckets are printed as percentages of
all samples, separately for the two requests of a move (`GET /legal-moves`, `POST /moves`) and the rest.
The raw collapsed stacks stay in `--raw` (feed them to flamegraph.pl or speedscope for a picture). Needs root
or ptrace permission (we run as root).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api  # bench/api.py: database, server, clients

# A sample is first put in a WAIT bucket by its innermost frames (a thread parked is not work; py-spy reports
# some waits as active, and on a loaded machine more so), else in the first SPECIFIC bucket met from the
# outermost frame inwards (so the engine replaying events inside the state load counts as the state load, and the
# SQL under the token check as the token check), else in the first GENERIC bucket met from the innermost frame out.
IDLE = r"_worker \(concurrent/futures/thread\.py:8[01]\)$|psycopg_pool/sched|multiprocessing/connection|uvicorn/supervisors"
WAITS: list[tuple[str, str]] = [
    ("wait: event loop blocked starting a thread per request (asgiref ThreadSensitiveContext)", r"Thread\.start \("),
    ("wait: joining the per-request thread (ThreadSensitiveContext exit)", r"ThreadPoolExecutor\.shutdown"),
    ("wait: a pooled connection (psycopg_pool)", r"Queue\.get \(psycopg_pool"),
]
PG_WAIT = r"Connection\.wait \(psycopg/connection\.py"  # the innermost frame: PostgreSQL's answer on the wire
SPECIFIC: list[tuple[str, str]] = [
    ("token auth (DRF TokenAuthentication + its query)", r"authentication\.py|authenticate"),
    ("the game row query (game + seats)", r"game_row \("),
    ("legal moves (state + engine legal move list)", r"game_legal_moves"),
    ("state load (snapshot + events, decode, replay)", r"games/states\.py"),
    ("engine step (apply the move)", r"\bstep \("),
    ("append (hash chain, commitments, UPDATE + INSERT)", r"append \(games/log\.py"),
    ("commit (transaction.atomic exit)", r"Atomic\.__exit__"),
    ("event projection (log.project, redact)", r"project \(games/log\.py"),
    ("request body parsing + validation (DRF parser, serializer)", r"parsers\.py|_load_data_and_files|_valid \("),
    ("response rendering (DRF JSONRenderer, json.dumps)", r"rendered_content|renderers\.py"),
    ("metrics + log fields (prometheus_client, structlog)", r"prometheus_client|structlog"),
]
GENERIC: list[tuple[str, str]] = [
    ("other move bookkeeping (games/services, notify, clocks)", r"games/"),
    ("DRF request cycle (APIView.dispatch, permissions, throttles)", r"rest_framework/"),
    ("database connection handling (Django connections, pool, close)", r"django/db/|psycopg"),
    ("Django middleware + handler (ours incl.: observe, limits, health)", r"django/|ttr_server/"),
    ("thread hop (asgiref sync_to_async)", r"asgiref|concurrent/futures|threading\.py"),
    ("uvicorn + event loop (HTTP parsing, sockets)", r"uvicorn|asyncio|httptools|uvloop|h11"),
]
REQUEST_OF = [("in POST /moves' view", r"\bMovesView\.post"), ("in GET /legal-moves' view", r"LegalMovesView\.get")]
OUTSIDE = "outside the views: request cycle, thread hops, event loop"


def classify(frames: list[str]) -> tuple[str, str] | None:
    """(request, bucket) of one sampled stack; None for an idle thread."""
    if re.search(IDLE, frames[-1]) or not any(".py:" in f for f in frames):
        return None
    request = next((name for name, pattern in REQUEST_OF if any(re.search(pattern, f) for f in frames)), OUTSIDE)
    for name, pattern in WAITS:
        if any(re.search(pattern, f) for f in frames):
            return request, name
    pg = " [waiting on PostgreSQL]" if re.search(PG_WAIT, frames[-1]) else ""
    for frame in frames:
        for name, pattern in SPECIFIC:
            if re.search(pattern, frame):
                return request, name + pg
    for frame in reversed(frames):
        for name, pattern in GENERIC:
            if re.search(pattern, frame):
                return request, name + pg
    return request, "other (interpreter, GC)" + pg


def breakdown(raw: Path) -> tuple[int, Counter[tuple[str, str]]]:
    counts: Counter[tuple[str, str]] = Counter()
    idle = 0
    for line in raw.read_text().splitlines():
        stack, _, number = line.rpartition(" ")
        if not number.isdigit():
            continue
        key = classify(stack.split(";"))
        if key is None:
            idle += int(number)
        else:
            counts[key] += int(number)
    return idle, counts


def report(idle: int, counts: Counter[tuple[str, str]]) -> str:
    total = sum(counts.values())
    lines = [f"{total} samples of busy or waiting threads ({idle} of idle threads left out)"]
    by_bucket: Counter[str] = Counter()
    by_request: Counter[str] = Counter()
    for (request, bucket), n in counts.items():
        by_bucket[bucket] += n
        by_request[request] += n
    pg = sum(n for b, n in by_bucket.items() if b.endswith("[waiting on PostgreSQL]"))
    lines.append(f"waiting on PostgreSQL, all buckets: {100 * pg / total:.1f} %")
    lines.append("\nby request:")
    lines += [f"  {100 * n / total:5.1f} %  {name}" for name, n in by_request.most_common()]
    lines.append("\nby bucket (all samples):")
    lines += [f"  {100 * n / total:5.1f} %  {name}" for name, n in by_bucket.most_common() if 100 * n / total >= 0.1]
    for request, _ in by_request.most_common():
        lines.append(f"\n{request}:")
        rows = sorted(((n, b) for (r, b), n in counts.items() if r == request), reverse=True)
        lines += [f"  {100 * n / total:5.1f} %  {b}" for n, b in rows if 100 * n / total >= 0.2]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--rate", type=int, default=100, help="samples a second per thread")
    parser.add_argument("--raw", default="/tmp/moves-profile.txt", help="where py-spy writes the collapsed stacks")
    parser.add_argument("--nonblocking", action="store_true", help="do not pause the processes to sample them")
    parser.add_argument("--only", help="skip the run: break down an existing raw profile")
    args = parser.parse_args()
    if args.only:
        print(report(*breakdown(Path(args.only))))
        return 0
    url = api.os.environ.get("BENCH_DATABASE_URL", api.DEFAULT_URL)
    api.recreate_database(url)
    server = api.start_server(url, args.workers)
    spy = [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(server.pid), "--subprocesses"]
    spy += ["--format", "raw", "--rate", str(args.rate), "--duration", str(args.seconds), "-o", args.raw]
    spy += ["--nonblocking"] if args.nonblocking else []
    result: dict[str, object] = {}
    try:
        # The clients run a little longer than py-spy; py-spy starts once every client is in a game.
        stop = threading.Event()
        clients = [api.Client(i, stop) for i in range(args.clients)]
        for c in clients:
            c.start()
        for c in clients:
            c.ready.wait(timeout=300)
        before = sum(len(c.latencies) for c in clients)
        subprocess.run(spy, check=True)
        after = sum(len(c.latencies) for c in clients)
        stop.set()
        for c in clients:
            c.join(timeout=30)
        result = {"moves_while_sampled": after - before, "errors": sum(c.errors for c in clients)}
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(result)
    print(report(*breakdown(Path(args.raw))))
    return 1 if result.get("errors") else 0


if __name__ == "__main__":
    sys.exit(main())
