"""The answers of analysis, the queue and trust are frozen dataclasses (games/review/shapes.py, games/lobby/shapes.py,
games/trust/shapes.py): their JSON and schema are read off the types, and an analysis's stored decisions read back
as the same JSON."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from uuid import UUID

import jsonschema
import pytest

from games.api.typed_json import to_json
from games.api.typed_schema import schema_of
from games.engine.moves import ClaimRoute, DrawCard
from games.lobby.shapes import QueueStatus
from games.review.shapes import JudgedDecision, LeadsPoint, stored
from games.trust.shapes import Verification
from tests.server.test_typed_shapes import json_schema


def test_a_stored_decision_reads_back_as_the_json_it_was_stored_as_and_fits_its_schema() -> None:
    decision = JudgedDecision(
        seq=12, event=13, seat=1, played=DrawCard("market", 3), best=ClaimRoute("r1", (("red", 2), ("locomotive", 1))),
        lead=-3.5, loss=4.25, stderr=1.1, mark="inaccuracy", reason="claim it before it goes", samples=40,
    )
    row = json.loads(json.dumps(stored(decision)))  # as the analysis's JSON column keeps it
    assert JudgedDecision.of_stored(row) == decision
    assert to_json(JudgedDecision.of_stored(row)) == row
    jsonschema.validate(row, json_schema(schema_of(JudgedDecision)))
    with_no_mark = {**row, "mark": None}
    jsonschema.validate(with_no_mark, json_schema(schema_of(JudgedDecision)))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**row, "mark": "oops"}, json_schema(schema_of(JudgedDecision)))
    point = LeadsPoint(seq=3, leads={"0": 1.5, "1": -1.5})
    assert LeadsPoint.of_stored(json.loads(json.dumps(stored(point)))) == point


def test_a_matched_queue_entry_leaves_out_the_waiting_figures_that_the_schema_does_not_require() -> None:
    matched = QueueStatus(
        status="matched", since=datetime(2026, 11, 27, tzinfo=UTC), map="usa", players=(2, 3), ranked=True,
        speed="daily", bots_after=None, game=UUID("12345678-1234-4321-8765-123456789abc"),
    )
    written = to_json(matched)
    assert "waiting" not in written and "rating_gap" not in written
    assert written["game"] == "12345678-1234-4321-8765-123456789abc" and written["players"] == [2, 3]
    schema = json_schema(schema_of(QueueStatus))
    jsonschema.validate(written, schema)
    jsonschema.validate(to_json(dataclasses.replace(matched, waiting=2, rating_gap=50.0)), schema)


def test_a_verification_writes_its_problems_as_a_list() -> None:
    written = to_json(Verification(ok=False, events=3, head_hash="ab", problems=("seq 2: broken",), fair=None))
    assert written == {"ok": False, "events": 3, "head_hash": "ab", "problems": ["seq 2: broken"], "fair": None}
    jsonschema.validate(written, json_schema(schema_of(Verification)))
