"""The log's append (games/store/event_log.py): on PostgreSQL one statement moves the game's head and inserts the rows, so an
append at a stale seq writes nothing at all."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bench.random_moves import random_engine_move
from games.engine.events import TurnEnded
from games.play import bot_turns
from games.store import event_log, states
from games.store.models import Event, Game
from tests.server.helpers import seated_game

pytestmark = pytest.mark.django_db


def started_game() -> Game:
    table = seated_game("app")
    return Game.objects.get(pk=table.game_id)


def test_an_append_at_a_stale_seq_raises_and_writes_nothing() -> None:
    game = started_game()
    seq, head, rows = game.seq, game.head_hash, Event.objects.filter(game=game).count()
    stale = Game.objects.get(pk=game.pk)
    with pytest.raises(event_log.StaleSeq) as raised:
        event_log.append(stale, seq - 1, [TurnEnded(seat=0, next_seat=1)])
    assert raised.value.current == seq
    game.refresh_from_db()
    assert (game.seq, game.head_hash) == (seq, head)
    assert Event.objects.filter(game=game).count() == rows


def test_an_append_moves_the_head_to_its_last_row() -> None:
    game = started_game()
    seq = game.seq
    appended = event_log.append(game, seq, [TurnEnded(seat=0, next_seat=1), TurnEnded(seat=1, next_seat=0)])
    stored = Game.objects.get(pk=game.pk)
    assert stored.seq == seq + 2 == appended[-1].seq
    assert stored.head_hash == appended[-1].hash
    assert list(Event.objects.filter(game=game, seq__gt=seq).values_list("hash", flat=True)) == [r.hash for r in appended]


def test_a_plain_move_on_postgresql_writes_with_one_statement(on_postgres: bool) -> None:
    if not on_postgres:
        pytest.skip("SQLite appends in two statements inside a transaction")
    game = started_game()
    state = states.state_at(game.pk, game.seq)
    rng = random.Random(3)
    while True:  # a move that neither ends the game nor crosses a snapshot
        seat, move = random_engine_move(state, rng)
        if not states.snapshot_due(game.seq, game.seq + 3):
            break
        bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=move)
        state = states.state_at(game.pk, game.seq)
    with CaptureQueriesContext(connection) as queries:
        bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=move)
    writes = [
        q["sql"] for q in queries.captured_queries
        if not q["sql"].lstrip().upper().startswith(("SELECT", "SAVEPOINT", "RELEASE SAVEPOINT"))  # (the move's transaction)
    ]
    assert len(writes) == 1 and writes[0].startswith("WITH head AS (UPDATE"), writes
