"""Hidden information over the live stream (docs/RULES.md X-SEC-1): whole games watched by every seat and a spectator.

Every message every socket received while the game ran is checked as tests/server/test_leaks.py checks the HTTP
answers: no other seat's hand, tickets or any pile order, a hidden outcome only with its commitment, the mover's
own draws visible to the mover alone. What crossed Redis meanwhile (every command the web processes and this
one sent, read with MONITOR) holds no game data at all: only (game, seq) notices and presence.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis
from django.conf import settings

from bench.random_moves import random_engine_move
from games.play import bot_turns
from games.store import states
from games.store.models import Game
from tests.server import sockets
from tests.server.helpers import register, seated_game, url
from tests.server.sockets import Socket, Web, table_sockets
from tests.server.test_leaks import Watcher
from tests.server.worker import needs_real_services

pytestmark = [pytest.mark.django_db(transaction=True), needs_real_services()]
webs, web = sockets.webs, sockets.web



class RedisMonitor:
    """Everything any client sends to Redis while it runs (MONITOR), as text."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.connection = redis.Redis.from_url(settings.REDIS_URL)
        self.monitor = self.connection.monitor().__enter__()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.running = True
        self.thread.start()

    def _read(self) -> None:
        try:
            for command in self.monitor.listen():
                self.lines.append(str(command["command"]))
                if not self.running:
                    return
        except Exception:  # the connection closed under us: done
            return

    def wait(self, until: Callable[[list[str]], bool], seconds: float = 180) -> None:
        """Until `until` holds for what was seen (or `seconds` passed): the notices of the last moves may still be
        on their way (they are sent from a thread of their own, after the move's response; 30 s was too short
        once, with the load at 12 on 2 cores)."""
        deadline = time.monotonic() + seconds
        while not until(list(self.lines)) and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self) -> list[str]:
        self.running = False
        self.connection.ping()  # wakes the reader
        self.thread.join(5)
        return self.lines


def play_watched(table: Any, viewers: list[Socket], rng: random.Random) -> int:
    """Random moves through the services until the game ends; the number of moves. The sockets catch up now
    and then. (A message projected after the end holds the game_ended event: a pull reads up to the current seq.)"""
    moves = 0
    while True:
        game = Game.objects.get(pk=table.game_id)
        if game.status == Game.Status.FINISHED:
            return moves
        seat, move = random_engine_move(states.state_at(game.pk, game.seq), rng)
        played = bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=move)
        moves += 1
        if moves % 10 == 0:
            for socket in viewers:
                socket.reach(played.seq)
        assert moves < 3000


@pytest.mark.parametrize(("map_name", "players", "seed"), [("europe", 3, 21), ("usa", 2, 22)])
def test_no_socket_ever_receives_a_secret_and_redis_carries_no_game_data(
    webs: tuple[Web, Web], map_name: str, players: int, seed: int
) -> None:
    table = seated_game(f"rl-{map_name}-", map_name, players, start=False)
    spectator = register(f"rl-{map_name}-spectator")
    monitor = RedisMonitor()
    viewers = table_sockets(webs[seed % 2], table, spectator)  # before the start: the sockets see every event
    assert table.clients[0].post(url(table.game_id, "start"), {}, format="json").status_code == 200
    moves = play_watched(table, viewers, random.Random(seed))
    final = Game.objects.get(pk=table.game_id).seq
    # the sockets stay open until every move's notice crossed Redis: a group with no listener left gets no message
    monitor.wait(lambda lines: sum(table.game_id in line and "game.moved" in line for line in lines) >= moves)
    for socket in viewers:
        socket.reach(final)
        socket.close()
    crossed = monitor.stop()
    watcher = Watcher(table, spectator)
    for viewer, socket in [*enumerate(viewers[:-1]), (None, viewers[-1])]:
        watcher.no_secrets(viewer, socket.hello, "hello")
        for message in socket.received:
            events = message.get("events", [])
            if any(e["type"] in ("game_ended", "game_scored") for e in events):
                continue  # projected once the game was over: everything is public then
            watcher.no_secrets(viewer, message, message["type"])
            watcher.events(viewer, events, f"socket of {socket.name}")
        assert [e["seq"] for e in socket.events()] == list(range(socket.hello["seq"] + 1, socket.seq + 1))
    assert {"deck_shuffled", "tickets_shuffled", "cards_dealt", "tickets_dealt", "card_drawn", "tickets_kept"} <= (
        watcher.redacted_seen
    )
    assert watcher.checked > 2 * moves
    # Redis carried this game's notices (at least one per move) and nothing of the game: no event, card or ticket
    ours = [line for line in crossed if table.game_id in line]  # (other test runs may share this Redis)
    assert sum("game.moved" in line for line in ours) >= moves, (moves, ours[:10])
    secrets = [*watcher.all_tickets, "locomotive", "card_drawn", "cards_dealt", "tickets_dealt", "deck_shuffled"]
    for line in ours:
        assert not any(word in line for word in secrets), line[:500]
