"""Why a bot makes a move, in a few words: "claims Berlin-Wien: ticket Berlin-Roma needs it" (en dashes).

`explain(view, move)` reads the seat's view and its ticket plan (plan.py), as the greedy bot does, and names
what the move is for: the ticket a claimed route serves, the colour a drawn card is for, the tickets kept.
"""

from __future__ import annotations

from games.engine import moves as mv
from games.engine.board import Board
from games.engine.cards import LOCOMOTIVE
from games.engine.view import PlayerView

from .plan import Plan, Position, cheapest_path, completed, plan_network, position
from .situation import cards_missing

DASH = "\u2013"  # an en dash between two city names


def city(board: Board, city_id: str) -> str:
    found = board.cities.get(city_id)
    return found.name if found else city_id


def route_name(board: Board, route_id: str) -> str:
    route = board.routes[route_id]
    return f"{city(board, route.a)}{DASH}{city(board, route.b)}"


def ticket_name(board: Board, ticket_id: str) -> str:
    ticket = board.tickets[ticket_id]
    return f"{city(board, ticket.a)}{DASH}{city(board, ticket.b)}"


def tickets_named(board: Board, tickets: tuple[str, ...] | list[str]) -> str:
    return ", ".join(ticket_name(board, t) for t in tickets) or "none"


def explain(view: PlayerView, move: mv.Move) -> str:
    pos = position(view)
    board = pos.board
    match move:
        case mv.KeepTickets(tickets=kept):
            return f"keeps tickets {tickets_named(board, kept)}"
        case mv.DrawTickets():
            return "draws tickets: its tickets are done and trains are left"
        case mv.ClaimRoute(route=route_id):
            return f"claims {route_name(board, route_id)}: {_route_purpose(view, pos, route_id)}"
        case mv.PayTunnel():
            tunnel = view.tunnel
            return f"pays the tunnel's extra cards for {route_name(board, tunnel.route)}" if tunnel is not None \
                else "pays the tunnel's extra cards"
        case mv.DeclineTunnel():
            return "declines the tunnel: the extra cards are worth more in hand"
        case mv.BuildStation(city=city_id):
            return f"builds a station in {city(board, city_id)}: {_station_purpose(view, pos, city_id)}"
        case mv.DrawCard(source="market", index=index):
            card = view.market[index] if index is not None else None
            return _card_purpose(view, pos, card)
        case mv.DrawCard():
            return "draws blind: no face-up card helps more"
    return "the only sensible move"


def _plan(view: PlayerView, pos: Position) -> Plan:
    return plan_network(pos, tuple(sorted(view.tickets)))


def _route_purpose(view: PlayerView, pos: Position, route_id: str) -> str:
    tickets = tuple(sorted(view.tickets))
    done = set(completed(pos, tickets))
    board = pos.board
    twin = board.routes[route_id].twin
    for ticket_id in tickets:
        if ticket_id in done:
            continue
        ticket = board.tickets[ticket_id]
        found = cheapest_path(pos, ticket.a, ticket.b, frozenset(), {}, can_build=False)
        if found and any(step in (route_id, twin) for step, _ in found[1]):
            return f"ticket {ticket_name(board, ticket_id)} needs it"
    newly = [t for t in completed(pos, tickets, route_id) if t not in done]
    if newly:
        return f"completes ticket {tickets_named(board, newly)}"
    length = board.routes[route_id].length
    return f"{board.route_points[length]} points for {length} trains"


def _station_purpose(view: PlayerView, pos: Position, city_id: str) -> str:
    plan = _plan(view, pos)
    borrowed = next((route for where, route in plan.stations if where == city_id), None)
    if borrowed is not None:
        return f"to use {route_name(pos.board, borrowed)} for a cut ticket"
    return "to use an opponent's route for a ticket"


def _card_purpose(view: PlayerView, pos: Position, card: str | None) -> str:
    if card is None:
        return "draws a face-up card"
    if card == LOCOMOTIVE:
        return "takes the face-up locomotive"
    plan = _plan(view, pos)
    hand = view.hand
    missing = cards_missing(pos, plan.routes, hand) if plan.routes else {}
    if missing.get(card):
        route = next((r for r in plan.routes if pos.board.routes[r].color == card), None)
        where = f" ({route_name(pos.board, route)})" if route else ""
        return f"draws {card} for a {card} route{where}"
    return f"draws {card}: it builds the largest set in hand"
