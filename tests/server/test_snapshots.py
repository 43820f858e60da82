"""Snapshots survive an upgrade: versioned JSON of plain data (games.store.snapshots), never a pickle.

The codec round-trips every state random games reach, exactly (dict orders too); a row of another format (the
old pickles, format 0, or one from a newer release) or one that cannot be read is ignored and the state comes
from the log; deleting every snapshot changes no answer.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine import replay
from games.engine.evolve import evolve_in_place
from games.engine.scoring import SeatScore
from games.engine.simulate import play_random_game
from games.engine.state import PendingTunnel, PlayerState, State
from games.store import states
from games.store.event_log import events_between
from games.store.models import Game, Snapshot
from games.store.snapshots import (
    PLAYER_FIELDS,
    SNAPSHOT_FORMAT,
    STATE_FIELDS,
    TUNNEL_FIELDS,
    decode_state,
    encode_state,
    state_to_data,
)
from tests.server.helpers import finish_by_services, seated_game

GAMES = [(m, p, seed) for m, p in (("europe", 2), ("europe", 3), ("europe", 5), ("usa", 2), ("usa", 4)) for seed in range(4)]


def _plain(value: Any) -> bool:
    """JSON of plain data only: no engine class, no tuple, no float."""
    if value is None or isinstance(value, (bool, int, str)):
        return not isinstance(value, float)
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def _same(a: State, b: State) -> None:
    """Equal, and equal dict insertion orders (iteration orders must not drift through a snapshot either)."""
    assert a == b
    assert a.board is b.board
    for name in ("discards", "route_owner", "station_owner", "offered"):
        assert list(getattr(a, name).items()) == list(getattr(b, name).items()), name
    for pa, pb in zip(a.players, b.players, strict=True):
        assert list(pa.hand.items()) == list(pb.hand.items())


# The codec alone (no database).


def test_the_format_knows_every_field_of_the_state() -> None:
    """A field added to the engine's state must be encoded, and a new SNAPSHOT_FORMAT must say so."""
    assert tuple(f.name for f in dataclasses.fields(State)) == STATE_FIELDS
    assert tuple(f.name for f in dataclasses.fields(PlayerState)) == PLAYER_FIELDS
    assert tuple(f.name for f in dataclasses.fields(PendingTunnel)) == TUNNEL_FIELDS
    assert [f.name for f in dataclasses.fields(SeatScore)] == [
        "seat", "total", "route_points", "ticket_points", "tickets", "stations_built", "stations_unbuilt",
        "station_points", "station_routes", "longest_path", "longest_bonus", "place",
    ]  # fmt: skip


@pytest.mark.parametrize(("map_name", "players", "seed"), GAMES)
def test_every_state_of_a_random_game_round_trips_exactly(map_name: str, players: int, seed: int) -> None:
    record = play_random_game(map_name, players, random.Random(f"snap:{seed}"))
    assert record.state is not None and record.state.scores, "the game was played to its score"
    seen: set[str] = set()
    state = replay(record.events[:1])
    for n, event in enumerate(record.events[1:], start=2):
        evolve_in_place(state, event)
        raw = encode_state(state)
        data = json.loads(raw)
        assert _plain(data) and "board" not in data and data["map"] == map_name
        back = decode_state(raw)
        _same(back, state)
        assert encode_state(back) == raw  # stable bytes
        seen.update(k for k, v in (("tunnel", state.tunnel), ("offered", state.offered), ("scores", state.scores),
                                   ("turns_left", state.turns_left)) if v)  # fmt: skip
        if n % 97 == 0 or n == len(record.events):  # the decoded state is the replayed one, and plays on the same
            _same(back, replay(record.events[:n]))
            rest = back.copy()
            for later in record.events[n:]:
                evolve_in_place(rest, later)
            _same(rest, record.state)
    assert {"offered", "scores", "turns_left"} <= seen
    if map_name == "europe":
        assert "tunnel" in seen or players == 2  # tunnels come up in every bigger europe game of these seeds


def test_a_pending_tunnel_round_trips() -> None:
    """Tunnels pending payment, with their played cards and reveal, from many europe games."""
    found = 0
    for seed in range(12):
        record = play_random_game("europe", 4, random.Random(f"tunnel:{seed}"))
        state = replay(record.events[:1])
        for event in record.events[1:]:
            evolve_in_place(state, event)
            if state.tunnel is not None:
                found += 1
                back = decode_state(encode_state(state))
                assert back.tunnel == state.tunnel and isinstance(back.tunnel, PendingTunnel)
                assert isinstance(back.tunnel.played, tuple) and isinstance(back.tunnel.revealed, tuple)
                _same(back, state)
    assert found > 20


# Through the database.

pytestmark_db = pytest.mark.django_db


def _finished_game(settings: Any, every: int = 7, seed: int = 3, map_name: str = "europe") -> tuple[str, int]:
    settings.GAME_SNAPSHOT_EVERY = every
    table = seated_game(f"sn{seed}{map_name[0]}", map_name, 3)
    finish_by_services(table.game_id, random.Random(seed))
    return table.game_id, Game.objects.get(pk=table.game_id).seq


def _snapshot_seqs(game_id: str) -> list[int]:
    return list(Snapshot.objects.filter(game_id=game_id).order_by("seq").values_list("seq", flat=True))


def _fresh_state(game_id: str, seq: int) -> State:
    states.forget_all()
    return states.state_at(game_id, seq)


