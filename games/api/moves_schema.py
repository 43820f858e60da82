"""The JSON Schema of a move (docs/API.md "Moves"), exactly what games.engine.codec.move_from_dict accepts.

One variant per move type, each closed (no other fields): the OpenAPI schema gives it to clients and to
schema-based fuzzing, and a test checks it against the codec for every legal move of whole games.
"""

from __future__ import annotations

from typing import Any

from games.engine.cards import CARD_KINDS

PAYMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "train cards by colour, e.g. {\"red\": 2, \"locomotive\": 1}",
    "properties": {kind: {"type": "integer", "minimum": 0} for kind in CARD_KINDS},
    "additionalProperties": False,
}


def _variant(kind: str, description: str, **fields: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "title": kind,
        "description": description,
        "properties": {"type": {"type": "string", "enum": [kind]}, **fields},
        "required": ["type", *fields],
        "additionalProperties": False,
    }


_ID = {"type": "string", "minLength": 1}


def _draw(source: str, description: str, index: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = _variant("draw_card", description, source={"type": "string", "enum": [source]}, index=index)
    return {**schema, "title": f"draw_card ({source})", "required": required}


_DECK = _draw(
    "deck", "draw the top card of the draw pile",
    {"nullable": True, "enum": [None], "description": "no index for the deck (null or absent)"}, ["type", "source"],
)
_MARKET = _draw(
    "market", "take the face-up card in market slot `index`",
    {"type": "integer", "minimum": 0, "maximum": 4}, ["type", "source", "index"],
)

MOVE_SCHEMA: dict[str, Any] = {
    "description": "a move: its `type` and that type's fields (docs/API.md)",
    "oneOf": [
        _variant("keep_tickets", "keep these of the tickets just dealt", tickets={"type": "array", "items": _ID}),
        _DECK,
        _MARKET,
        _variant("claim_route", "claim a route paying these cards", route=_ID, cards=PAYMENT_SCHEMA),
        _variant("pay_tunnel", "pay the extra cards a tunnel asks for", cards=PAYMENT_SCHEMA),
        _variant("decline_tunnel", "give up the tunnel; the played cards go back to the hand"),
        _variant("draw_tickets", "draw destination tickets"),
        _variant("build_station", "build a station in a city (Europe)", city=_ID, cards=PAYMENT_SCHEMA),
    ],
}
