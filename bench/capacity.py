"""What a move, a read, a bot decision, an analysis and a finished game cost, measured on the production layout:
`.venv/bin/python bench/capacity.py [--games 40] [--minutes M] [--idle-seconds 60] [--reads 3000]
[--setup-games 40] [--setup-seconds 90] [--json PATH]`; and the plan from those figures:
`bench/capacity.py --plan CAPACITY_JSON [--live 1000 10000 100000] [--game EVENTS MOVES] [--analysis-event-cpu S]`.

docs/CAPACITY.md builds its model from these figures. The run starts a PostgreSQL cluster of its own (`initdb` in
a temporary directory, a free loopback port; `--admin-url` to use another server instead): the machine's server
also serves other people's test databases, and a cluster's CPU and WAL (pg_current_wal_lsn) can only be read for
the whole cluster, so only a cluster that serves nothing but this run gives both exactly. On it,
bench/fault_stack/harness.py starts the stack (a scratch database, a Redis of its own, `--web` uvicorn processes,
a worker per queue, beat), and these phases follow, each measured by readings before and after:

- `registered`: `--users` people registered (slow on purpose: kept out of the other costs);
- `idle`: nothing but the stack's own timers (beat's sweep every second, the analysis sweep, the pools' checks) for
  `--idle-seconds`: each process's CPU a second, and the cluster's and Redis's;
- `games`: `--games` ranked games at once played by bench/traffic/ as bench/load.py's steady phase plays them
  (people over HTTP and sockets thinking 0.5-2 s, greedy bots, a strong bot in about a tenth of the games), to
  their end or for `--minutes`;
- `reads`: `--reads` GETs of `/state`, `/legal-moves` and `/events` (the last 3) of those games by their seated
  people, 4 threads, the analysis worker stopped meanwhile;
- `setup`: `--setup-games` more games created, seated and started, for `--setup-seconds`.

CPU is user + system seconds from /proc (not wall time: the machine is shared): each stack process's (its pool
children included), the cluster's (the postmaster's own and its reaped children's, cutime/cstime, plus every live
backend and background process: backends come and go, the reaped ones are still counted), Redis's (INFO cpu).
WAL is the LSN difference; Redis's commands and bytes come from INFO stats and commandstats. Each figure less the
idle rate over a phase's length is a * moves + b * reads + c * setup POSTs (POSTs that are not moves) in each of
the games, reads and setup phases: solved for a move's cost (every path: HTTP, socket, bot), a read's and a setup
POST's. A worker's CPU less its idle rate, divided by the decisions of its level, is a bot decision's; the
analysis worker's, divided by the log events it judged, an analysed event's. Storage: the event and snapshot
tables (their partitions, if partitioned) with their indexes and TOAST, per event row, times a finished game's
events.

`predict(phase, capacity)` is bench/load.py's `--predict`: the stack's CPU a run should have used from its counts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fault_stack.harness import Harness, harness  # noqa: E402
from bench.live.processes import free_port  # noqa: E402
from bench.traffic.client import register_users  # noqa: E402
from bench.traffic.play import play_games  # noqa: E402
from bench.traffic.recorder import Recorder  # noqa: E402
from bench.traffic.records import GameRecord  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
PG_BIN = Path("/usr/lib/postgresql/15/bin")
GROUPS = ("web", "worker", "worker-strong", "worker-analysis", "beat")


def _stat(pid: int) -> list[str]:
    """/proc/<pid>/stat's fields after the command name (index 0 is the state, 1 the parent, 11-14 the times)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_cpu(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            total += sum(int(v) for v in _stat(pid)[11:13])  # utime, stime
        except OSError:
            continue
    return total / TICKS


def group(name: str) -> str:
    """A stack child's kind: "web-1" is "web", "worker-strong-0" is "worker-strong"."""
    return re.sub(r"-\d+$", "", name)


def stack_cpu(h: Harness) -> dict[str, float]:
    """CPU seconds by kind of process (all web processes together, and so on)."""
    found: dict[str, float] = defaultdict(float)
    for name, pids in h.stack.pids().items():
        found[group(name)] += process_cpu(pids)
    return dict(found)


