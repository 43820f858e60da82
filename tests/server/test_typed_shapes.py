"""An answer's shape is written once, as a frozen dataclass (games/play/shapes.py): its JSON (games/api/typed_json.py)
and its JSON Schema (games/api/typed_schema.py) are both read off its type hints, so they cannot disagree."""

from __future__ import annotations

import dataclasses
import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any
from uuid import UUID

import jsonschema
import pytest

from games.api.typed_json import to_json
from games.api.typed_schema import schema_of
from games.engine import legal_moves, step, view
from games.engine.codec import view_json
from games.engine.legal import random_legal_move
from games.engine.moves import Payment
from games.engine.setup import begin
from games.play.shapes import Cards, GameView, LegalMoves, started_view
from games.store.shape_marks import ABSENT, Absent, Schema


def json_schema(schema: Any) -> Any:
    """An OpenAPI 3.0 schema as a JSON Schema validator reads it: `nullable` is `null` allowed."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    inner = {key: json_schema(value) for key, value in schema.items() if key != "nullable"}
    return {"anyOf": [inner, {"type": "null"}]} if schema.get("nullable") else inner


@dataclass(frozen=True, slots=True, kw_only=True)
class Inner:
    cards: Payment


@dataclass(frozen=True, slots=True, kw_only=True)
class Sample:
    """A sample shape."""

    name: Annotated[str, Schema("who", minLength=1)]
    seat: int | None
    maybe: int | Absent = ABSENT
    at: datetime
    game: UUID
    inner: tuple[Inner, ...]
    hand: Cards


def test_a_shapes_json_leaves_out_what_is_absent_writes_null_and_text_and_its_schema_says_so() -> None:
    sample = Sample(
        name="ada", seat=None, at=datetime(2026, 11, 27, 12, 0, 0, 5, tzinfo=UTC),
        game=UUID("12345678-1234-4321-8765-123456789abc"), inner=(Inner(cards=(("red", 2), ("locomotive", 1))),),
        hand=Cards({"blue": 1}),
    )
    written = to_json(sample)
    assert list(written) == ["name", "seat", "at", "game", "inner", "hand"]  # field order; `maybe` left out
    assert written["seat"] is None and written["at"] == "2026-11-27T12:00:00.000005+00:00"
    assert written["game"] == "12345678-1234-4321-8765-123456789abc"
    assert written["inner"] == [{"cards": {"red": 2, "locomotive": 1}}]
    assert to_json(Sample(**{**written, "maybe": 3, "game": sample.game, "at": sample.at, "inner": ()}))["maybe"] == 3

    schema = schema_of(Sample)
    assert schema["properties"]["name"] == {"type": "string", "description": "who", "minLength": 1}
    assert set(schema["required"]) == {"name", "seat", "at", "game", "inner", "hand"}  # not `maybe`
    assert schema["additionalProperties"] is False
    jsonschema.validate(written, json_schema(schema))
    for wrong in ({**written, "name": ""}, {**written, "extra": 1}, {**written, "hand": {"pink": 1}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(wrong, json_schema(schema))


@pytest.mark.parametrize(("map_name", "players", "seed"), [("europe", 3, 1), ("usa", 2, 2), ("europe", 5, 3)])
def test_every_view_of_a_whole_game_as_the_api_writes_it_is_the_codecs_and_fits_its_schema(
    map_name: str, players: int, seed: int
) -> None:
    """X-SEC-1's tests read the engine's JSON of a view (games/engine/codec.py `view_json`): the API writes the same
    (keys in the same order), from the view's shape, and the schema the OpenAPI document gives that shape holds it."""
    rng = random.Random(seed)
    validator = jsonschema.Draft7Validator(json_schema(schema_of(GameView)))
    legal = jsonschema.Draft7Validator(json_schema(schema_of(LegalMoves)))
    state, _ = begin(map_name, players, rng)
    position = 0
    while True:
        for viewer in (None, *range(players)):
            if position % 5 and viewer not in (None, 0) and not state.finished:
                continue  # a sample of the seats, every position of seat 0 and of a spectator
            seen = view(state, viewer)
            written = to_json(started_view(seen))
            assert json.dumps(written) == json.dumps(view_json(seen))
            validator.validate(written)
        if state.finished:
            break
        seat = state.deciders()[0]
        if position % 9 == 0:
            legal.validate(to_json(LegalMoves(seq=position, moves=tuple(legal_moves(state, seat)))))
        state, _ = step(state, seat, random_legal_move(state, seat, rng), rng)
        position += 1
    assert "scores" in to_json(started_view(view(state, None)))  # (the finished view was among them)
    more = started_view(
        view(state, 0), deadline=datetime(2026, 1, 1, tzinfo=UTC), banks={0: 3600, 1: 0},
        offered={"1": ("t1",)}, draw_pile=("red",),
    )
    written = to_json(more)
    assert written["deadline"] == "2026-01-01T00:00:00+00:00" and written["banks"] == {0: 3600, 1: 0}
    validator.validate(json.loads(json.dumps(written)))  # (the seats of the banks are text in JSON)


@pytest.mark.django_db
def test_each_dataclass_a_view_answers_is_a_component_of_the_openapi_schema_with_its_fields() -> None:
    """drf-spectacular knows a dataclass only through games/api/typed_schema.py's extension: were it not loaded, the
    answers would be described as empty objects, which hold anything."""
    from rest_framework.test import APIClient

    from games.api import responses
    from games.play import shapes
    from games.play.my_clocks import MyGamesClocks

    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    for shape in (shapes.GameState, shapes.GameSummary, shapes.PlayerPage, MyGamesClocks, responses.GameList):
        assert set(components[shape.__name__]["properties"]) == {f.name for f in dataclasses.fields(shape)}
    state = schema["paths"]["/api/games/{game_id}/state"]["get"]["responses"]["200"]["content"]["application/json"]
    assert state["schema"] == {"$ref": "#/components/schemas/GameState"}