@pytestmark_db
def test_snapshots_are_written_in_the_current_format_and_every_state_equals_the_replay(settings: Any) -> None:
    game_id, last = _finished_game(settings)
    rows = list(Snapshot.objects.filter(game_id=game_id).order_by("seq"))
    assert len(rows) >= last // 14 and {r.format for r in rows} == {SNAPSHOT_FORMAT}
    for row in rows:
        assert not bytes(row.state).startswith(b"\x80")  # not a pickle
        assert _plain(json.loads(bytes(row.state)))
        _same(decode_state(row.state), replay(events_between(game_id, 0, row.seq)))
    for seq in range(1, last + 1, 5):
        _same(_fresh_state(game_id, seq), replay(events_between(game_id, 0, seq)))


@pytestmark_db
def test_a_pickled_snapshot_of_the_old_format_is_ignored(settings: Any) -> None:
    game_id, last = _finished_game(settings)
    seq = (last // 7) * 7 - 7
    truth = replay(events_between(game_id, 0, seq))
    Snapshot.objects.filter(game_id=game_id).delete()
    wrong = truth.copy()  # a pickle that would be believed would give a visibly wrong answer
    wrong.players[0].score += 1000
    wrong.draw_pile.reverse()
    old_bytes = pickle.dumps(wrong, pickle.HIGHEST_PROTOCOL)  # what the old maybe_snapshot wrote
    assert pickle.loads(old_bytes) == wrong  # and the old code would have read it back
    Snapshot.objects.create(game_id=game_id, seq=seq, state=old_bytes)  # format: the default, 0, as migrated rows
    assert Snapshot.objects.get(game_id=game_id, seq=seq).format == 0
    _same(_fresh_state(game_id, seq), truth)
    _same(_fresh_state(game_id, seq + 3), replay(events_between(game_id, 0, seq + 3)))
    # The next write at that seq replaces the old row with one of the current format.
    states.maybe_snapshot(game_id, seq - 1, seq, truth)
    row = Snapshot.objects.get(game_id=game_id, seq=seq)
    assert row.format == SNAPSHOT_FORMAT
    _same(decode_state(row.state), truth)
    _same(_fresh_state(game_id, seq + 1), replay(events_between(game_id, 0, seq + 1)))


@pytestmark_db
def test_a_snapshot_of_an_unknown_future_format_is_ignored(settings: Any) -> None:
    game_id, last = _finished_game(settings, seed=5)
    seq = _snapshot_seqs(game_id)[-2]  # a row the game wrote, with rows before and after it
    truth = replay(events_between(game_id, 0, seq))
    future = {**state_to_data(truth), "map": "atlantis", "players": "compressed differently"}
    changed = Snapshot.objects.filter(game_id=game_id, seq=seq).update(
        format=SNAPSHOT_FORMAT + 1, state=json.dumps(future).encode()
    )
    assert changed == 1
    Snapshot.objects.filter(game_id=game_id, seq__lt=seq).delete()
    _same(_fresh_state(game_id, seq), truth)
    _same(_fresh_state(game_id, last), replay(events_between(game_id, 0, last)))


@pytestmark_db
def test_an_unreadable_snapshot_of_the_current_format_costs_a_replay_not_an_answer(settings: Any) -> None:
    game_id, last = _finished_game(settings, seed=6)
    seq = _snapshot_seqs(game_id)[-1]
    assert Snapshot.objects.filter(game_id=game_id).update(state=b"\x80\x05not json") > 1
    _same(_fresh_state(game_id, seq), replay(events_between(game_id, 0, seq)))
    _same(_fresh_state(game_id, last), replay(events_between(game_id, 0, last)))


def _answers(game_id: str) -> list[Any]:
    client = APIClient()
    out: list[Any] = []
    for tail in ("state", "score", "events", "replay", "verify"):
        response = client.get(f"/api/games/{game_id}/{tail}")
        out.append((tail, response.status_code, json.loads(response.content)))
    return out


@pytestmark_db
def test_deleting_every_snapshot_changes_no_answer(settings: Any) -> None:
    game_id, last = _finished_game(settings, seed=8, map_name="usa")
    assert Snapshot.objects.filter(game_id=game_id).exists()
    states.forget_all()
    before = _answers(game_id)
    kept = {seq: _fresh_state(game_id, seq) for seq in range(1, last + 1, 4)}
    Snapshot.objects.filter(game_id=game_id).delete()
    states.forget_all()
    assert _answers(game_id) == before
    for seq, state in kept.items():
        _same(_fresh_state(game_id, seq), state)


@pytestmark_db
def test_a_snapshot_of_the_previous_format_without_the_shuffle_count_is_ignored(settings: Any) -> None:
    """Format 1 (before the state counted its shuffles for fairness.py): its rows are replayed past, never read
    with a count of 0 that would draw a later reshuffle from the wrong stream."""
    game_id, _ = _finished_game(settings, seed=7)
    seq = _snapshot_seqs(game_id)[-2]
    truth = replay(events_between(game_id, 0, seq))
    assert truth.shuffles >= 3  # the setup's three at least
    previous = {key: value for key, value in state_to_data(truth).items() if key != "shuffles"}
    assert Snapshot.objects.filter(game_id=game_id, seq=seq).update(format=1, state=json.dumps(previous).encode()) == 1
    Snapshot.objects.filter(game_id=game_id, seq__lt=seq).delete()
    _same(_fresh_state(game_id, seq), truth)
    assert _fresh_state(game_id, seq).shuffles == truth.shuffles


def test_a_decoded_snapshot_holds_the_phase_as_the_engines_enum() -> None:
    """The engine's phases are a closed enum (games/engine/state.py `Phase`): a snapshot row's text phase reads back
    as the member, so code after a snapshot load sees the same type as after a replay."""
    from games.engine.state import Phase
    from games.store.snapshots import decode_state, encode_state

    record = play_random_game("usa", 3, random.Random("snap:phase"))
    state = replay(record.events[:40])
    decoded = decode_state(encode_state(state))
    assert type(decoded.phase) is Phase and decoded.phase == state.phase