def cluster_cpu(postmaster: int) -> float:
    """The PostgreSQL cluster's CPU seconds so far: the postmaster's own and its reaped children's, and every live
    child's."""
    fields = _stat(postmaster)
    total = sum(int(v) for v in fields[11:15])
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                child = _stat(int(entry.name))
            except OSError:
                continue
            if int(child[1]) == postmaster:
                total += sum(int(v) for v in child[11:13])
    return total / TICKS


def counts(h: Harness) -> dict[str, float]:
    """The stack's counters, all processes added up (/metrics): moves by path, HTTP requests by method, bot
    decisions by level, task runs by task, sockets open now; and the log events the analyses judged so far."""
    from prometheus_client.parser import text_string_to_metric_families

    found: dict[str, float] = defaultdict(float)
    for family in text_string_to_metric_families(h.metrics()):
        for s in family.samples:
            if s.name == "ttr_moves_appended_total":
                found[f"moves.{s.labels['path']}"] += s.value
                found["moves"] += s.value
            elif s.name == "ttr_http_requests_total":
                found[f"requests.{s.labels['method']}"] += s.value
            elif s.name == "ttr_bot_decision_seconds_count":
                found[f"decisions.{s.labels['level']}"] += s.value
            elif s.name == "ttr_task_runs_total":
                found[f"tasks.{s.labels['task'].rsplit('.', 1)[-1]}"] += s.value
            elif s.name == "ttr_open_sockets":
                found["sockets_open"] += s.value
    found["analysed_events"] = analysed_events(h)
    return dict(found)


def analysed_events(h: Harness) -> float:
    """Log events judged by analyses so far: a finished analysis's whole log, a running one's share of it."""
    rows = h.query(
        "SELECT coalesce(sum(CASE WHEN a.status = 'done' THEN a.seq ELSE a.progress * g.seq END), 0) "
        "FROM games_analysis a JOIN games_game g ON g.id = a.game_id WHERE a.status IN ('done', 'running')"
    )
    return float(rows[0][0])


def redis_info(h: Harness) -> dict[str, float]:
    import redis

    client = redis.Redis.from_url(h.redis.url, socket_timeout=5)
    info = client.info("all")
    found = {
        "redis.cpu_s": float(info["used_cpu_user"]) + float(info["used_cpu_sys"]),
        "redis.commands": float(info["total_commands_processed"]),
        "redis.in_bytes": float(info["total_net_input_bytes"]),
        "redis.out_bytes": float(info["total_net_output_bytes"]),
        "redis.clients": float(info["connected_clients"]),
    }
    for key, value in info.items():
        if key.startswith("cmdstat_") and isinstance(value, dict):
            found[f"redis.cmd.{key[8:]}"] = float(value["calls"])
    return found


