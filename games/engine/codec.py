"""JSON for engine values: events and moves to plain dicts and back, losslessly, and a player's view to the
JSON the API serves.

The engine knows nothing of JSON; this module is the one translation. Events are encoded from their type
hints (a `Payment` becomes a `{"red": 2}` object, tuples become lists, score records become objects) and
decoded the same way, so `event_from_dict(event_to_dict(e)) == e` for every event. Moves arrive from clients
and are checked for shape here: `InvalidMove` says which field is wrong (API code `invalid`). `view_json` is
the `view` object of docs/API.md: its keys in that order, the finished game's keys only once it is finished.
"""

from __future__ import annotations

import dataclasses
import json
import types
from collections.abc import Hashable
from functools import cache
from typing import Any, Union, cast, get_args, get_origin, get_type_hints

from games.engine import events as ev
from games.engine import moves as mv
from games.engine.cards import CARD_KINDS
from games.engine.errors import quoted
from games.engine.moves import Payment, payment
from games.engine.view import PlayerView, PublicPlayer, TunnelView

EVENT_SCHEMA_VERSION = 1


class InvalidMove(ValueError):
    """A move that is not even well formed: wrong type, missing or malformed field."""

    def __init__(self, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.field = field


# Events.


def event_to_dict(event: ev.Event) -> dict[str, Any]:
    body = _encode(event, type(event))
    assert isinstance(body, dict)
    return {"type": event.type, "v": event.v, **body}


def event_from_dict(data: dict[str, Any]) -> ev.Event:
    cls = ev.LEGACY_EVENT_TYPES.get((data["type"], data.get("v", 0))) or ev.EVENT_TYPES[data["type"]]
    fields = {k: v for k, v in data.items() if k not in ("type", "v")}
    decoded = _decoder(cast(Hashable, cls))(fields)
    assert isinstance(decoded, cls)
    return decoded


def event_to_json(event: ev.Event) -> str:
    return json.dumps(event_to_dict(event), separators=(",", ":"), sort_keys=True)


def event_from_json(text: str) -> ev.Event:
    return event_from_dict(json.loads(text))


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


@cache
def _fields(cls: type) -> tuple[tuple[str, Any], ...]:
    """A dataclass's fields in order, each with its type hint (asked once per class: encoding is hot)."""
    hints = _hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))


def _encode(value: Any, hint: Any) -> Any:
    if value is None:
        return None
    if hint == Payment:
        return dict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: _encode(getattr(value, name), field_hint) for name, field_hint in _fields(type(value))}
    if isinstance(value, tuple):
        return [_encode(item, _item_hint(hint, i)) for i, item in enumerate(value)]
    return value


_SCALARS = (str, int, float, bool, Any)


@cache
def _decoder(hint: Any) -> Any:
    """A function turning JSON of type `hint` back into its value, built once per type (replay decodes a lot)."""
    inner = _without_none(hint)
    if inner is not hint:
        decode = _decoder(inner)
        return lambda value: None if value is None else decode(value)
    if hint == Payment:
        return payment
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        decoders = {name: _decoder(field_hint) for name, field_hint in _hints(hint).items()}
        return lambda value: hint(**{name: decoders[name](item) for name, item in value.items()})
    if get_origin(hint) is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            if args[0] in _SCALARS:
                return tuple
            item_decoder = _decoder(args[0])
            return lambda value: tuple(map(item_decoder, value))
        item_decoders = [_decoder(arg) for arg in args]
        return lambda value: tuple(decode(item) for decode, item in zip(item_decoders, value, strict=True))
    return _identity


def _identity(value: Any) -> Any:
    return value


def _without_none(hint: Any) -> Any:
    if get_origin(hint) in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        return args[0] if len(args) == 1 else hint
    return hint


def _item_hint(hint: Any, index: int) -> Any:
    args = get_args(_without_none(hint))
    if len(args) == 2 and args[1] is Ellipsis:
        return args[0]
    return args[index] if index < len(args) else Any


# Moves.


def move_to_dict(move: mv.Move) -> dict[str, Any]:
    body = _encode(move, type(move))
    return {"type": move.type, **{k: v for k, v in body.items() if v is not None}}


def move_from_dict(data: Any) -> mv.Move:
    """The move a client sent, or `InvalidMove` naming the field that is malformed."""
    if not isinstance(data, dict):
        raise InvalidMove("a move is a JSON object", "move")
    kind = data.get("type")
    cls = mv.MOVE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InvalidMove(f"move type must be one of {sorted(mv.MOVE_TYPES)}", "type")
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(data) - names - {"type"}
    if unknown:
        extra = sorted(map(str, unknown))
        raise InvalidMove(f"unknown field(s) for {kind}: {', '.join(map(quoted, extra[:3]))}", extra[0][:40])
    move: mv.Move = _MOVE_PARSERS[cls](data)
    return move


