"""The HTTP API under load: N concurrent clients play random games against a real ASGI server on PostgreSQL.

    .venv/bin/python bench/api.py [--clients 1 8 32] [--seconds 20] [--workers 3] [--json PATH]
    .venv/bin/python bench/api.py --layouts plain partitioned [--rounds 2] [--clients 8] [--seconds 15]

For each N: a fresh database, uvicorn with `--workers` processes, and N client threads, each playing its own
two-seat game (both seats, through `/legal-moves` and `/moves`, starting a new game when one ends). Prints
moves/s and p50/p99 latency of `POST /moves`, the web processes' CPU seconds per move (utime + stime of the
uvicorn supervisor and its workers from /proc, over the timed window, divided by the moves: a move's two
requests), then, in the same run, the same event rows appended directly with psycopg (the server's statement
shape: per move one transaction of the conditional `UPDATE games_game SET seq, head_hash ... WHERE seq = expected`
and one multi-row INSERT of the move's events, N threads, as many rows per move as the HTTP moves appended) as a
ratio, and the time to rebuild a game's state from its snapshot and the events after it with the in-process
cache cleared.

`--layouts` runs the same load on each layout of the event store, in the same run (docs/PERFORMANCE.md, "The
partitioned event store"): `partitioned` is the schema of the latest migration (events and snapshots keyed by
(game, seq), hash-partitioned by game, migration 0016), `plain` the schema before it (migrated to the end, then
back to 0015: plain tables with a bigint id, the unique (game, seq) and the game's own index), with the same code.
`--rounds R` repeats each pair R times, the order alternating (plain first, then partitioned first...), and the
summary gives each layout's median figures and partitioned / plain.

The bench counts its own errors: any HTTP response outside 2xx (a `409 stale_seq` on `POST /moves` is counted
apart as `stale`, not as an error), a client that failed or never got into a game, and every raw insert that
failed. A run with any error says so and exits 1. `--json PATH` writes a list of one object per client count.
Needs PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/ttr_bench).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psycopg  # noqa: E402

from ttr_server import local_secrets  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/ttr_bench"
PORT = 8765


LAYOUTS = {"partitioned": None, "plain": "0015_limit_hits"}  # the games app's migration each layout ends at


def recreate_database(url: str, layout: str = "partitioned") -> None:
    name = urlparse(url).path.lstrip("/")
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    env = server_env(url)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    if (target := LAYOUTS[layout]) is not None:  # back to the layout before 0016, through its reverse migration
        migrate = [sys.executable, "manage.py", "migrate", "games", target, "--noinput", "-v", "0"]
        subprocess.run(migrate, cwd=ROOT, env=env, check=True)
    with psycopg.connect(url) as conn:  # the layout the run measures, as the database has it
        partitioned = conn.execute("SELECT count(*) FROM pg_partitioned_table WHERE partrelid = 'games_event'::regclass")
        if bool(partitioned.fetchone()[0]) != (layout == "partitioned"):  # type: ignore[index]
            raise RuntimeError(f"the database is not of the {layout} layout")


def server_env(url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=url,
        DEBUG="0",
        DB_CONN_MAX_AGE="60",
        AUTH_THROTTLE_RATE="100000/min",
        LOG_LEVEL="WARNING",
        TTR_VAR_DIR=str(ROOT / "var" / "bench"),
    )
    env.pop("REDIS_URL", None)  # the HTTP path under test needs no channel layer fan-out yet
    local_secrets.ensure(local_secrets.default_directory(env))  # a production process needs secrets of its own
    return env


def start_server(url: str, workers: int) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "ttr_server.asgi:application",
            "--port",
            str(PORT),
            "--workers",
            str(workers),
            "--lifespan",
            "off",
            "--no-access-log",
            "--log-level",
            "warning",
            # uvicorn's supervisor restarts a worker that misses a 5 s health check: on a loaded machine, mid-run
            "--timeout-worker-healthcheck",
            "60",
        ],
        cwd=ROOT,
        env=server_env(url),
    )
    for _ in range(100):
        try:
            httpx.get(f"http://127.0.0.1:{PORT}/api/games", timeout=1)
            return server
        except httpx.HTTPError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("the server did not start")


class Client(threading.Thread):
    """Plays two-seat games for both seats until told to stop, timing each move."""

    def __init__(self, number: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.number = number
        self.stop = stop
        self.latencies: list[float] = []
        self.events_per_move: list[int] = []  # rows each accepted move appended: the raw baseline's batch sizes
        self.errors = 0
        self.stale = 0  # 409 stale_seq: expected under contention, not an error (cannot happen with one client a game)
        self.failure = ""
        self.ready = threading.Event()  # registered and in a game: password hashing is not what we measure
        self.rng = random.Random(number)

    def run(self) -> None:
        base = f"http://127.0.0.1:{PORT}/api"
        try:
            with httpx.Client(base_url=base, timeout=30) as http:
                tokens = [self._register(http, f"b{self.number}s{seat}{time.time_ns()}") for seat in range(2)]
                while not self.stop.is_set():
                    self._play(http, tokens)
        except Exception as exc:  # counted, not lost with the thread
            self.errors += 1
            try:
                where = f" on {exc.request.method} {exc.request.url.path}"  # type: ignore[attr-defined]
            except (AttributeError, RuntimeError):
                where = ""
            self.failure = f"{type(exc).__name__}{where}: {exc}"
            self.ready.set()

    def _checked(self, r: httpx.Response) -> httpx.Response:
        if not r.is_success:
            self.errors += 1
            r.raise_for_status()
        return r

    def _register(self, http: httpx.Client, name: str) -> str:
        # Untimed setup: under load a worker hashes the 2N passwords one after another, so it may take a while.
        r = self._checked(http.post("/auth/register", json={"username": name, "password": "bench-password-1"}, timeout=300))
        return str(r.json()["token"])

    def _play(self, http: httpx.Client, tokens: list[str]) -> None:
        auth = [{"Authorization": f"Token {t}"} for t in tokens]
        game = self._checked(http.post("/games", json={"map": "europe", "players": 2, "ranked": False}, headers=auth[0]))
        gid = game.json()["id"]
        self._checked(http.post(f"/games/{gid}/join", json={"seat": 1}, headers=auth[1]))
        self._checked(http.post(f"/games/{gid}/start", json={}, headers=auth[0]))
        self.ready.set()
        while not self.stop.is_set():
            moved = False
            for seat in range(2):
                legal = self._checked(http.get(f"/games/{gid}/legal-moves", headers=auth[seat])).json()
                if not legal["moves"]:
                    continue
                move = self.rng.choice(legal["moves"])
                started = time.perf_counter()
                r = http.post(f"/games/{gid}/moves", json={"expected_seq": legal["seq"], "move": move}, headers=auth[seat])
                self.latencies.append(time.perf_counter() - started)
                if r.status_code == 201:
                    self.events_per_move.append(len(r.json()["events"]))
                elif r.status_code == 409 and r.json().get("code") == "stale_seq":
                    self.stale += 1
                else:
                    self.errors += 1
                    if not self.failure:
                        self.failure = f"POST /moves {r.status_code}: {r.text[:200]}"
                moved = True
                break
            if not moved:
                return  # the game is over


def process_tree(root: int) -> list[int]:
    """`root` and all its descendants (uvicorn's supervisor, its workers and their helpers), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int(_stat_fields(int(entry.name))[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def _stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat after the command name: [state, ppid, ...]; utime and stime are [11] and [12]."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """utime + stime of each process still alive, in seconds."""
    tick = os.sysconf("SC_CLK_TCK")
    times = {}
    for pid in pids:
        try:
            fields = _stat_fields(pid)
        except OSError:
            continue
        times[pid] = (int(fields[11]) + int(fields[12])) / tick
    return times


def run_http(clients: int, seconds: float, server_pid: int | None = None) -> dict[str, float]:
    stop = threading.Event()
    threads = [Client(i, stop) for i in range(clients)]
    for t in threads:
        t.start()
    not_ready = sum(not t.ready.wait(timeout=300) for t in threads)
    for t in threads:
        t.latencies.clear()
        t.events_per_move.clear()
        t.stale = 0
    pids = process_tree(server_pid) if server_pid else []
    cpu_before = cpu_seconds(pids)
    started = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    elapsed = time.perf_counter() - started
    cpu_after = cpu_seconds(pids)  # the clients' last in-flight requests finish after this: at most one each
    for t in threads:
        t.join(timeout=30)
    latencies = sorted(x for t in threads for x in t.latencies)
    moves = len(latencies)
    web_cpu = sum(cpu_after[pid] - cpu_before[pid] for pid in cpu_after if pid in cpu_before)
    for t in threads:
        if t.failure:
            print(f"client {t.number}: {t.failure}", file=sys.stderr, flush=True)
    return {
        "clients": clients,
        "moves": moves,
        "moves_per_second": round(moves / elapsed, 1),
        "p50_ms": round(latencies[moves // 2] * 1e3, 1) if latencies else 0,
        "p99_ms": round(latencies[int(moves * 0.99)] * 1e3, 1) if latencies else 0,
        "errors": sum(t.errors for t in threads) + not_ready + sum(t.is_alive() for t in threads),
        "stale": sum(t.stale for t in threads),
        "web_processes": len(cpu_after),
        "web_cpu_seconds": round(web_cpu, 2),
        "web_cpu_seconds_per_move": round(web_cpu / moves, 5) if moves else 0,
        "events_per_move": [n for t in threads for n in t.events_per_move],  # popped before reporting
    }


RAW_COLUMNS = "game_id, seq, type, seat, data, commitment, salt, created_at, prev_hash, hash, reason"


def run_raw(url: str, clients: int, moves: int, sizes: list[int]) -> tuple[float, int]:
    """The same appends straight through psycopg, as the server makes them (games/store/event_log.py `append`): per move,
    one transaction of the conditional UPDATE that moves the game's seq and head hash on (only if seq is still
    the expected one) and one multi-row INSERT of that move's event rows, `sizes` giving the rows per move as the
    HTTP run appended them. The rows are copies of the run's own events (hashes not recomputed: the database's
    share only, the ceiling). Returns moves per second and the number of failed appends."""
    sizes = [n for n in sizes if n > 0] or [1]
    plan = [sizes[i % len(sizes)] for i in range(moves)]
    with psycopg.connect(url) as conn:
        rows = conn.execute(f"SELECT {RAW_COLUMNS} FROM games_event ORDER BY game_id, seq LIMIT %s", (sum(plan),)).fetchall()
        games = conn.execute("SELECT id FROM games_game ORDER BY id LIMIT %s", (clients,)).fetchall()
    if len(games) < clients:  # threads sharing a game would refuse each other's appends
        print(f"raw: only {len(games)} games for {clients} threads (clients that never got into a game)", file=sys.stderr)
        return 0.0, clients - len(games)
    batches, at = [], 0
    for n in plan:
        if at + n > len(rows):
            break
        batches.append(rows[at : at + n])
        at += n
    per_client = max(1, len(batches) // clients)
    offset = 10_000_000
    placeholders = "(" + ", ".join(["%s"] * len(RAW_COLUMNS.split(","))) + ")"
    errors = [0] * clients

    def work(k: int) -> None:
        game_id = games[k % len(games)][0]
        with psycopg.connect(url) as conn:
            seq = conn.execute("SELECT seq FROM games_game WHERE id = %s", (game_id,)).fetchone()[0]
            seq = max(seq, offset * (k + 1))
            conn.execute("UPDATE games_game SET seq = %s WHERE id = %s", (seq, game_id))
            conn.commit()
            for batch in batches[k * per_client : (k + 1) * per_client]:
                try:
                    with conn.transaction():
                        updated = conn.execute(
                            "UPDATE games_game SET seq = %s, head_hash = %s WHERE id = %s AND seq = %s",
                            (seq + len(batch), batch[-1][9], game_id, seq),
                        ).rowcount
                        if updated != 1:
                            raise RuntimeError(f"the game's seq moved from {seq}")
                        conn.execute(
                            f"INSERT INTO games_event ({RAW_COLUMNS}) VALUES " + ", ".join([placeholders] * len(batch)),
                            [
                                value
                                for i, row in enumerate(batch)
                                for value in (game_id, seq + 1 + i, *row[2:4], psycopg.types.json.Jsonb(row[4]), *row[5:])
                            ],
                        )
                except Exception as exc:
                    if not errors[k]:
                        print(f"raw append failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                    errors[k] += 1
                    continue
                seq += len(batch)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    failed = sum(errors)
    return (per_client * clients - failed) / elapsed, failed


def state_rebuild_ms(url: str, samples: int = 200) -> dict[str, float]:
    """Rebuild states at random seqs of the longest games, with the in-process cache cleared each time."""
    os.environ.update(server_env(url))
    os.environ["DJANGO_SETTINGS_MODULE"] = "ttr_server.settings"
    import django

    django.setup()
    from games.store import states
    from games.store.models import Game

    games = list(Game.objects.filter(seq__gt=0).order_by("-seq").values_list("id", "seq")[:20])
    if not games:  # no move was played (the clients' failures are reported apart)
        return {}
    rng = random.Random(3)
    times = []
    for _ in range(samples):
        game_id, head = rng.choice(games)
        states.forget_all()
        started = time.perf_counter()
        states.state_at(game_id, rng.randint(1, head))
        times.append(time.perf_counter() - started)
    times.sort()
    from django.db import connections

    connections.close_all()  # the next run drops and recreates this database
    return {
        "rebuild_mean_ms": round(statistics.mean(times) * 1e3, 2),
        "rebuild_p99_ms": round(times[int(len(times) * 0.99)] * 1e3, 2),
        "rebuild_max_seq": max(seq for _, seq in games),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--json", metavar="PATH", help="write the runs there: a list of one object per run")
    parser.add_argument(
        "--layouts", nargs="+", choices=sorted(LAYOUTS), default=["partitioned"],
        help="the event store's layouts to run the same load on (both: before and after migration 0016)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="with several layouts: runs of each, the order alternating")
    args = parser.parse_args()
    url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
    results = []
    for clients in args.clients:
        for round_ in range(args.rounds):
            order = args.layouts if round_ % 2 == 0 else list(reversed(args.layouts))
            for layout in order:
                result = {"layout": layout, "round": round_ + 1, **one_run(url, layout, clients, args)}
                results.append(result)
                print("  ".join(f"{k}={v}" for k, v in result.items()), flush=True)
        if len(args.layouts) > 1:
            print(compare(results, clients, args.layouts), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    errors = sum(r["errors"] for r in results)
    if errors:
        print(f"FAILED: {errors} errors (see above and stderr); these figures are not a clean run", flush=True)
        return 1
    return 0


def compare(results: list[dict[str, Any]], clients: int, layouts: list[str]) -> str:
    """Each layout's median figures over its rounds at `clients`, and each one's over the first layout's."""
    figures = ("moves_per_second", "p50_ms", "p99_ms", "web_cpu_seconds_per_move", "raw_psycopg_moves_per_second",
               "rebuild_mean_ms")
    medians = {
        layout: {
            name: statistics.median(r[name] for r in results if r["layout"] == layout and r["clients"] == clients)
            for name in figures
            if all(name in r for r in results if r["layout"] == layout and r["clients"] == clients)
        }
        for layout in layouts
    }
    base = layouts[0]
    lines = [f"layouts at clients={clients} (median of each layout's rounds):"]
    for layout in layouts:
        lines.append(f"  {layout}: " + "  ".join(f"{k}={v}" for k, v in medians[layout].items()))
    for layout in layouts[1:]:
        ratios = {k: round(v / medians[base][k], 3) for k, v in medians[layout].items() if medians[base].get(k)}
        lines.append(f"  {layout} / {base}: " + "  ".join(f"{k}={v}" for k, v in ratios.items()))
    return "\n".join(lines)


def one_run(url: str, layout: str, clients: int, args: argparse.Namespace) -> dict[str, Any]:
    """A fresh database of `layout`, the HTTP load, the state rebuilds (at the last client count) and the raw appends."""
    recreate_database(url, layout)
    server = start_server(url, args.workers)
    try:
        result = run_http(clients, args.seconds, server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    sizes = result.pop("events_per_move")
    if clients == args.clients[-1]:
        result.update(state_rebuild_ms(url))  # before the raw run adds its rows
    raw, raw_errors = run_raw(url, clients, max(200, result["moves"]), sizes)
    result["raw_psycopg_moves_per_second"] = round(raw, 1)
    result["raw_errors"] = raw_errors
    result["errors"] += raw_errors
    result["http_to_raw_ratio"] = round(result["moves_per_second"] / raw, 3) if raw else 0
    result["mean_events_per_move"] = round(sum(sizes) / len(sizes), 2) if sizes else 0
    return result


if __name__ == "__main__":
    sys.exit(main())
