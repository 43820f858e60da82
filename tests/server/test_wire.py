"""What a move's request and a socket's events look like on the wire, read and written by the short paths: a move
body read in three checks (games/api/serializers.py `move_request`) answers exactly as MoveRequestSerializer does,
and a socket's `events` message built from each event's shared text (games/realtime/consumer.py
`events_message`, games/store/event_log.py `project_text`) is the same text as the whole message encoded at once."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.exceptions import ValidationError

from games.api.serializers import MoveRequestSerializer, move_request
from games.engine import begin, legal_moves, step
from games.engine.codec import event_to_dict
from games.realtime import messages
from games.realtime.consumer import events_message
from games.store import event_log
from games.store.models import Event

# What the strict parser can give (games/api/parsers.py: no NaN, no Infinity).
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
bodies = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {}, optional={"expected_seq": st.one_of(st.integers(-3, 2**70), json_values), "move": json_values, "x": json_values}
    ),
)


def _serializer_answer(body: Any) -> tuple[int, Any] | dict[str, Any]:
    serializer = MoveRequestSerializer(data=body)
    if serializer.is_valid():
        return serializer.validated_data["expected_seq"], serializer.validated_data["move"]
    return {field: [str(error) for error in errors] for field, errors in serializer.errors.items()}


@given(bodies)
def test_a_move_body_reads_as_the_serializer_reads_it_accepted_or_refused_with_the_same_fields(body: Any) -> None:
    expected = _serializer_answer(body)
    try:
        read = move_request(body)
    except ValidationError as refused:
        assert isinstance(expected, dict)
        assert {field: [str(error) for error in errors] for field, errors in refused.detail.items()} == expected
    else:
        assert (read.expected_seq, read.move) == expected


def test_a_refused_socket_move_carries_the_body_http_gives() -> None:
    with pytest.raises(messages.Refused) as refused:
        messages.move_request({"type": "move", "expected_seq": True, "move": {}})
    assert refused.value.status == 400
    assert refused.value.body["code"] == "invalid" and refused.value.body["field"] == "expected_seq"
    assert messages.move_request({"type": "move", "expected_seq": 4, "move": {"type": "draw_card"}}).expected_seq == 4


def _rows(moves: int) -> list[Event]:
    """The events of a 2-seat USA game's deal and first moves, as log rows (the card draws are seat 0's or 1's alone)."""
    rng = random.Random(3)
    state, opening = begin("usa", 2, rng)
    events = list(opening)
    while len(events) < moves:
        seat = state.deciders()[0]
        state, more = step(state, seat, rng.choice(legal_moves(state, seat)), rng)
        events.extend(more)
    at = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    return [
        Event(seq=seq, type=event.type, seat=getattr(event, "seat", None), data=event_to_dict(event), created_at=at,
              commitment="c" * 8 if seq % 3 == 0 else "", reason="keeps its tickets" if seq == 2 else "")
        for seq, event in enumerate(events, start=1)
    ]


@pytest.mark.parametrize("viewer", [0, 1, None])
@pytest.mark.parametrize("finished", [False, True])
def test_an_events_message_is_the_text_of_the_whole_message_encoded_at_once(viewer: int | None, finished: bool) -> None:
    rows = _rows(30)
    whole = [event_log.project(row, viewer, finished) for row in rows]
    for extra in ({}, {"deadline": None}, {"deadline": "2026-11-25T12:00:00+00:00", "resync": True}):
        texts = [event_log.project_text(row, viewer, finished) for row in rows]
        expected = json.dumps({"type": "events", "seq": 30, "events": whole, **extra}, separators=(",", ":"))
        assert events_message(30, texts, extra) == expected


def test_each_view_of_an_event_is_encoded_once_and_shared_by_every_viewer_who_sees_it() -> None:
    """Most events look the same to everyone: one text. A card drawn from the deck has two: its drawer's, and the
    one every other viewer shares (the spectator's and the other seat's are the same text object)."""
    rows = [row for row in _rows(40) if not row.reason]
    texts = {viewer: [event_log.project_text(row, viewer, False) for row in rows] for viewer in (0, 1, None)}
    assert all(a == event_log.compact_json(event_log.project(row, 0, False)) for a, row in zip(texts[0], rows, strict=True))
    for index, row in enumerate(rows):
        zero, one, spectator = texts[0][index], texts[1][index], texts[None][index]
        if zero == one == spectator:
            assert zero is one is spectator, row.type
        else:
            owner, other = (zero, one) if row.seat == 0 else (one, zero)
            assert other is spectator and owner != spectator, row.type
    assert any(texts[0][i] != texts[None][i] for i in range(len(rows)))  # the deal, and draws from the deck
