"""The hub's shared read of a game (games/realtime/hub.py): a move made through this web process primes it, so
the game's sockets here send the move's events without reading the database; an older move never overwrites
a newer read. (No database here: a read from it would fail the test.)"""

from __future__ import annotations

from games.models import Event, Game
from games.realtime.hub import Appended, Feed, Hub
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
