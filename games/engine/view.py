"""Who sees what (docs/RULES.md X-SEC-1): `view(state, viewer)` for the state, `redact(event, viewer)` for the log.

These two functions are the only place that decides visibility. A viewer is a seat number, or None for a
spectator. A player sees their own hand, tickets and ticket offers; everyone sees counts, the market, pile
sizes, claimed routes, stations and whatever a public action revealed. Nobody sees the order of a pile.
Once the game is over everything is public (`finished=True` for events; a finished state shows all).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from . import events as ev
from .cards import CARD_KINDS, total
from .moves import cards_of
from .state import FINISHED, State

Viewer = int | None


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """The game as `viewer` may see it, as plain data (dicts, lists, strings, numbers)."""
    s = state
    everything = s.phase == FINISHED
    seat = viewer if viewer is not None and 0 <= viewer < s.player_count else None
    result: dict[str, Any] = {
        "map": s.board.name,
        "phase": s.phase,
        "current_seat": s.current,
        "your_seat": seat,
        "first_seat": s.first_seat,
        "deciding_seats": list(s.deciders()),
        "players": [_public_player(s, i) for i in range(s.player_count)],
        "market": list(s.market),
        "deck_size": len(s.draw_pile),
        "discard_size": total(s.discards),
        "tickets_left": len(s.ticket_pile),
        "routes": dict(s.route_owner),
        "stations": dict(s.station_owner),
        "tunnel": _tunnel(s),
        "last_round": s.turns_left is not None,
        "turns_left": s.turns_left,
        "hand": _hand(s, seat) if seat is not None else {},
        "tickets": list(s.players[seat].tickets) if seat is not None else [],
        "offered_tickets": list(s.offered.get(seat, ())) if seat is not None else [],
    }
    if everything:
        result["hands"] = [_hand(s, i) for i in range(s.player_count)]
        result["player_tickets"] = [list(p.tickets) for p in s.players]
        result["end_reason"] = s.end_reason
        result["scores"] = [dataclasses.asdict(score) for score in s.scores]
        result["winner_seats"] = list(s.winner_seats)
    return result


def _public_player(s: State, seat: int) -> dict[str, Any]:
    p = s.players[seat]
    return {
        "seat": seat,
        "cards": total(p.hand),
        "tickets": len(p.tickets),
        "trains": p.trains,
        "stations": p.stations,
        "stations_left": s.board.stations_per_player - p.stations,
        "score": p.score,
        "choosing_tickets": seat in s.offered,
    }


def _hand(s: State, seat: int) -> dict[str, int]:
    hand = s.players[seat].hand
    return {kind: hand[kind] for kind in CARD_KINDS if hand.get(kind)}


def _tunnel(s: State) -> dict[str, Any] | None:
    # Shown from the reveal to the end of the turn: the revealed cards are public, and in no pile until the
    # turn ends (E-TUN-4), so every viewer can still account for every card.
    if s.tunnel is None:
        return None
    return {
        "seat": s.current,
        "route": s.tunnel.route,
        "cards": cards_of(s.tunnel.played),
        "revealed": list(s.tunnel.revealed),
        "extra": s.tunnel.extra,
    }


def redact(event: ev.Event, viewer: Viewer, *, finished: bool = False) -> ev.Event:
    """`event` as `viewer` may see it: hidden outcomes removed, public counts kept."""
    if finished:
        return event
    match event:
        case ev.DeckShuffled() | ev.TicketsShuffled():
            return _hide(event, "cards", "tickets", "long_tickets")
        case ev.CardsDealt(seat=seat) | ev.TicketsDealt(seat=seat) | ev.TicketsKept(seat=seat):
            return event if seat == viewer else _hide(event, "cards", "tickets", "kept", "returned")
        case ev.CardDrawn(seat=seat, source="deck"):
            return event if seat == viewer else _hide(event, "card")
        case _:
            return event


def _hide(event: ev.Event, *names: str) -> ev.Event:
    fields = {f.name for f in dataclasses.fields(event)}
    return dataclasses.replace(event, **{name: None for name in names if name in fields})  # type: ignore[arg-type]
