"""The live stream under load: `python bench/realtime.py [--games 100] [--active N] [--seconds 20] [--rate 10,25]`.

A production-like stack (bench/live/production.py `production_stack`: a fresh PostgreSQL database, Redis, one uvicorn
web process) serves `--games` 5-player Europe games, each watched by its 5 players' sockets (500 sockets by
default). This process drives `--active` of them (all by default): it picks a random legal move for the deciding
seat (from the log, in this process, so the server does no extra work for it) and submits it over that seat's
socket, or over HTTP, then waits until the game's 5 sockets have the move's events. Phases:

- paced, over sockets, one phase per `--rate` (moves a second in all): each game moves every active/rate
  seconds, the games staggered so that the moves arrive as a steady stream (the latency a busy site would see);
- flat out over sockets, then flat out over HTTP: every game moves as soon as its sockets have its last move,
  so about `--active` moves wait at any moment and the latency is mostly that queue (Little's law); these two
  phases give the throughput and the CPU a move costs over each path.

Figures: the time from a move's commit (its last event's timestamp, taken in the transaction just before the
commit) to the last of the game's sockets receiving it (p50/p99), messages and moves per second, and the web
process's CPU per move (from /proc: user + system time over the phase, divided by the moves).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PLAYERS = 5


@dataclass
class Table:
    game_id: str
    tokens: list[str]
    seen: list[int] = field(default_factory=lambda: [0] * PLAYERS)  # the last seq each socket has
    arrived: dict[int, list[float]] = field(default_factory=dict)  # seq -> arrival times, one per socket
    changed: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Phase:
    name: str
    moves: int = 0
    messages: int = 0
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    cpu: float = 0.0

    def report(self) -> dict[str, Any]:
        ms = sorted(x * 1000 for x in self.latencies)
        pick = (lambda q: round(ms[min(len(ms) - 1, int(q * len(ms)))], 1)) if ms else (lambda q: None)
        return {
            "phase": self.name, "moves": self.moves, "moves_per_s": round(self.moves / self.seconds, 1),
            "messages_per_s": round(self.messages / self.seconds, 1), "latency_ms_p50": pick(0.5),
            "latency_ms_p99": pick(0.99), "latency_ms_max": round(ms[-1], 1) if ms else None,
            "web_cpu_ms_per_move": round(1000 * self.cpu / max(1, self.moves), 2),
            "web_cpu_share": round(self.cpu / self.seconds, 2),
        }


def setup_games(count: int) -> list[Table]:
    """Users with tokens and started 5-player games, written straight to the stack's database."""
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from games.play import services

    tables = []
    for g in range(count):
        users = [User.objects.create(username=f"b{g}-{s}") for s in range(PLAYERS)]
        game = services.game_create(users[0], map_name="europe", players=PLAYERS)
        for seat, user in enumerate(users[1:], start=1):
            services.game_join(game.pk, user=user, seat=seat)
        services.game_start(game.pk, user=users[0])
        tables.append(Table(str(game.pk), [Token.objects.create(user=u).key for u in users]))
    return tables


def next_move(game_id: str, rng: random.Random) -> tuple[int, int, dict[str, Any]] | None:
    """(seq, seat, move): a random legal move of a seat that decides now (read from the log in this process);
    None when the game is over."""
    from games.engine import legal_moves
    from games.engine.codec import move_to_dict
    from games.store import states
    from games.store.models import Game

    seq = Game.objects.values_list("seq", flat=True).get(pk=game_id)
    state = states.state_at(game_id, seq)
    if not state.deciders():
        return None
    seat = state.deciders()[0]
    return seq, seat, move_to_dict(rng.choice(legal_moves(state, seat)))


