"""The hub's shared read of a game (games/realtime/hub.py): a move made through this web process primes it, so
the game's sockets here send the move's events without reading the database; an older move never overwrites
a newer read. (No database here: a read from it would fail the test.)"""

from __future__ import annotations

import asyncio
from typing import Any
from unittest.mock import patch

from channels.layers import InMemoryChannelLayer

from games.realtime.hub import Appended, Feed, Hub
from games.store.models import Event, Game
from games.store.notify import group_name
from tests.server.helpers import run_coroutine


def test_a_primed_read_serves_the_games_sockets_and_an_older_move_never_overwrites_it() -> None:
    hub = Hub()
    hub.feeds["g"] = Feed(game=Game(seq=5), after=0)
    game, rows = Game(seq=7, turn_seconds=60), [Event(seq=6), Event(seq=7)]
    hub.prime("g", Appended(game, rows, 5, "2026-11-24T10:00:00+00:00"))
    assert run_coroutine(hub.read("g", 5, 7)) == (game, rows, "2026-11-24T10:00:00+00:00")
    assert run_coroutine(hub.read("g", 6, 7)) == (game, rows[1:], "2026-11-24T10:00:00+00:00")  # another cursor
    hub.prime("g", Appended(Game(seq=6), [Event(seq=6)], 5, None))  # a slower thread's older move
    assert hub.feeds["g"].game is game
    hub.prime("unserved", Appended(Game(seq=3), [], 2, None))  # no socket of that game here: nothing kept
    assert "unserved" not in hub.feeds


def test_a_socket_move_at_the_seq_last_read_here_gets_a_copy_of_that_row_and_at_any_other_seq_none() -> None:
    hub = Hub()
    read = Game(seq=7, head_hash="h7")
    hub.feeds["g"] = Feed(game=read, after=5)
    copied = hub.game_at("g", 7)
    assert copied is not None and copied is not read and (copied.seq, copied.head_hash) == (7, "h7")
    copied.seq = 9  # the append moves the copy; the feed's row stays as read, with its rows
    assert read.seq == 7
    assert hub.game_at("g", 6) is None and hub.game_at("g", 8) is None
    assert hub.game_at("unserved", 7) is None


class _Socket:
    """A socket as the hub sees it: what woke it, what presence it was told."""

    def __init__(self, game_id: str, name: str) -> None:
        self.game_id, self.seat, self.channel_name = game_id, None, name
        self.woken: list[int] = []
        self.presence: list[list[int]] = []

    def wake(self, seq: int) -> None:
        self.woken.append(seq)

    async def presence_changed(self, message: dict[str, Any]) -> None:
        self.presence.append(message["seats"])


def test_a_games_notice_reaches_the_hub_once_and_wakes_each_of_its_sockets_here() -> None:
    """The game's group holds one channel of this process however many sockets watch the game here, and it
    leaves the group with the game's last socket (the in-memory layer: it shows its groups)."""

    async def scenario() -> None:
        layer = InMemoryChannelLayer()
        hub = Hub()
        sockets = [_Socket("g", "a"), _Socket("g", "b"), _Socket("other", "c")]
        with patch("games.realtime.hub.get_channel_layer", return_value=layer):
            for socket in sockets:
                await hub.join(socket)
            assert hub.listening is not None
            assert list(layer.groups[group_name("g")]) == [hub.listening.channel]
            await layer.group_send(group_name("g"), {"type": "game.moved", "game": "g", "seq": 7})
            await layer.group_send(group_name("g"), {"type": "presence.changed", "game": "g", "seats": [0], "version": 1})
            for _ in range(20):
                await asyncio.sleep(0.01)
            assert [s.woken for s in sockets] == [[7], [7], []]
            assert [s.presence for s in sockets] == [[[0]], [[0]], []]
            hub.leave(sockets[0])
            await asyncio.sleep(0.05)
            assert group_name("g") in layer.groups  # its other socket still watches
            hub.leave(sockets[1])
            await asyncio.sleep(0.05)
            assert not layer.groups.get(group_name("g")) and layer.groups[group_name("other")]

    run_coroutine(scenario())