def reading(h: Harness, postmaster: int | None) -> dict[str, float]:
    """Everything a phase is measured by, at one instant (CPU in seconds, WAL in bytes)."""
    found = {f"cpu.{k}": v for k, v in stack_cpu(h).items()}
    found |= counts(h) | redis_info(h)
    found["wal"] = float(h.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')")[0][0])
    if postmaster is not None:
        found["cpu.postgres"] = cluster_cpu(postmaster)
    found["at"] = time.monotonic()
    return found


def delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    skip = ("sockets_open", "redis.clients")
    return {k: after[k] - before.get(k, 0.0) for k in after if k not in skip}


# A cluster of the run's own


@contextmanager
def own_cluster() -> Iterator[tuple[str, int]]:
    """A new PostgreSQL 15 cluster (initdb, trust on loopback, the server's defaults otherwise: fsync and
    synchronous_commit on) on a free port: its maintenance database's URL and the postmaster's pid. Stopped and
    removed on exit."""
    tmp = Path(tempfile.mkdtemp(prefix="ttr-capacity-pg-"))
    run_as: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: the cluster belongs to the postgres user
        import pwd

        account = pwd.getpwnam("postgres")
        os.chown(tmp, account.pw_uid, account.pw_gid)
        run_as = ["runuser", "-u", "postgres", "--"]
    data, port = tmp / "data", free_port()
    try:
        subprocess.run([*run_as, str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                        "-E", "UTF8"], check=True, capture_output=True)
        options = f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={tmp} -c max_connections=200"
        subprocess.run([*run_as, str(PG_BIN / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(tmp / "log"),
                        "-w", "start"], check=True, capture_output=True)
        postmaster = int((data / "postmaster.pid").read_text().split()[0])
        yield f"postgres://postgres@127.0.0.1:{port}/postgres", postmaster
    finally:
        subprocess.run([*run_as, str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


# Phases


def reads(h: Harness, records: list[GameRecord], count: int, threads: int = 4) -> None:
    """`count` GETs of /state, /legal-moves and /events (the last 3) of the finished games, each by a seated
    person."""
    import httpx

    seqs = {str(game): int(seq) for game, seq in h.query("SELECT id::text, seq FROM games_game")}
    targets = []
    for record in records:
        for seat in record.seats:
            if record.id and seat.username:
                targets.append((record.url, record.id, record.tokens[seat.username], seqs.get(record.id, 0)))
    assert targets, "no game with a person to read it"

    def reader(index: int) -> None:
        with httpx.Client(timeout=30) as http:
            for n in range(index, count, threads):
                url, game, token, seq = targets[n % len(targets)]
                headers = {"Authorization": f"Token {token}"}
                if n % 3 == 0:
                    http.get(f"{url}/api/games/{game}/state", headers=headers)
                elif n % 3 == 1:
                    http.get(f"{url}/api/games/{game}/legal-moves", headers=headers)
                else:  # what a client following the game asks: the last few events
                    http.get(f"{url}/api/games/{game}/events", params={"after": max(0, seq - 3)}, headers=headers)

    workers = [threading.Thread(target=reader, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def storage(h: Harness) -> dict[str, Any]:
    """The event and snapshot tables' bytes (heap + TOAST, indexes), over their leaf partitions if partitioned."""
    found: dict[str, Any] = {}
    for table in ("games_event", "games_snapshot"):
        heap, indexes, rows = h.query(
            "SELECT sum(pg_table_size(relid)), sum(pg_indexes_size(relid)), count(*) "
            "FROM pg_partition_tree(%s::regclass) WHERE isleaf", table,
        )[0]
        found[table] = {"table_bytes": int(heap), "index_bytes": int(indexes), "partitions": int(rows),
                        "rows": int(h.query(f"SELECT count(*) FROM {table}")[0][0])}
    games, events = h.query("SELECT count(*), coalesce(sum(seq), 0) FROM games_game WHERE status = 'finished'")[0]
    found["finished_games"], found["finished_events"] = int(games), int(events)
    found["database_bytes"] = int(h.query("SELECT pg_database_size(current_database())")[0][0])
    return found


def analyses(h: Harness) -> dict[str, Any]:
    """The analyses the worker finished: how many, their log events and the CPU each recorded (process time)."""
    games, events, cpu = h.query(
        "SELECT count(*), coalesce(sum(seq), 0), coalesce(sum(cpu_seconds), 0) FROM games_analysis WHERE status = 'done'"
    )[0]
    return {"done": int(games), "events": int(events), "cpu_s": float(cpu)}


def _det(m: list[list[float]]) -> float:
    if len(m) == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))


def per(amount: float, units: float) -> float | None:
    return amount / units if units else None


def measure(args: argparse.Namespace, admin_url: str, postmaster: int | None) -> dict[str, Any]:
    extra = {"AUTH_THROTTLE_RATE": "100000/min", "TTR_MAX_LIVE_GAMES": "100000",
             "TTR_STRONG_SECONDS": str(args.strong_seconds)}
    samples: dict[str, float] = defaultdict(float)
    with harness(f"ttr_capacity_{os.getpid()}", web=args.web, extra_env=extra, admin_url=admin_url) as h:
        empty = storage(h)
        before = reading(h, postmaster)
        pool = register_users(h.urls, args.users, Recorder(keep_bodies=False))  # slow on purpose: not a move's cost
        r0 = reading(h, postmaster)
        registered = delta(before, r0)
        time.sleep(args.idle_seconds)
        r1 = reading(h, postmaster)
        idle = delta(r0, r1)
        stop = threading.Event()

        def sampler() -> None:  # the most connections and sockets seen at once
            while not stop.wait(2):
                try:
                    now = {"db_connections": float(h.connections()), "redis_clients": redis_info(h)["redis.clients"],
                           "sockets_open": counts(h).get("sockets_open", 0.0)}
                except Exception:
                    continue
                for key, value in now.items():
                    samples[key] = max(samples[key], value)

        thread = threading.Thread(target=sampler, daemon=True)
        thread.start()
        recorder = Recorder(keep_bodies=False)
        records = play_games(
            h.urls, args.games, seed=args.seed, think=(0.5, 2.0), recorder=recorder, socket_share=0.5,
            human_share=0.5, bot_levels=("greedy", "strong"), strong_share=0.1, users=pool, stall_seconds=600,
            score_seconds=600, deadline=time.monotonic() + 60 * args.minutes if args.minutes else None,
        )
        stop.set()
        thread.join()
        r2 = reading(h, postmaster)
        played = delta(r1, r2)
        for name in h.stack.pids():  # the analyses go on after the games: not a read's cost (its task comes back)
            if group(name) == "worker-analysis":
                h.stack.signal(name, signal.SIGKILL, restart=False)
        r2 = reading(h, postmaster)
        reads(h, records, args.reads)
        r3 = reading(h, postmaster)
        read = delta(r2, r3)
        setup: dict[str, float] = {}
        if args.setup_games:  # games created, seated and started: what a game costs once, whatever its length
            play_games(h.urls, args.setup_games, seed=args.seed + 1, think=(0.5, 2.0), human_share=0.5,
                       recorder=Recorder(keep_bodies=False), strong_share=0.1, users=pool,
                       deadline=time.monotonic() + args.setup_seconds)
            setup = delta(r3, reading(h, postmaster))
        stored = storage(h)
        judged = analyses(h)
    return {
        "registered": registered, "args_users": args.users, "idle": idle, "games": played, "reads": read, "setup": setup,
        "storage_empty": empty, "storage": stored, "analyses": judged,
        "peaks": dict(samples), "finished": sum(1 for r in records if r.finished), "seats": [r.players for r in records],
        "people": sum(1 for r in records for s in r.seats if s.username),
        "spectators": sum(1 for r in records if r.spectator),
    }


def costs(raw: dict[str, Any], web: int) -> dict[str, Any]:
    """The model's unit costs from a run's phases."""
    idle, games, read = raw["idle"], raw["games"], raw["reads"]
    idle_s, games_s = idle["at"], games["at"]
    rate = {k: v / idle_s for k, v in idle.items() if k != "at"}
    gets = games.get("requests.GET", 0.0)
    moves = games.get("moves", 0.0)

    phases = [(games, games_s), (read, read["at"])] + ([(raw["setup"], raw["setup"]["at"])] if raw.get("setup") else [])

    def setups(phase: dict[str, float]) -> float:
        """POSTs that are not moves: creating, joining and starting games."""
        return max(0.0, phase.get("requests.POST", 0.0) - phase.get("moves.http", 0.0))

    def solve(key: str) -> list[float]:
        """[a move's, a read's(, a game setup POST's)] cost of `key`: each phase's figure less its idle share is
        a * moves + b * reads (+ c * setup POSTs), one equation a phase, solved exactly (Cramer's rule)."""
        rows = [[ph.get("moves", 0.0), ph.get("requests.GET", 0.0), setups(ph)][:len(phases)] for ph, _ in phases]
        rhs = [ph.get(key, 0.0) - rate.get(key, 0.0) * seconds for ph, seconds in phases]
        det = _det(rows)
        if not det:
            return [0.0] * 3
        answer = []
        for column in range(len(rows)):
            swapped = [[*row[:column], rhs[i], *row[column + 1:]] for i, row in enumerate(rows)]
            answer.append(_det(swapped) / det)
        return answer + [0.0] * (3 - len(answer))

    def per_setup(key: str) -> float:
        return solve(key)[2]

    def per_read(key: str) -> float:
        return solve(key)[1]

    def per_move(key: str) -> float | None:
        return solve(key)[0]

    measured = ("cpu.web", "cpu.postgres", "wal", "redis.cpu_s", "redis.commands", "redis.in_bytes", "redis.out_bytes",
                "redis.cmd.publish", "redis.cmd.spublish")
    stored = raw["storage"]
    empty = raw["storage_empty"]
    # Bytes an event row costs (its snapshots' share included) times the events of a finished game: the games
    # left unfinished by --minutes count for what they wrote.
    events = stored["games_event"]["rows"] or 1
    finished = stored["finished_events"] / stored["finished_games"] if stored["finished_games"] else events
    table_bytes = {
        t: {k: (stored[t][k] - empty[t][k]) / events * finished for k in ("table_bytes", "index_bytes", "rows")}
        for t in ("games_event", "games_snapshot")
    }
    decisions = {level.split(".", 1)[1]: games[level] for level in games if level.startswith("decisions.")}
    return {
        "idle_per_s": {k: rate[k] for k in (*[f"cpu.{g}" for g in GROUPS], "cpu.postgres", "wal", "redis.cpu_s",
                                             "redis.commands") if k in rate},
        "per_read": {k: per_read(k) for k in measured},
        "per_setup_post": {k: per_setup(k) for k in measured},
        "per_move": {k: per_move(k) for k in measured},
        "per_decision_cpu_s": {
            "greedy": per(games.get("cpu.worker", 0) - rate.get("cpu.worker", 0) * games_s, decisions.get("greedy", 0)),
            "strong": per(games.get("cpu.worker-strong", 0) - rate.get("cpu.worker-strong", 0) * games_s,
                          decisions.get("strong", 0)),
        },
        "per_analysed_event_cpu_s": per(
            games.get("cpu.worker-analysis", 0) - rate.get("cpu.worker-analysis", 0) * games_s,
            games.get("analysed_events", 0)),
        "analysis_recorded": raw["analyses"] | {
            "cpu_s_per_game": per(raw["analyses"]["cpu_s"], raw["analyses"]["done"]),
            "cpu_s_per_event": per(raw["analyses"]["cpu_s"], raw["analyses"]["events"])},
        "storage_per_game_bytes": table_bytes | {
            "database": (stored["database_bytes"] - empty["database_bytes"]) / finished},
        "per_game": {
            "moves": moves / events * finished, "events": finished,
            "seats": sum(raw["seats"]) / len(raw["seats"]), "people": raw["people"] / len(raw["seats"]),
            "reads_per_move": per(gets, moves), "decisions_per_move": {k: v / moves for k, v in decisions.items()},
            "moves_per_game_minute": per(moves, games_s / 60 * len(raw["seats"])),
        },
        "web_processes": web,
        "registration_web_cpu_s": per(raw["registered"].get("cpu.web", 0.0), raw["args_users"])
        if raw.get("registered") else None,
    }


# The prediction (bench/load.py --predict)


def predict(phase: dict[str, Any], capacity: dict[str, Any]) -> dict[str, Any]:
    """The stack's CPU seconds a phase should have used, by kind of process, from its counts (`phase["counts"]`: the
    delta of `counts()`, and `phase["seconds"]`) and the measured unit costs; beside what it used."""
    c, n, seconds = capacity["costs"], phase["counts"], phase["seconds"]
    if c.get("registration_web_cpu_s") is None and capacity.get("raw", {}).get("registered"):  # a report from before
        c = c | {"registration_web_cpu_s": per(capacity["raw"]["registered"].get("cpu.web", 0.0),
                                               capacity["args"]["users"])}
    idle = c["idle_per_s"]
    webs = phase.get("web_processes", c["web_processes"])
    predicted = {
        "web": idle["cpu.web"] / c["web_processes"] * webs * seconds + n.get("requests.GET", 0) * c["per_read"]["cpu.web"]
        + n.get("moves", 0) * c["per_move"]["cpu.web"]
        + max(0.0, n.get("requests.POST", 0) - n.get("moves.http", 0) - phase.get("registered_users", 0))
        * c.get("per_setup_post", {}).get("cpu.web", 0.0)
        + phase.get("registered_users", 0) * (c.get("registration_web_cpu_s") or 0.0),
        "worker": idle["cpu.worker"] * seconds + n.get("decisions.greedy", 0) * c["per_decision_cpu_s"]["greedy"],
        "worker-strong": idle["cpu.worker-strong"] * seconds
        + n.get("decisions.strong", 0) * c["per_decision_cpu_s"]["strong"],
        "worker-analysis": idle["cpu.worker-analysis"] * seconds
        + n.get("analysed_events", 0) * (c["per_analysed_event_cpu_s"] or 0.0),
        "beat": idle["cpu.beat"] * seconds,
    }
    measured: dict[str, float] = defaultdict(float)
    for name, value in phase["stack_cpu_by_process_s"].items():
        measured[group(name)] += value
    rows = {
        k: {"predicted_s": round(v, 1), "measured_s": round(measured.get(k, 0.0), 1),
            "error_pct": round(100 * (v - measured[k]) / measured[k], 1) if measured.get(k) else None}
        for k, v in predicted.items()
    }
    total_p, total_m = sum(predicted.values()), sum(measured.values())
    rows["stack"] = {"predicted_s": round(total_p, 1), "measured_s": round(total_m, 1),
                     "error_pct": round(100 * (total_p - total_m) / total_m, 1) if total_m else None}
    return rows


# The plan (docs/CAPACITY.md): machines, connections and disks for a number of games, from the measured costs


def per_game_second(c: dict[str, Any], game_minutes: float, analysis: float | None = None) -> dict[str, float]:
    """What one live game asks for each second, played at `game_minutes` from its first move to its last with the
    bench's mix of seats (moves, reads and bot decisions per move as measured); `analysis`: an analysed event's
    CPU seconds when the run finished no analysis (games cut short by --minutes)."""
    g = c["per_game"]
    moves = g["moves"] / (60 * game_minutes)
    reads = moves * (g["reads_per_move"] or 0.0)
    decisions = g["decisions_per_move"]

    def both(key: str) -> float:
        return moves * (c["per_move"][key] or 0.0) + reads * (c["per_read"][key] or 0.0)

    analysis = analysis or c["analysis_recorded"]["cpu_s_per_event"] or c["per_analysed_event_cpu_s"] or 0.0
    return {
        "moves": moves, "reads": reads, "web_cores": both("cpu.web"), "postgres_cores": both("cpu.postgres"),
        "wal_bytes": both("wal"), "redis_cores": both("redis.cpu_s"), "redis_commands": both("redis.commands"),
        "redis_bytes": both("redis.in_bytes") + both("redis.out_bytes"),
        "greedy_cores": moves * decisions.get("greedy", 0.0) * (c["per_decision_cpu_s"]["greedy"] or 0.0),
        "strong_cores": moves * decisions.get("strong", 0.0) * (c["per_decision_cpu_s"]["strong"] or 0.0),
        "analysis_cores": analysis * g["events"] / (60 * game_minutes),
    }


def rescale(c: dict[str, Any], events: float, moves: float) -> dict[str, Any]:
    """The costs with a finished game of `events` events and `moves` moves (storage scaled per event)."""
    was = c["per_game"]["events"]
    storage = {t: {k: v * events / was for k, v in sizes.items()} if isinstance(sizes, dict) else sizes * events / was
               for t, sizes in c["storage_per_game_bytes"].items()}
    return c | {"per_game": c["per_game"] | {"events": events, "moves": moves}, "storage_per_game_bytes": storage}


def plan(capacity: dict[str, Any], live: list[int], game_minutes: float, cores: int, utilisation: float,
         db_cores: int, analysis: float | None = None, game: tuple[float, float] | None = None) -> dict[str, Any]:
    """Machines of `cores` cores run at `utilisation` at most; one PostgreSQL primary of at most `db_cores`."""
    import math

    c = capacity["costs"]
    if game is not None:  # (events, moves) of a finished game, when the run finished none (--minutes)
        c = rescale(c, *game)
    unit = per_game_second(c, game_minutes, analysis)
    raw = capacity["raw"]
    processes = len(GROUPS) - 1 + c["web_processes"]  # the run's stack: its web processes, 3 workers, beat
    redis_per_process = raw["peaks"].get("redis_clients", 0.0) / processes
    sockets_per_game = (raw["people"] + raw["spectators"]) / len(raw["seats"])
    storage = sum(v["table_bytes"] + v["index_bytes"] for k, v in c["storage_per_game_bytes"].items()
                  if k in ("games_event", "games_snapshot"))
    ceilings = {
        "postgres primary": db_cores * utilisation / unit["postgres_cores"],
        "redis (one core)": utilisation / unit["redis_cores"] if unit["redis_cores"] else math.inf,
    }
    sizes = {}
    for games in live:
        need = {k: v * games for k, v in unit.items()}
        web = math.ceil(need["web_cores"] / utilisation)
        workers = {k: math.ceil(need[f"{k}_cores"] / utilisation) for k in ("greedy", "strong", "analysis")}
        app_cores = web + sum(workers.values())
        pg = math.ceil(need["postgres_cores"] / utilisation)
        sizes[str(games)] = {
            "moves_per_s": round(need["moves"]), "reads_per_s": round(need["reads"]),
            "web_processes": web, "worker_processes": workers,
            "app_machines": math.ceil(app_cores / cores), "postgres_cores": pg,
            "postgres_machines": math.ceil(pg / db_cores),
            "pgbouncer_server_connections": max(10, 2 * pg),
            "pgbouncer_client_connections": 16 * web + 3 * sum(workers.values()),
            "redis_cores": round(need["redis_cores"], 2), "redis_commands_per_s": round(need["redis_commands"]),
            "redis_mbit_per_s": round(8 * need["redis_bytes"] / 1e6, 1),
            "redis_connections": round(redis_per_process * (web + sum(workers.values()) + 1)),
            "sockets": round(games * sockets_per_game), "sockets_per_web_process": round(games * sockets_per_game / web),
            "wal_gb_per_day": round(need["wal_bytes"] * 86400 / 1e9, 1),
            "games_finished_per_day": round(games * 1440 / game_minutes),
            "storage_gb_per_day": round(games * 1440 / game_minutes * storage / 1e9, 1),
            "first_limit": min(ceilings, key=lambda k: ceilings[k]),
            "over_one_primary": games > ceilings["postgres primary"],
            "over_one_redis": games > ceilings["redis (one core)"],
        }
    return {"per_live_game_per_s": unit, "ceilings_in_live_games": {k: round(v) for k, v in ceilings.items()},
            "assumptions": {"game_minutes": game_minutes, "machine_cores": cores, "utilisation": utilisation,
                            "postgres_primary_cores": db_cores, "sockets_per_game": sockets_per_game,
                            "redis_connections_per_process": redis_per_process,
                            "storage_bytes_per_finished_game": storage},
            "sizes": sizes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--idle-seconds", type=float, default=60)
    parser.add_argument("--minutes", type=float, help="stop the games phase after this long, games unfinished")
    parser.add_argument("--users", type=int, default=12, help="people registered for the games (reused)")
    parser.add_argument("--reads", type=int, default=3000)
    parser.add_argument("--setup-games", type=int, default=40, help="games created and started in the setup phase")
    parser.add_argument("--setup-seconds", type=float, default=90, help="the setup phase's length")
    parser.add_argument("--web", type=int, default=2)
    parser.add_argument("--strong-seconds", type=float, default=1.5, help="TTR_STRONG_SECONDS (compose's: 1.5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--admin-url", help="a PostgreSQL server's maintenance URL instead of a cluster of the run's own")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--plan", type=Path, metavar="CAPACITY_JSON", help="no run: the plan from an earlier --json")
    parser.add_argument("--game-minutes", type=float, default=30, help="a live game's length with people (--plan)")
    parser.add_argument("--cores", type=int, default=16, help="an application machine's cores (--plan)")
    parser.add_argument("--db-cores", type=int, default=64, help="the most cores of one PostgreSQL primary (--plan)")
    parser.add_argument("--utilisation", type=float, default=0.6, help="the share of a core planned busy (--plan)")
    parser.add_argument("--analysis-event-cpu", type=float, help="an analysed event's CPU seconds, for a --plan "
                        "whose run finished no analysis")
    parser.add_argument("--live", type=int, nargs="+", default=[1000, 10000, 100000], help="live games (--plan)")
    parser.add_argument("--game", type=float, nargs=2, metavar=("EVENTS", "MOVES"), help="a finished game's events "
                        "and moves, for a --plan whose run finished no game")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a TERM stops the stack and servers it started
    if args.plan:
        print(json.dumps(plan(json.loads(args.plan.read_text()), args.live, args.game_minutes,
                              args.cores, args.utilisation, args.db_cores, args.analysis_event_cpu,
                              tuple(args.game) if args.game else None), indent=1))
        return
    started = datetime.now()
    load0 = os.getloadavg()
    if args.admin_url:
        raw = measure(args, args.admin_url, None)
    else:
        with own_cluster() as (admin_url, postmaster):
            raw = measure(args, admin_url, postmaster)
    report = {
        "date": started.isoformat(timespec="minutes"), "command": " ".join(["bench/capacity.py", *sys.argv[1:]]),
        "args": vars(args) | {"json": None}, "loadavg_start": load0, "loadavg_end": os.getloadavg(),
        "costs": costs(raw, args.web), "raw": raw,
    }
    print(json.dumps(report["costs"], indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