class Bench:
    def __init__(self, port: int, tables: list[Table]) -> None:
        self.port, self.tables = port, tables
        self.phase = Phase("setup")
        self.sockets: dict[tuple[str, int], Any] = {}
        self.active = len(tables)

    async def listen(self, table: Table, seat: int) -> None:
        from websockets.asyncio.client import connect

        url = f"ws://127.0.0.1:{self.port}/ws/games/{table.game_id}/?token={table.tokens[seat]}"
        async with connect(url, max_size=2**22, open_timeout=60) as socket:
            self.sockets[table.game_id, seat] = socket
            async for raw in socket:
                now = time.time()
                message = json.loads(raw)
                self.phase.messages += 1
                if message["type"] == "hello":
                    table.seen[seat] = message["seq"]
                elif message["type"] == "events" and message["events"]:
                    table.seen[seat] = message["events"][-1]["seq"]
                    last = message["events"][-1]
                    table.arrived.setdefault(last["seq"], []).append(now - datetime.fromisoformat(last["at"]).timestamp())
                    table.changed.set()

    async def reached(self, table: Table, seq: int) -> None:
        while min(table.seen) < seq:
            table.changed.clear()
            await asyncio.wait_for(table.changed.wait(), 30)

    async def drive(self, table: Table, how: str, until: float, pace: float, http: Any, offset: float) -> None:
        """Move `table`'s game until `until`: one move every `pace` seconds (0: as soon as the last one is seen
        by all its sockets), the first after `offset` seconds (the games' paces are staggered: together they
        make a steady stream of moves, not a burst of one move per game every `pace` seconds)."""
        rng = random.Random(table.game_id)
        await asyncio.sleep(offset)
        while time.monotonic() < until:
            started = time.monotonic()
            decision = await asyncio.to_thread(next_move, table.game_id, rng)
            if decision is None:
                return  # the game is over (a long flat-out phase with few games)
            seq, seat, move = decision
            if how == "socket":
                await self.sockets[table.game_id, seat].send(json.dumps({"type": "move", "expected_seq": seq, "move": move}))
            else:
                answer = await http.post(
                    f"/api/games/{table.game_id}/moves", json={"expected_seq": seq, "move": move},
                    headers={"Authorization": f"Token {table.tokens[seat]}"},
                )
                assert answer.status_code == 201, answer.text
            await self.reached(table, seq + 1)
            new = max(s for s in table.arrived if s > seq)
            await self.reached(table, new)
            times = table.arrived.get(new, [])
            if len(times) == PLAYERS:
                self.phase.latencies.append(max(times))
            self.phase.moves += 1
            if pace:
                await asyncio.sleep(max(0.0, min(until, started + pace) - time.monotonic()))

    async def run_phase(self, name: str, how: str, seconds: float, pace: float, pids: list[int], http: Any) -> Phase:
        self.phase = Phase(name)
        cpu, started = cpu_seconds(pids), time.monotonic()
        until = started + seconds
        driven = self.tables[: self.active]
        await asyncio.gather(*(self.drive(t, how, until, pace, http, pace * i / len(driven)) for i, t in enumerate(driven)))
        self.phase.seconds = time.monotonic() - started
        self.phase.cpu = cpu_seconds(pids) - cpu
        return self.phase


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


async def main_async(port: int, tables: list[Table], pids: list[int], args: argparse.Namespace) -> list[dict[str, Any]]:
    import httpx

    bench = Bench(port, tables)
    bench.active = args.active or len(tables)
    listeners = []
    for start in range(0, len(tables), 10):  # 50 sockets at a time: a burst of 500 handshakes is not the subject
        listeners += [asyncio.create_task(bench.listen(t, s)) for t in tables[start : start + 10] for s in range(PLAYERS)]
        while len(bench.sockets) < len(listeners) and not any(task.done() for task in listeners):
            await asyncio.sleep(0.05)
    while len(bench.sockets) < len(listeners) or min(min(t.seen) for t in tables) == 0:
        failed = [task for task in listeners if task.done()]
        if failed:
            raise RuntimeError(f"{len(failed)} sockets failed to open") from failed[0].exception()
        await asyncio.sleep(0.1)
    print(f"{len(listeners)} sockets open", flush=True)
    await asyncio.sleep(1)  # the presence messages of 500 arrivals settle
    reports = []
    limits = httpx.Limits(max_connections=len(tables), keepalive_expiry=3)  # under uvicorn's 5 s keep-alive
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=60) as http:
        rates = [float(rate) for rate in args.rate.split(",")]
        phases = [(f"socket, {rate:g} moves/s", "socket", bench.active / rate) for rate in rates]
        phases += [("socket, flat out", "socket", 0), ("HTTP, flat out", "http", 0)]
        for name, how, each in phases:
            reports.append((await bench.run_phase(name, how, args.seconds, each, pids, http)).report())
            print(json.dumps(reports[-1]), flush=True)
    for task in listeners:
        task.cancel()
    return reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--active", type=int, default=0, help="games driven (default: all); the others only watch")
    parser.add_argument("--rate", default="10,25", help="moves a second in all, one paced phase per rate")
    args = parser.parse_args()
    from bench.live.processes import group_members
    from bench.live.production import production_stack

    with production_stack(redis_db=10, name=f"ttr_bench_rt_{os.getpid()}") as stack:
        os.environ.update(DATABASE_URL=stack.database_url, REDIS_URL=stack.redis_url, TTR_TASK_QUEUE=stack.queue)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ttr_server.settings")
        import django

        django.setup()
        tables = setup_games(args.games)
        pids = [p.pid for p in group_members(stack.process.pid)]
        print(f"{args.games} games x {PLAYERS} sockets on uvicorn pid {pids}", flush=True)
        try:
            asyncio.run(main_async(stack.port, tables, pids, args))
        except BaseException:
            print(stack.log(), file=sys.stderr)
            raise


if __name__ == "__main__":
    main()