def _str(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise InvalidMove(f"{name} must be a non-empty string", name)
    return value


def _cards(data: dict[str, Any]) -> Payment:
    value = data.get("cards")
    if not isinstance(value, dict):
        raise InvalidMove('cards must be an object like {"red": 2, "locomotive": 1}', "cards")
    for kind, n in value.items():
        if kind not in CARD_KINDS:
            raise InvalidMove(f"{quoted(kind)} is not a card colour; use one of {list(CARD_KINDS)}", "cards")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise InvalidMove("card counts must be non-negative integers", "cards")
    return payment(value)


def _keep_tickets(data: dict[str, Any]) -> mv.Move:
    tickets = data.get("tickets")
    if not isinstance(tickets, list) or not all(isinstance(t, str) for t in tickets):
        raise InvalidMove("tickets must be a list of ticket ids", "tickets")
    return mv.KeepTickets(tuple(tickets))


def _draw_card(data: dict[str, Any]) -> mv.Move:
    source = data.get("source")
    if source == "deck":
        if data.get("index") is not None:
            raise InvalidMove("a blind draw from the deck takes no index", "index")
        return mv.DrawCard("deck")
    if source == "market":
        index = data.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= 4:
            raise InvalidMove("index must be an integer from 0 to 4", "index")
        return mv.DrawCard("market", index)
    raise InvalidMove('source must be "deck" or "market"', "source")


_MOVE_PARSERS: dict[type[Any], Any] = {
    mv.KeepTickets: _keep_tickets,
    mv.DrawCard: _draw_card,
    mv.ClaimRoute: lambda d: mv.ClaimRoute(_str(d, "route"), _cards(d)),
    mv.PayTunnel: lambda d: mv.PayTunnel(_cards(d)),
    mv.DeclineTunnel: lambda d: mv.DeclineTunnel(),
    mv.DrawTickets: lambda d: mv.DrawTickets(),
    mv.BuildStation: lambda d: mv.BuildStation(_str(d, "city"), _cards(d)),
}

# Views.


def view_json(view: PlayerView) -> dict[str, Any]:
    """The view as the API serves it (docs/API.md): fresh lists and dicts, nothing shared with the view."""
    result: dict[str, Any] = {
        "map": view.map,
        "phase": view.phase,
        "current_seat": view.current_seat,
        "your_seat": view.your_seat,
        "first_seat": view.first_seat,
        "deciding_seats": list(view.deciding_seats),
        "players": [_public_player_json(p) for p in view.players],
        "market": list(view.market),
        "deck_size": view.deck_size,
        "discard_size": view.discard_size,
        "tickets_left": view.tickets_left,
        "routes": dict(view.routes),
        "stations": dict(view.stations),
        "tunnel": _tunnel_json(view.tunnel) if view.tunnel is not None else None,
        "last_round": view.last_round,
        "turns_left": view.turns_left,
        "hand": dict(view.hand),
        "tickets": list(view.tickets),
        "offered_tickets": list(view.offered_tickets),
    }
    final = view.final
    if final is not None:
        result["hands"] = [dict(hand) for hand in final.hands]
        result["player_tickets"] = [list(tickets) for tickets in final.player_tickets]
        result["end_reason"] = final.end_reason
        result["scores"] = [dataclasses.asdict(score) for score in final.scores]
        result["winner_seats"] = list(final.winner_seats)
    return result


def _public_player_json(p: PublicPlayer) -> dict[str, Any]:
    return {
        "seat": p.seat,
        "cards": p.cards,
        "tickets": p.tickets,
        "trains": p.trains,
        "stations": p.stations,
        "stations_left": p.stations_left,
        "score": p.score,
        "choosing_tickets": p.choosing_tickets,
    }


def _tunnel_json(t: TunnelView) -> dict[str, Any]:
    return {"seat": t.seat, "route": t.route, "cards": dict(t.cards), "revealed": list(t.revealed), "extra": t.extra}


__all__ = [
    "EVENT_SCHEMA_VERSION",
    "InvalidMove",
    "event_from_dict",
    "event_from_json",
    "event_to_dict",
    "event_to_json",
    "move_from_dict",
    "move_to_dict",
    "view_json",
]
