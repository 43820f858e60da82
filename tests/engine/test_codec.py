"""The JSON codec for moves: every legal move survives the trip, and a malformed move is refused by field.

`move_from_dict` is where a client's JSON becomes an engine move, so it must give back exactly the move that
`move_to_dict` wrote, and refuse anything malformed with `InvalidMove` naming the field (API code `invalid`)
before the engine sees it. Events are round-tripped in test_properties.py.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from games.engine import moves as mv
from games.engine.codec import InvalidMove, move_from_dict, move_to_dict
from games.engine.decide import step
from games.engine.legal import legal_moves, random_legal_move
from games.engine.setup import begin
from games.engine.state import SETUP_TICKETS, TURN, State

SAMPLED_GAMES = (("europe", 2), ("europe", 4), ("europe", 5), ("usa", 3), ("usa", 5))


def decision_points(map_name: str, players: int, seed: str) -> Iterator[tuple[State, int]]:
    """The states of one random game at which a seat decides, with that seat."""
    rng = random.Random(seed)
    state, _ = begin(map_name, players, rng)
    while not state.finished:
        seat = state.deciders()[0]
        yield state, seat
        move = random_legal_move(state, seat, rng)
        assert move is not None
        state, _ = step(state, seat, move, rng)


def test_every_legal_move_in_sampled_positions_survives_move_to_dict_and_back() -> None:
    seen: set[type[mv.Move]] = set()
    checked = 0
    for map_name, players in SAMPLED_GAMES:
        sampler = random.Random(f"codec-sample:{map_name}:{players}")
        for state, seat in decision_points(map_name, players, f"codec:{map_name}:{players}"):
            # Every turn-start position has hundreds of moves; a sample of them, and all of the rarer phases.
            if state.phase == TURN and sampler.random() > 0.1:
                continue
            for move in legal_moves(state, seat):
                data = move_to_dict(move)
                assert data["type"] == move.type
                assert move_from_dict(data) == move, f"{move} -> {data}"
                assert move_from_dict(json.loads(json.dumps(data))) == move, f"{move} via JSON text"
                seen.add(type(move))
                checked += 1
    assert seen == set(mv.MOVE_TYPES.values()), f"no legal move of type {set(mv.MOVE_TYPES.values()) - seen}"
    assert checked > 1000


def test_setup_ticket_choices_round_trip_in_the_order_given() -> None:
    state, _ = begin("europe", 3, random.Random("codec-setup"))
    assert state.phase == SETUP_TICKETS
    offered = state.offered[0]
    move = mv.KeepTickets((offered[2], offered[0]))
    assert move_to_dict(move) == {"type": "keep_tickets", "tickets": [offered[2], offered[0]]}
    assert move_from_dict(move_to_dict(move)) == move


def test_well_formed_moves_decode_to_the_canonical_engine_move() -> None:
    # Card counts come back in the canonical card order, zero counts dropped, so equal payments compare equal.
    data = {"type": "claim_route", "route": "berlin--wien", "cards": {"locomotive": 1, "green": 2, "red": 0}}
    assert move_from_dict(data) == mv.ClaimRoute("berlin--wien", (("green", 2), ("locomotive", 1)))
    assert move_from_dict({"type": "draw_card", "source": "deck"}) == mv.DrawCard("deck")
    assert move_from_dict({"type": "draw_card", "source": "deck", "index": None}) == mv.DrawCard("deck")
    assert move_from_dict({"type": "draw_card", "source": "market", "index": 4}) == mv.DrawCard("market", 4)
    assert move_from_dict({"type": "decline_tunnel"}) == mv.DeclineTunnel()
    assert move_to_dict(mv.DrawCard("deck")) == {"type": "draw_card", "source": "deck"}


CLAIM = {"type": "claim_route", "route": "berlin--wien", "cards": {"green": 3}}
STATION = {"type": "build_station", "city": "wien", "cards": {"red": 1}}


def without(data: dict[str, Any], name: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != name}


MALFORMED: list[tuple[str, Any, str]] = [
    ("not an object", ["draw_card"], "move"),
    ("a string", "draw_tickets", "move"),
    ("no type", {"source": "deck"}, "type"),
    ("type not a string", {"type": 3}, "type"),
    ("type null", {"type": None}, "type"),
    ("unknown type", {"type": "fly_to_the_moon"}, "type"),
    ("type of an event, not a move", {"type": "route_claimed"}, "type"),
    ("unknown field", {"type": "draw_tickets", "count": 3}, "count"),
    ("unknown field beside good ones", {**CLAIM, "seat": 1}, "seat"),
    ("decline with cards", {"type": "decline_tunnel", "cards": {"red": 1}}, "cards"),
    ("draw without source", {"type": "draw_card"}, "source"),
    ("draw from the hand", {"type": "draw_card", "source": "hand"}, "source"),
    ("source not a string", {"type": "draw_card", "source": 1}, "source"),
    ("market without index", {"type": "draw_card", "source": "market"}, "index"),
    ("market index a string", {"type": "draw_card", "source": "market", "index": "2"}, "index"),
    ("market index a float", {"type": "draw_card", "source": "market", "index": 2.0}, "index"),
    ("market index a bool", {"type": "draw_card", "source": "market", "index": True}, "index"),
    ("market index negative", {"type": "draw_card", "source": "market", "index": -1}, "index"),
    ("market index past the market", {"type": "draw_card", "source": "market", "index": 5}, "index"),
    ("blind draw with an index", {"type": "draw_card", "source": "deck", "index": 0}, "index"),
    ("claim without route", without(CLAIM, "route"), "route"),
    ("route not a string", {**CLAIM, "route": 7}, "route"),
    ("route empty", {**CLAIM, "route": ""}, "route"),
    ("claim without cards", without(CLAIM, "cards"), "cards"),
    ("cards a list", {**CLAIM, "cards": ["green", "green", "green"]}, "cards"),
    ("cards a string", {**CLAIM, "cards": "green"}, "cards"),
    ("cards null", {**CLAIM, "cards": None}, "cards"),
    ("negative card count", {**CLAIM, "cards": {"green": 4, "locomotive": -1}}, "cards"),
    ("card count a string", {**CLAIM, "cards": {"green": "3"}}, "cards"),
    ("card count a float", {**CLAIM, "cards": {"green": 3.0}}, "cards"),
    ("card count a bool", {**CLAIM, "cards": {"green": True}}, "cards"),
    ("unknown colour", {**CLAIM, "cards": {"pink": 3}}, "cards"),
    ("gray is a route colour, not a card", {**CLAIM, "cards": {"gray": 3}}, "cards"),
    ("colour in capitals", {**CLAIM, "cards": {"GREEN": 3}}, "cards"),
    ("tunnel payment without cards", {"type": "pay_tunnel"}, "cards"),
    ("tunnel payment negative", {"type": "pay_tunnel", "cards": {"locomotive": -2}}, "cards"),
    ("tunnel payment unknown colour", {"type": "pay_tunnel", "cards": {"wild": 1}}, "cards"),
    ("station without city", without(STATION, "city"), "city"),
    ("city not a string", {**STATION, "city": ["wien"]}, "city"),
    ("station without cards", without(STATION, "cards"), "cards"),
    ("station with negative cards", {**STATION, "cards": {"red": -1}}, "cards"),
    ("station with unknown colour", {**STATION, "cards": {"rainbow": 1}}, "cards"),
    ("keep without tickets", {"type": "keep_tickets"}, "tickets"),
    ("tickets a string", {"type": "keep_tickets", "tickets": "berlin--wien"}, "tickets"),
    ("tickets not strings", {"type": "keep_tickets", "tickets": [1, 2]}, "tickets"),
    ("tickets an object", {"type": "keep_tickets", "tickets": {"berlin--wien": True}}, "tickets"),
]


@pytest.mark.parametrize(("data", "field"), [(data, field) for _, data, field in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_a_malformed_move_is_refused_naming_the_field(data: Any, field: str) -> None:
    with pytest.raises(InvalidMove) as refused:
        move_from_dict(data)
    assert refused.value.field == field, f"{data!r}: refused as {refused.value.field!r}: {refused.value.detail}"
    assert refused.value.detail and str(refused.value) == refused.value.detail
    assert isinstance(refused.value, ValueError)


def test_the_malformed_cases_differ_from_a_well_formed_move_only_in_the_named_field() -> None:
    # Guards the table above: the same moves with that field repaired are accepted.
    assert move_from_dict(CLAIM) == mv.ClaimRoute("berlin--wien", (("green", 3),))
    assert move_from_dict(STATION) == mv.BuildStation("wien", (("red", 1),))
    assert move_from_dict({"type": "pay_tunnel", "cards": {"locomotive": 2}}) == mv.PayTunnel((("locomotive", 2),))
    assert move_from_dict({"type": "keep_tickets", "tickets": []}) == mv.KeepTickets(())
