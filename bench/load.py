"""Load on the production layout: `.venv/bin/python bench/load.py [--games 200] [--flat-games 60] [--soak-minutes 30]`.

Starts what docker-compose runs (ttr_server/stack.py, through bench/fault_stack/harness.py: a Redis server of its own,
a scratch PostgreSQL database, `--web` uvicorn processes, a worker per queue, beat) and plays ranked games of 2-5
seats on it with bench/traffic/: people (registered users, scripted) over HTTP and over sockets, and greedy and
strong bots through the real workers. Phases, one after the other:

- `steady`: `--games` games at once, each person thinking uniform(`--think`) seconds before a move;
- `flat`: `--flat-games` games at once, nobody thinking (as fast as the stack answers);
  (with `--phase-minutes`, each of these two stops after that long, unfinished games left as they are);
- `soak` (with `--soak-minutes`): games started in waves of `--soak-games` at a steady pace for that long,
  sampling every process's memory, the database's connections and Redis's keys each minute.

Figures per phase: games finished per minute, moves per second, move latency p50/p99 by path (what the client
saw over HTTP and over the socket; the server's own time to decide and append, from /metrics, for every path
including the bots'), a bot's answer p50/p99 by level (from the log: the time from the event before a bot's move
to its move), the stack's CPU per move (every process's user + system time over the phase, divided by the moves
appended), each process's memory, and the errors: 5xx answers, and everything bench/traffic/'s `check_games`
finds (games that did not finish or verify, seqs, scores, acknowledged moves, leaks). The client runs in this
process on the same 2 cores: its CPU is reported beside the stack's.

`--predict CAPACITY_JSON` (bench/capacity.py's figures) prints, after each of those two phases, the stack's CPU
its counts predict (moves, reads, bot decisions by level, analysed events, its length: docs/CAPACITY.md's model)
against the measured, by kind of process; with `--from LOAD_JSON` it does so for an earlier run's report.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import resource
import signal
import sys
import threading
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.capacity import counts as stack_counts  # noqa: E402
from bench.capacity import predict  # noqa: E402
from bench.fault_stack.harness import Harness, harness  # noqa: E402
from bench.traffic.checks import check_games  # noqa: E402
from bench.traffic.figures import summary  # noqa: E402
from bench.traffic.play import play_games  # noqa: E402
from bench.traffic.recorder import Recorder  # noqa: E402
from bench.traffic.records import GameRecord  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(h: Harness) -> dict[str, float]:
    """Each stack process's CPU (user + system, its pool children's included), in seconds."""
    found: dict[str, float] = {}
    for name, pids in h.stack.pids().items():
        total = 0
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += sum(int(v) for v in fields[11:13])  # utime, stime
        found[name] = total / TICKS
    return found


def client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def moves_appended(h: Harness) -> dict[str, float]:
    from prometheus_client.parser import text_string_to_metric_families

    found: dict[str, float] = defaultdict(float)
    for family in text_string_to_metric_families(h.metrics()):
        for sample in family.samples:
            if sample.name == "ttr_moves_appended_total":
                found[sample.labels["path"]] += sample.value
    return dict(found)


def move_histogram(h: Harness, name: str = "ttr_move_seconds") -> dict[str, dict[float, float]]:
    """A histogram's cumulative bucket counts by path (ttr_move_seconds's; "all" for one without), all processes
    added up."""
    from prometheus_client.parser import text_string_to_metric_families

    buckets: dict[str, dict[float, float]] = defaultdict(dict)
    for family in text_string_to_metric_families(h.metrics()):
        for sample in family.samples:
            if sample.name == f"{name}_bucket":
                buckets[sample.labels.get("path", "all")][float(sample.labels["le"])] = sample.value
    return buckets


def server_latency(before: dict[str, dict[float, float]], after: dict[str, dict[float, float]]) -> dict[str, Any]:
    """p50/p99 in ms of the moves appended between two readings: the upper bound of the bucket that holds it."""
    answer = {}
    for path, counts in after.items():
        pairs = sorted((le, count - before.get(path, {}).get(le, 0)) for le, count in counts.items())
        total = pairs[-1][1]

        def quantile(q: float, pairs: list[tuple[float, float]] = pairs, total: float = total) -> float | None:
            return next((round(le * 1000, 1) for le, count in pairs if count >= q * total), None)

        if total:
            answer[path] = {"n": total, "p50_le": quantile(0.5), "p99_le": quantile(0.99)}
    return answer


def bot_answers(url: str, records: list[GameRecord]) -> dict[str, dict[str, Any]]:
    """Per level: the time from the event before a bot's move to the move's first event (the log's own times)."""
    import httpx

    times: dict[str, list[float]] = defaultdict(list)
    with httpx.Client(timeout=60) as http:
        for record in records:
            if not record.finished or not record.id:
                continue
            levels = {s.seat: s.bot for s in record.seats if s.bot}
            lines = [json.loads(line) for line in http.get(f"{url}/api/games/{record.id}/audit").text.splitlines()]
            for before, line in itertools.pairwise(lines):
                if line.get("reason") and line.get("seat") in levels and line["type"] != "turn_timed_out":
                    gap = datetime.fromisoformat(line["at"]) - datetime.fromisoformat(before["at"])
                    times[levels[line["seat"]]].append(gap.total_seconds())
    return {
        level: {"n": len(v), "p50_ms": round(1000 * _pct(v, 0.5), 1), "p99_ms": round(1000 * _pct(v, 0.99), 1)}
        for level, v in times.items()
    }


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def freeze_what_the_clients_keep(stop: threading.Event) -> None:
    """Every 2 s, everything this process holds now out of the garbage collector's walks. The clients keep every
    body and message they received (for the checks): a full collection walking them all held every client thread for
    up to seconds, and the moves it caught counted that as their latency. What they keep is never garbage."""
    while not stop.wait(2.0):
        gc.freeze()


def phase(h: Harness, name: str, games: int, think: tuple[float, float], args: argparse.Namespace,
          seed: int) -> dict[str, Any]:
    recorder = Recorder(keep_bodies=not args.no_check)
    counts0 = stack_counts(h)
    cpu0, client0, moves0, started = cpu_seconds(h), client_cpu(), moves_appended(h), time.monotonic()
    histogram0, gc0 = move_histogram(h), move_histogram(h, "ttr_gc_full_seconds")
    records = play_games(
        h.urls, games, seed=seed, think=think, recorder=recorder, socket_share=0.5, human_share=args.human_share,
        bot_levels=tuple(args.bot_levels.split(",")), strong_share=args.strong_share, users=args.users, threads=args.threads,
        stall_seconds=600, score_seconds=600,
        deadline=started + 60 * args.phase_minutes if args.phase_minutes else None,
    )
    seconds = time.monotonic() - started
    cpu1, client1, moves1 = cpu_seconds(h), client_cpu(), moves_appended(h)
    counts1 = stack_counts(h)
    appended = sum(moves1.values()) - sum(moves0.values())
    stack_cpu = sum(cpu1.get(k, 0) - cpu0.get(k, 0) for k in cpu1)
    finished = sum(1 for r in records if r.finished)
    figures = summary(recorder)
    problems = [] if args.no_check else check_games(h.urls[0], records, recorder)
    return {
        "phase": name, "games": games, "think_s": list(think), "seconds": round(seconds, 1),
        "finished": finished, "games_per_minute": round(finished / (seconds / 60), 2),
        "moves_appended": {k: moves1[k] - moves0.get(k, 0) for k in moves1},
        "moves_per_s": round(appended / seconds, 1),
        "client_latency_ms": figures["latency_ms"],
        "server_move_ms": server_latency(histogram0, move_histogram(h)),
        "full_gc_ms": server_latency(gc0, move_histogram(h, "ttr_gc_full_seconds")),
        "bot_answer": bot_answers(h.urls[0], records),
        "stack_cpu_ms_per_move": round(1000 * stack_cpu / appended, 2) if appended else None,
        "stack_cpu_by_process_s": {k: round(cpu1.get(k, 0) - cpu0.get(k, 0), 1) for k in cpu1},
        "client_cpu_s": round(client1 - client0, 1),
        "counts": {k: v - counts0.get(k, 0.0) for k, v in counts1.items() if k != "sockets_open"},
        "web_processes": args.web, "loadavg": os.getloadavg(), "registered_users": args.users,
        "memory_mb": {k: round(v / 2**20) for k, v in h.stack.memory().items()},
        "statuses": figures["statuses"], "5xx": figures["5xx"], "counters": figures["counters"],
        "problems": len(problems), "problem_examples": problems[:5],
    }


def sample(h: Harness) -> dict[str, Any]:
    return {
        "at_s": round(time.monotonic(), 1), "memory_mb": {k: round(v / 2**20) for k, v in h.stack.memory().items()},
        "db_connections": h.connections(), "redis_keys": h.redis.keys(),
    }


def soak(h: Harness, args: argparse.Namespace) -> dict[str, Any]:
    end = time.monotonic() + 60 * args.soak_minutes
    samples = [sample(h)]
    stop = threading.Event()

    def sampler() -> None:
        while not stop.wait(60):
            samples.append(sample(h))

    thread = threading.Thread(target=sampler, daemon=True)
    thread.start()
    waves, finished, unfinished, fivexx = 0, 0, 0, 0
    moves0, started = moves_appended(h), time.monotonic()
    while time.monotonic() < end:
        recorder = Recorder(keep_bodies=False)
        records = play_games(
            h.urls, args.soak_games, seed=1000 + waves, think=tuple(args.think), recorder=recorder,
            human_share=args.human_share, strong_share=args.strong_share, users=args.users, stall_seconds=600,
            score_seconds=600, bot_levels=tuple(args.bot_levels.split(",")),
        )
        waves += 1
        finished += sum(1 for r in records if r.finished)
        fivexx += summary(recorder)["5xx"]
        unfinished += sum(1 for r in records if not r.finished)
    stop.set()
    thread.join()
    samples.append(sample(h))
    appended = sum(moves_appended(h).values()) - sum(moves0.values())
    return {
        "phase": "soak", "minutes": round((time.monotonic() - started) / 60, 1), "waves": waves,
        "finished": finished, "unfinished": unfinished, "5xx": fivexx, "moves_appended": appended,
        "start": samples[0], "end": samples[-1], "samples": samples,
    }


def show_prediction(result: dict[str, Any], capacity: dict[str, Any] | Path) -> dict[str, Any]:
    """The phase's stack CPU as bench/capacity.py's unit costs predict it from the phase's counts, against the
    measured, printed by kind of process. A path is read now, when the phase has ended (bench/capacity.py may run
    beside this run, in the same machine's load)."""
    if isinstance(capacity, Path):
        if not capacity.exists():
            print(f"no {capacity} yet: predict later with --predict {capacity} --from <this run's --json>")
            return {}
        figures: dict[str, Any] = json.loads(capacity.read_text())
    else:
        figures = capacity
    try:
        rows = predict(result, figures)
    except (KeyError, TypeError) as error:  # figures without a term this run needs: say so, keep the run's report
        print(f"no prediction from {figures.get('command')}: {error!r}")
        return {}
    print(f"{result['phase']}: stack CPU predicted from {figures.get('command', 'capacity')} ({figures.get('date')})")
    for name, row in rows.items():
        print(f"  {name:16} predicted {row['predicted_s']:8.1f} s  measured {row['measured_s']:8.1f} s  "
              f"error {row['error_pct']} %")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games at once in the steady phase")
    parser.add_argument("--flat-games", type=int, default=60, help="games at once in the flat-out phase (0: none)")
    parser.add_argument("--think", type=float, nargs=2, default=[0.5, 2.0], metavar=("MIN", "MAX"))
    parser.add_argument("--phase-minutes", type=float, help="stop the steady and flat phases after this long, "
                        "games unfinished (their figures cover that time)")
    parser.add_argument("--soak-minutes", type=float, default=0)
    parser.add_argument("--soak-games", type=int, default=20, help="games a wave in the soak")
    parser.add_argument("--web", type=int, default=2)
    parser.add_argument("--human-share", type=float, default=0.5)
    parser.add_argument("--strong-share", type=float, default=0.1)
    parser.add_argument("--bot-levels", default="random,greedy,greedy,strong",
                        help="the bots' levels, drawn per seat (strong: one seat in --strong-share of the games)")
    parser.add_argument("--strong-concurrency", type=int, help="the search worker's pool (compose's when not given)")
    parser.add_argument("--no-priority", action="store_true",
                        help="every process at the same CPU priority (ttr_server/stack.py PRIORITY off): what it buys")
    parser.add_argument("--no-settle", action="store_true",
                        help="processes not settled before they serve (ttr_server/settled.py off): what it buys")
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-check", action="store_true", help="skip check_games (keeps no bodies: less memory)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--predict", type=Path, metavar="CAPACITY_JSON",
                        help="bench/capacity.py's figures: print each phase's predicted CPU against the measured")
    parser.add_argument("--from", dest="source", type=Path, metavar="LOAD_JSON",
                        help="with --predict: no run, the phases of this earlier --json report")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a TERM stops the stack and servers it started
    threading.Thread(target=freeze_what_the_clients_keep, args=(threading.Event(),), daemon=True).start()
    if args.source:
        assert args.predict, "--from needs --predict"
        capacity = json.loads(args.predict.read_text())
        for old in json.loads(args.source.read_text())["phases"]:
            if "counts" in old:
                show_prediction(old, capacity)
        return
    # A pool of --users people plays --games games at once: more each than one person may (TTR_MAX_LIVE_GAMES).
    extra = {"AUTH_THROTTLE_RATE": "100000/min", "TTR_MAX_LIVE_GAMES": "100000",
             "TTR_SETTLE": "0" if args.no_settle else "1"}
    report: dict[str, Any] = {"date": datetime.now().isoformat(timespec="minutes"), "args": vars(args) | {"json": None}}
    with harness(f"ttr_load_{os.getpid()}", web=args.web, extra_env=extra, strong_concurrency=args.strong_concurrency,
                 priorities=not args.no_priority) as h:
        report["memory_mb_start"] = {k: round(v / 2**20) for k, v in h.stack.memory().items()}
        report["phases"] = []
        if args.games:
            report["phases"].append(phase(h, "steady", args.games, tuple(args.think), args, args.seed))
            print(json.dumps(report["phases"][-1]), flush=True)
            if args.predict:
                report["phases"][-1]["prediction"] = show_prediction(report["phases"][-1], args.predict)
        if args.flat_games:
            report["phases"].append(phase(h, "flat", args.flat_games, (0.0, 0.0), args, args.seed + 1))
            print(json.dumps(report["phases"][-1]), flush=True)
            if args.predict:
                report["phases"][-1]["prediction"] = show_prediction(report["phases"][-1], args.predict)
        if args.soak_minutes:
            report["phases"].append(soak(h, args))
            print(json.dumps(report["phases"][-1]), flush=True)
        errors = h.server_errors()
        ratings = h.manage("recompute_ratings", "--check")
        report["server_errors_in_logs"] = len(errors)
        report["recompute_ratings_check"] = ratings.returncode == 0
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    print(json.dumps({k: v for k, v in report.items() if k != "phases"}))


if __name__ == "__main__":
    main()
