"""Who sees what (docs/RULES.md X-SEC-1): `view(state, viewer)` for the state, `redact(event, viewer)` for the log.

These two functions are the only place that decides visibility. A viewer is a seat number, or None for a
spectator. A player sees their own hand, tickets and ticket offers; everyone sees counts, the market, pile
sizes, claimed routes, stations and whatever a public action revealed. Nobody sees the order of a pile.
Once the game is over everything is public (`finished=True` for events; a finished state's view has a `final`).

A view is a `PlayerView`: frozen, its sequences tuples and its mappings fresh dicts typed read-only (`Mapping`:
cheaper than a proxy, and no part of the state is shared), so a bot may keep it while the game goes on. Its
JSON, the API's, is `view_json` in games/engine/codec.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from . import events as ev
from .cards import CARD_KINDS, total
from .moves import Payment
from .scoring import SeatScore
from .state import FINISHED, Phase, State

Viewer = int | None


@dataclass(frozen=True, slots=True)
class PublicPlayer:
    """What everyone sees of one seat."""

    seat: int
    cards: int  # train cards in hand
    tickets: int  # destination tickets held
    trains: int
    stations: int  # stations built
    stations_left: int
    score: int  # route points so far
    choosing_tickets: bool  # has tickets on offer to choose from


@dataclass(frozen=True, slots=True)
class TunnelView:
    """A tunnel claimed this turn, from its reveal to the end of the turn: all of it public (E-TUN-4)."""

    seat: int | None
    route: str
    cards: Payment  # what was played for it
    revealed: tuple[str, ...]
    extra: int  # the extra cards the reveal asks for


@dataclass(frozen=True, slots=True)
class FinalView:
    """What a finished game shows everyone: every hand and every seat's tickets, why it ended and the scores."""

    hands: tuple[Mapping[str, int], ...]
    player_tickets: tuple[tuple[str, ...], ...]
    end_reason: str | None
    scores: tuple[SeatScore, ...]  # empty until the game is scored
    winner_seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlayerView:
    """The game as one viewer may see it. A spectator (`your_seat` None) has an empty hand, tickets and offer."""

    map: str
    phase: Phase
    current_seat: int | None
    your_seat: int | None
    first_seat: int
    deciding_seats: tuple[int, ...]
    players: tuple[PublicPlayer, ...]
    market: tuple[str | None, ...]
    deck_size: int
    discard_size: int
    tickets_left: int
    routes: Mapping[str, int]  # claimed route -> its owner's seat
    stations: Mapping[str, int]  # city -> the seat whose station it holds
    tunnel: TunnelView | None
    last_round: bool
    turns_left: int | None
    hand: Mapping[str, int]  # the viewer's cards by kind, in CARD_KINDS order
    tickets: tuple[str, ...]  # the viewer's destination tickets
    offered_tickets: tuple[str, ...]  # the tickets the viewer is choosing from
    final: FinalView | None  # once the game is finished


def view(state: State, viewer: Viewer) -> PlayerView:
    """The game as `viewer` may see it."""
    s = state
    seat = viewer if viewer is not None and 0 <= viewer < s.player_count else None
    return PlayerView(
        map=s.board.name,
        phase=s.phase,
        current_seat=s.current,
        your_seat=seat,
        first_seat=s.first_seat,
        deciding_seats=s.deciders(),
        players=tuple(_public_player(s, i) for i in range(s.player_count)),
        market=tuple(s.market),
        deck_size=len(s.draw_pile),
        discard_size=total(s.discards),
        tickets_left=len(s.ticket_pile),
        routes=dict(s.route_owner),
        stations=dict(s.station_owner),
        tunnel=_tunnel(s),
        last_round=s.turns_left is not None,
        turns_left=s.turns_left,
        hand=_hand(s, seat) if seat is not None else {},
        tickets=tuple(s.players[seat].tickets) if seat is not None else (),
        offered_tickets=s.offered.get(seat, ()) if seat is not None else (),
        final=_final(s) if s.phase == FINISHED else None,
    )


def _public_player(s: State, seat: int) -> PublicPlayer:
    p = s.players[seat]
    # In PublicPlayer's field order: seat, cards, tickets, trains, stations, stations_left, score, choosing_tickets
    # (positional: a frozen dataclass takes keywords slower, and every view makes one per seat).
    left = s.board.stations_per_player - p.stations
    return PublicPlayer(seat, total(p.hand), len(p.tickets), p.trains, p.stations, left, p.score, seat in s.offered)


def _hand(s: State, seat: int) -> dict[str, int]:
    hand = s.players[seat].hand
    return {kind: hand[kind] for kind in CARD_KINDS if hand.get(kind)}


def _tunnel(s: State) -> TunnelView | None:
    # Shown from the reveal to the end of the turn: the revealed cards are public, and in no pile until the
    # turn ends (E-TUN-4), so every viewer can still account for every card.
    t = s.tunnel
    return None if t is None else TunnelView(s.current, t.route, t.played, t.revealed, t.extra)


def _final(s: State) -> FinalView:
    return FinalView(
        tuple(_hand(s, i) for i in range(s.player_count)),
        tuple(tuple(p.tickets) for p in s.players),
        s.end_reason,
        s.scores,
        s.winner_seats,
    )


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
