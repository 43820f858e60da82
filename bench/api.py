"""The HTTP API under load: N concurrent clients play random games against a real ASGI server on PostgreSQL.

    .venv/bin/python bench/api.py [--clients 1 8 32] [--seconds 20] [--workers 3] [--json]

For each N: a fresh database, uvicorn with `--workers` processes, and N client threads, each playing its own
two-seat game (both seats, through `/legal-moves` and `/moves`, starting a new game when one ends). Prints
moves/s and p50/p99 latency of `POST /moves`, then, in the same run, the same event rows appended directly
with psycopg (same transaction shape: conditional seq update + insert, N threads) as a ratio, and the time to
rebuild a game's state from its snapshot and the events after it with the in-process cache cleared.
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
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psycopg  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/ttr_bench"
PORT = 8765


def recreate_database(url: str) -> None:
    name = urlparse(url).path.lstrip("/")
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    env = server_env(url)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)


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
        self.errors = 0
        self.ready = threading.Event()  # registered and in a game: password hashing is not what we measure
        self.rng = random.Random(number)

    def run(self) -> None:
        base = f"http://127.0.0.1:{PORT}/api"
        with httpx.Client(base_url=base, timeout=30) as http:
            tokens = [self._register(http, f"b{self.number}s{seat}{time.time_ns()}") for seat in range(2)]
            while not self.stop.is_set():
                self._play(http, tokens)

    def _register(self, http: httpx.Client, name: str) -> str:
        r = http.post("/auth/register", json={"username": name, "password": "bench-password-1"})
        r.raise_for_status()
        return str(r.json()["token"])

    def _play(self, http: httpx.Client, tokens: list[str]) -> None:
        auth = [{"Authorization": f"Token {t}"} for t in tokens]
        game = http.post("/games", json={"map": "europe", "players": 2, "ranked": False}, headers=auth[0]).json()
        gid = game["id"]
        http.post(f"/games/{gid}/join", json={"seat": 1}, headers=auth[1]).raise_for_status()
        http.post(f"/games/{gid}/start", json={}, headers=auth[0]).raise_for_status()
        self.ready.set()
        while not self.stop.is_set():
            moved = False
            for seat in range(2):
                legal = http.get(f"/games/{gid}/legal-moves", headers=auth[seat]).json()
                if not legal["moves"]:
                    continue
                move = self.rng.choice(legal["moves"])
                started = time.perf_counter()
                r = http.post(f"/games/{gid}/moves", json={"expected_seq": legal["seq"], "move": move}, headers=auth[seat])
                self.latencies.append(time.perf_counter() - started)
                if r.status_code != 201:
                    self.errors += 1
                moved = True
                break
            if not moved:
                return  # the game is over


def run_http(clients: int, seconds: float) -> dict[str, float]:
    stop = threading.Event()
    threads = [Client(i, stop) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.ready.wait(timeout=300)
    for t in threads:
        t.latencies.clear()
        t.errors = 0
    started = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    elapsed = time.perf_counter() - started
    for t in threads:
        t.join(timeout=30)
    latencies = sorted(x for t in threads for x in t.latencies)
    return {
        "clients": clients,
        "moves": len(latencies),
        "moves_per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": round(latencies[len(latencies) // 2] * 1e3, 1) if latencies else 0,
        "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1e3, 1) if latencies else 0,
        "errors": sum(t.errors for t in threads),
    }


def run_raw(url: str, clients: int, moves: int) -> float:
    """The same appends straight through psycopg: per move, one transaction that moves the game's seq on
    (only if it is still the expected one) and inserts that move's event rows. Returns moves per second."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT game_id, seq, type, seat, data, commitment, salt, prev_hash, hash, created_at FROM games_event "
            "ORDER BY game_id, seq LIMIT %s",
            (moves * 3,),
        ).fetchall()
        games = conn.execute("SELECT id FROM games_game ORDER BY id LIMIT %s", (clients,)).fetchall()
    batches = [rows[i : i + 3] for i in range(0, len(rows), 3)][:moves]
    per_client = max(1, len(batches) // clients)
    offset = 10_000_000

    def work(k: int) -> None:
        game_id = games[k % len(games)][0]
        with psycopg.connect(url) as conn:
            seq = conn.execute("SELECT seq FROM games_game WHERE id = %s", (game_id,)).fetchone()[0]
            seq = max(seq, offset * (k + 1))
            conn.execute("UPDATE games_game SET seq = %s WHERE id = %s", (seq, game_id))
            conn.commit()
            for batch in batches[k * per_client : (k + 1) * per_client]:
                with conn.transaction():
                    updated = conn.execute(
                        "UPDATE games_game SET seq = %s WHERE id = %s AND seq = %s",
                        (seq + len(batch), game_id, seq),
                    ).rowcount
                    assert updated == 1
                    with conn.cursor() as cur:
                        cur.executemany(
                            "INSERT INTO games_event (game_id, seq, type, seat, data, commitment, salt, prev_hash,"
                            " hash, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                            [
                                (game_id, seq + 1 + i, *row[2:4], psycopg.types.json.Jsonb(row[4]), *row[5:])
                                for i, row in enumerate(batch)
                            ],
                        )
                seq += len(batch)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return per_client * clients / (time.perf_counter() - started)


def state_rebuild_ms(url: str, samples: int = 200) -> dict[str, float]:
    """Rebuild states at random seqs of the longest games, with the in-process cache cleared each time."""
    os.environ.update(server_env(url))
    os.environ["DJANGO_SETTINGS_MODULE"] = "ttr_server.settings"
    import django

    django.setup()
    from games import states
    from games.models import Game

    games = list(Game.objects.order_by("-seq").values_list("id", "seq")[:20])
    rng = random.Random(3)
    times = []
    for _ in range(samples):
        game_id, head = rng.choice(games)
        states.forget_all()
        started = time.perf_counter()
        states.state_at(game_id, rng.randint(1, head))
        times.append(time.perf_counter() - started)
    times.sort()
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
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
    results = []
    rebuild: dict[str, float] = {}
    for clients in args.clients:
        recreate_database(url)
        server = start_server(url, args.workers)
        try:
            result = run_http(clients, args.seconds)
        finally:
            server.terminate()
            server.wait(timeout=30)
        if clients == args.clients[-1]:
            rebuild = state_rebuild_ms(url)  # before the raw run adds its rows
        raw = run_raw(url, clients, max(200, result["moves"]))
        result["raw_psycopg_moves_per_second"] = round(raw, 1)
        result["http_to_raw_ratio"] = round(result["moves_per_second"] / raw, 3) if raw else 0
        results.append(result)
        if not args.json:
            print("  ".join(f"{k}={v}" for k, v in result.items()), flush=True)
    if args.json:
        print(json.dumps({"runs": results, **rebuild}))
    else:
        print("  ".join(f"{k}={v}" for k, v in rebuild.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
