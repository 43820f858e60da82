"""The schema's move shapes (games.api.moves_schema) are exactly what the codec reads and writes."""

from __future__ import annotations

import random

import jsonschema
import pytest

from games.api.moves_schema import MOVE_SCHEMA
from games.engine import legal_moves, step
from games.engine.codec import InvalidMove, move_from_dict, move_to_dict
from games.engine.legal import random_legal_move
from games.engine.setup import begin


@pytest.mark.parametrize(("map_name", "seed"), [("europe", 1), ("usa", 2)])
def test_every_legal_move_of_a_whole_game_fits_the_schema_and_reads_back(map_name: str, seed: int) -> None:
    rng, validator = random.Random(seed), jsonschema.Draft7Validator(MOVE_SCHEMA)
    state, _ = begin(map_name, 2, rng)
    kinds, position = set(), 0
    while not state.finished:
        seat = state.deciders()[0]
        position += 1
        moves = legal_moves(state, seat)
        for move in moves if position % 7 == 0 or len(moves) < 40 else ():  # a sample of the big claim lists
            encoded = move_to_dict(move)
            validator.validate(encoded)
            assert move_from_dict(encoded) == move
            kinds.add(encoded["type"])
        state, _ = step(state, seat, random_legal_move(state, seat, rng), rng)
    assert {"keep_tickets", "draw_card", "claim_route", "draw_tickets"} <= kinds


@pytest.mark.parametrize(
    "move",
    [
        {"type": "draw_card", "source": "deck", "index": 0},
        {"type": "draw_card", "source": "market"},
        {"type": "draw_card", "source": "market", "index": 5},
        {"type": "claim_route", "route": "", "cards": {"red": 1}},
        {"type": "claim_route", "route": "x", "cards": {"pink": 1}},
        {"type": "claim_route", "route": "x", "cards": {"red": -1}},
        {"type": "keep_tickets", "tickets": [1]},
        {"type": "draw_tickets", "extra": 1},
        {"type": "fly"},
    ],
)
def test_what_the_schema_refuses_the_codec_refuses(move: dict[str, object]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(move, MOVE_SCHEMA)
    with pytest.raises(InvalidMove):
        move_from_dict(move)
