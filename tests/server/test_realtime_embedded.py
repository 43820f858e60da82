"""The live stream under `make run`'s own settings: SQLite, the in-memory channel layer, and the Celery worker
in a process of its own, whose moves the in-memory layer cannot carry. The web process's seq poll (every 50 ms
while a socket is open, games/realtime/hub.py) brings them to the sockets at once.
"""

from __future__ import annotations

import statistics
import time
from datetime import datetime

import pytest

from bench.live.api_client import client
from bench.live.embedded import embedded_server
from bench.live.processes import LINUX
from tests.server.sockets import Socket

pytestmark = pytest.mark.skipif(not LINUX, reason="the live server helpers read /proc")


def test_under_make_run_a_bots_moves_from_the_worker_reach_the_sockets_at_once() -> None:
    with embedded_server() as server:
        ann = client(server, "ann")
        game = ann.post("/games", json={"map": "usa", "players": 2}).json()["id"]
        token = ann.headers["Authorization"].split()[1]
        ws = f"ws://127.0.0.1:{server.port}/ws/games/{game}/"
        player, spectator = Socket.open(f"{ws}?token={token}", "ann"), Socket.open(ws, "anonymous spectator")
        assert ann.post(f"/games/{game}/start", json={"fill_with_bots": "random"}).status_code == 200
        delays = []
        while len(delays) < 10:  # ann draws from the deck on her turns; the bot answers through the worker
            message = player.next(lambda m: m["type"] == "events", 20)
            arrived = time.time()
            delays += [arrived - datetime.fromisoformat(e["at"]).timestamp() for e in message["events"] if e["seat"] == 1]
            state = ann.get(f"/games/{game}/state").json()
            view = state["view"]
            if view["phase"] == "setup_tickets" and 0 in view["deciding_seats"]:
                move = {"type": "keep_tickets", "tickets": view["offered_tickets"]}
            elif view["deciding_seats"] == [0]:
                move = {"type": "draw_card", "source": "deck"}
            else:
                continue
            player.send({"type": "move", "expected_seq": state["seq"], "move": move})
        spectator.reach(player.seq)
        assert [e["seq"] for e in spectator.events()] == [e["seq"] for e in player.events()]
        player.close()
        spectator.close()
    # the bot's events reached the socket within a poll or two of their commit (the machine may be busy)
    assert statistics.median(delays) < 0.25 and max(delays) < 1.5, delays
