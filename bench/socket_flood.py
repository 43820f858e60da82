"""One socket floods the server with resyncs: `python bench/socket_flood.py [--resyncs 2000] [--events 400]`.

A production-like stack (bench/live/production.py `production_stack`: a fresh PostgreSQL database, Redis, one uvicorn
web process and a worker) holds a 4-player Europe game played by random moves (through the services, in this
process) to about `--events` events. One player's socket then sends `--resyncs` `{"type": "resync", "after": 0}`
as fast as it can while it reads whatever comes back, until the server closes it, every message has had its
answer, nothing came for 10 s or `--seconds` passed (then it goes away without a closing handshake, as a client
that vanishes does). Figures: the full-log answers received, the error answers, the bytes the server sent, how
the socket ended (its close code), the web process's CPU seconds over the flood (from /proc), and the log lines
of the web process that hold a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import secrets
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PLAYERS = 4


def setup_game(events: int) -> tuple[str, str]:
    """A started game played to at least `events` events (or its end), and its first player's token."""
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from bench.random_moves import random_engine_move
    from games.play import bot_turns, services
    from games.store import states
    from games.store.models import Game

    suffix = os.getpid()
    users = [User.objects.create(username=f"flood{suffix}-{s}") for s in range(PLAYERS)]
    game = services.game_create(users[0], map_name="europe", players=PLAYERS)
    for seat, user in enumerate(users[1:], start=1):
        services.game_join(game.pk, user=user, seat=seat)
    services.game_start(game.pk, user=users[0])
    rng = random.Random(7)
    while (game := Game.objects.get(pk=game.pk)).seq < events and game.status != Game.Status.FINISHED:
        seat, move = random_engine_move(states.state_at(game.pk, game.seq), rng)
        bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=move)
    return str(game.pk), Token.objects.create(user=users[0]).key


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


async def flood(url: str, resyncs: int, seconds: float) -> dict[str, Any]:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    counts: dict[str, Any] = {"full_log_answers": 0, "error_answers": 0, "other": 0, "bytes": 0, "close_code": None}
    async with connect(url, max_size=2**26, open_timeout=30, ping_interval=None) as socket:
        hello = json.loads(await socket.recv())
        assert hello["type"] == "hello", hello
        counts["seq"] = hello["seq"]
        message = json.dumps({"type": "resync", "after": 0})

        async def send_all() -> None:
            for _ in range(resyncs):
                await socket.send(message)

        sender = asyncio.create_task(send_all())
        deadline = time.monotonic() + seconds
        try:
            while counts["full_log_answers"] + counts["error_answers"] < resyncs and time.monotonic() < deadline:
                text = await asyncio.wait_for(socket.recv(), timeout=10)
                counts["bytes"] += len(text.encode())
                got = json.loads(text)
                if got["type"] == "events" and got.get("resync"):
                    counts["full_log_answers"] += 1
                elif got["type"] == "error":
                    counts["error_answers"] += 1
                else:
                    counts["other"] += 1
        except ConnectionClosed as closed:
            counts["close_code"] = closed.rcvd.code if closed.rcvd else None
        except TimeoutError:
            counts["close_code"] = "none: 10 s without a message"
        sender.cancel()
        if counts["close_code"] is None:
            counts["close_code"] = "none: the client went away"
            socket.transport.abort()  # gone without a goodbye, as the finding's client was
    return counts


def tracebacks(log: Path) -> list[str]:
    lines = log.read_text(errors="replace").splitlines()
    return [line[:200] for line in lines if "Traceback" in line or "Exception in ASGI" in line]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resyncs", type=int, default=2000)
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=120, help="the longest the client reads")
    args = parser.parse_args()
    from bench.live.processes import group_members
    from bench.live.production import production_stack

    # the stack runs as production does: secrets of its own
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    seed = base64.b64encode(secrets.token_bytes(32)).decode()
    key = {"id": "bench", "private_key": seed, "valid_from": "2020-01-01T00:00:00Z"}
    os.environ.setdefault("TTR_SIGNING_KEYS", json.dumps([key]))
    with production_stack(redis_db=14, name=f"ttr_bench_flood_{os.getpid()}") as stack:
        os.environ.update(DATABASE_URL=stack.database_url, REDIS_URL=stack.redis_url, TTR_TASK_QUEUE=stack.queue)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ttr_server.settings")
        import django

        django.setup()
        import games

        game_id, token = setup_game(args.events)
        pids = [p.pid for p in group_members(stack.process.pid)]
        print(f"code: {Path(games.__file__).parent.parent}; game {game_id}; uvicorn pid {pids}", flush=True)
        cpu, started = cpu_seconds(pids), time.monotonic()
        url = f"ws://127.0.0.1:{stack.port}/ws/games/{game_id}/?token={token}"
        counts = asyncio.run(flood(url, args.resyncs, args.seconds))
        time.sleep(3)  # the server notices the client gone
        counts.update(
            resyncs_sent=args.resyncs, seconds=round(time.monotonic() - started, 1),
            server_cpu_seconds=round(cpu_seconds(pids) - cpu, 2), megabytes=round(counts.pop("bytes") / 1e6, 1),
            tracebacks_logged=tracebacks(stack.var_dir / "web.log"),
        )
        print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    main()
