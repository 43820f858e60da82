"""The greedy bot: each decision it plans a network for its destination tickets and plays one step towards it.

`choose(decision)` reads only the seat's view and the board data, and always returns one of the legal moves,
with the reason (reasons.py); `choose_move(view, moves)` is the move alone (the strong bot's search uses it).
It keeps the tickets whose shared network fits its trains, claims planned routes as soon as it can pay for them
(long ones first, tunnels only with cards to spare), draws the colours the plan still misses, builds a station
only to reconnect a cut ticket, draws new tickets once all its tickets are done, and near the end of the game
(C-END-1) plays for points: the longest routes it can pay for, and on its last turn the claim worth most.

Its own choices are here, down to which payment to make and which face-up card to take. The rules of thumb it
shares with greedy-lite, the strong bot's playout policy, are situation.py's (the cards a plan takes among them),
and the plans plan.py's: a decision goes down to them and comes back, and neither calls this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from games.engine import moves as mv
from games.engine.cards import LOCOMOTIVE
from games.engine.moves import Payment
from games.engine.state import KEEP_TICKETS, SECOND_CARD, SETUP_TICKETS, TUNNEL_PAYMENT
from games.engine.view import PlayerView

from .decision import Choice, Decision
from .plan import Position, claimable, completed, plan_network, position
from .reasons import explain
from .situation import (
    ANY,
    Situation,
    cards_missing,
    needs,
    plan_links,
    points_length,
    risky_tunnel,
    station_city,
    wants_tickets,
)

SETUP_RESERVE = 15  # trains kept out of the opening plan: routes get cut, detours cost, and tickets come later
KEEP_RESERVE = 4  # and out of a plan made mid-game, when the board is known better
TRAIN_COST = 0.2  # per train a ticket set's plan takes: longer plans take turns and risk cuts
STATION_COST = 6.0  # a planned station: the 4 points an unbuilt one keeps (E-STA-4) and its cards
HOARD = 12  # ... and any route is, once the hand holds this many cards
HOPELESS = 4  # near the end, a plan missing more cards than this will not be finished: take points instead
LOCOMOTIVE_COST = 3.0  # a locomotive pays for any colour and any ferry: spend one only when no colour will do
NEEDED_COST = 1.0  # a card some other planned route still needs
SPARE_COST = 0.1  # a card nothing needs: almost free, but fewer cards spent is still better


def choose(decision: Decision) -> Choice:
    """The greedy move for the deciding seat, and why (deterministic: the decision's `rng` goes unused)."""
    move = choose_move(decision.view, decision.moves)
    return Choice(move, explain(decision.view, move))


def choose_move(view: PlayerView, moves: Sequence[mv.Move]) -> mv.Move:
    """The greedy move among `moves` for the seat whose `view` this is."""
    phase = view.phase
    if phase in (SETUP_TICKETS, KEEP_TICKETS):
        move = _keep_tickets(view, moves)
    elif phase == TUNNEL_PAYMENT:
        move = _tunnel_payment(view_situation(view), moves)
    elif phase == SECOND_CARD:
        move = _draw_card(view_situation(view), moves, second=True)
    else:
        move = _turn(view_situation(view), moves)
    return move if move is not None else _fallback(moves)


@dataclass(slots=True)
class GreedySituation(Situation):
    """The shared `Situation` as the seat's view shows it, with what the greedy bot alone weighs: the view (the
    market, a tunnel), the seat's tickets and the cards it misses."""

    view: PlayerView
    tickets: tuple[str, ...]
    missing: dict[str, int]  # cards the planned routes need beyond the hand, by kind (before locomotives); with
    # nothing to plan, the colour to collect


def view_situation(view: PlayerView) -> GreedySituation:
    """The seat's situation from its view (greedy-lite builds the same from a State: rollout.situation_of)."""
    pos = position(view)
    tickets = tuple(sorted(view.tickets))
    plan = plan_network(pos, tickets)  # planned on the board as it stands: none of its routes is claimed yet
    return GreedySituation(
        pos=pos,
        hand=view.hand,
        plan=plan,
        building=plan.routes,
        fewest_trains=min(p.trains for p in view.players),
        last_round=view.last_round,
        tickets_left=view.tickets_left,
        view=view,
        tickets=tickets,
        missing=cards_missing(pos, plan.routes, view.hand) if plan.routes else _points_target(view.hand),
    )


def _points_target(hand: Mapping[str, int]) -> dict[str, int]:
    """With nothing to plan, collect the colour the hand holds most of: long routes score best (C-CLM-2)."""
    colours = {kind: n for kind, n in hand.items() if kind != LOCOMOTIVE}
    if not colours:
        return {}
    return {max(colours, key=lambda c: (colours[c], c)): 1}


# Destination tickets.


def _keep_tickets(view: PlayerView, moves: Sequence[mv.Move]) -> mv.Move | None:
    ranked = ranked_keeps(view, moves)
    return ranked[0] if ranked else None


def ranked_keeps(view: PlayerView, moves: Sequence[mv.Move]) -> list[mv.KeepTickets]:
    """The ticket choices among `moves`, best first by the points their plan expects (ties: the order given)."""
    keeps = [m for m in moves if isinstance(m, mv.KeepTickets)]
    pos = position(view)
    held = view.tickets
    reserve = SETUP_RESERVE if view.phase == SETUP_TICKETS else KEEP_RESERVE
    value = {m: _keep_value(pos, held + m.tickets, pos.trains - reserve) for m in keeps}
    return sorted(keeps, key=lambda m: -value[m])


def _keep_value(pos: Position, tickets: tuple[str, ...], budget: int) -> float:
    """Points the ticket set's plan expects (completed minus given up), less what its trains and stations cost."""
    plan = plan_network(pos, tuple(sorted(tickets)), budget)
    points = pos.board.tickets
    won = sum(points[t].points for t in plan.kept)
    lost = sum(points[t].points for t in plan.lost)
    return won - lost - TRAIN_COST * plan.trains - STATION_COST * len(plan.stations)


# A turn: the first action that applies, in this order.


def _turn(s: GreedySituation, moves: Sequence[mv.Move]) -> mv.Move | None:
    claims = claims_by_route(moves)
    if s.last_round:
        return _last_turn(s, moves, claims)
    for step in (_build_station, _claim_planned, _claim_for_points):
        move = step(s, moves, claims)
        if move is not None:
            return move
    if wants_tickets(s):
        draw = next((m for m in moves if isinstance(m, mv.DrawTickets)), None)
        if draw is not None:
            return draw
    return _draw_card(s, moves, second=False)


Claims = dict[str, list[mv.ClaimRoute]]


def claims_by_route(moves: Sequence[mv.Move]) -> Claims:
    """The claims among `moves`, by route (one per payment the hand allows)."""
    claims: Claims = {}
    for move in moves:
        if isinstance(move, mv.ClaimRoute):
            claims.setdefault(move.route, []).append(move)
    return claims


def _other_needs(s: GreedySituation, route_id: str) -> dict[str, int]:
    twin = s.pos.board.routes[route_id].twin
    return needs(s.pos, [r for r in s.building if r not in (route_id, twin)], s.hand)


def cheapest_claim(options: list[mv.ClaimRoute], hand: Mapping[str, int], other_needs: Mapping[str, int]) -> mv.ClaimRoute:
    """The claim among `options` (one route's) whose payment costs the hand least (`payment_cost`)."""
    paid = cheapest_payment((m.cards for m in options), hand, other_needs)
    return next(m for m in options if m.cards == paid)


def payment_cost(paid: Payment, hand: Mapping[str, int], other_needs: Mapping[str, int]) -> float:
    """What a payment costs the rest of the plan: locomotives dearly, needed colours more than spare ones."""
    cost = 0.0
    for kind, n in paid:
        if kind == LOCOMOTIVE:
            cost += LOCOMOTIVE_COST * n
            continue
        spare = max(0, hand.get(kind, 0) - other_needs.get(kind, 0))
        cost += SPARE_COST * n + NEEDED_COST * max(0, n - spare)
    return cost


def cheapest_payment(payments: Iterable[Payment], hand: Mapping[str, int], other_needs: Mapping[str, int]) -> Payment:
    return min(payments, key=lambda paid: payment_cost(paid, hand, other_needs))


def _claim_planned(s: GreedySituation, moves: Sequence[mv.Move], claims: Claims) -> mv.Move | None:
    board = s.pos.board
    links = plan_links(s)
    planned = sorted((r for r in claims if r in links), key=lambda r: (-_contested(s, r), -board.routes[r].length, r))
    for route_id in planned:
        move = cheapest_claim(claims[route_id], s.hand, _other_needs(s, route_id))
        if not _risky(s, move):
            return move
    return None


def _contested(s: GreedySituation, route_id: str) -> bool:
    """A route others may well take first: the only way left between its cities (no open twin) and touching an
    opponent's network. Such routes are claimed before the others of the plan."""
    route = s.pos.board.routes[route_id]
    twin = s.pos.board.routes[route.twin] if route.twin else None
    if twin is not None and claimable(s.pos, twin):
        return False
    cities = (route.a, route.b)
    theirs = (s.pos.board.routes[r] for r, seat in s.pos.owner.items() if seat != s.pos.seat)
    return any(other.a in cities or other.b in cities for other in theirs)


def _risky(s: GreedySituation, claim: mv.ClaimRoute) -> bool:
    return risky_tunnel(s, s.pos.board.routes[claim.route], claim.cards)


def _claim_for_points(s: GreedySituation, moves: Sequence[mv.Move], claims: Claims) -> mv.Move | None:
    """With nothing left to plan (or no time left to finish the plan), the longest route worth its trains.
    (Spending spare cards on such routes while a plan is under way was tried: it lost 60-40 to waiting.)"""
    hopeless = s.endgame and sum(s.missing.values()) - s.hand.get(LOCOMOTIVE, 0) > HOPELESS
    if (s.building and not hopeless) or wants_tickets(s):
        return None
    board = s.pos.board
    enough = 1 if s.endgame or sum(s.hand.values()) >= HOARD else points_length(s)
    worth = [cheapest_claim(claims[r], s.hand, {}) for r in claims if board.routes[r].length >= enough]
    worth = [m for m in worth if not _risky(s, m)]
    if not worth:
        return None
    return max(worth, key=lambda m: (board.routes[m.route].length, _touches_network(s, m.route), m.route))


def _touches_network(s: GreedySituation, route_id: str) -> bool:
    """Whether the route extends the seat's own network (and so, likely, its longest path: C-LNG-1)."""
    route = s.pos.board.routes[route_id]
    mine = (s.pos.board.routes[r] for r, seat in s.pos.owner.items() if seat == s.pos.seat)
    return any(route.a in (m.a, m.b) or route.b in (m.a, m.b) for m in mine)


def _last_turn(s: GreedySituation, moves: Sequence[mv.Move], claims: Claims) -> mv.Move | None:
    """Every seat's turn in the last round is its last (C-END-1): take the claim worth most now, counting the
    tickets it completes twice (from minus to plus, C-TKT-3); else a station that completes one; else cards."""
    if s.plan.stations and not s.building:
        station = _build_station(s, moves, claims)
        if station is not None:
            return station
    if claims:
        points = s.pos.board.route_points
        done = set(completed(s.pos, s.tickets))
        tickets = s.pos.board.tickets

        def value(route_id: str) -> int:
            newly = [t for t in completed(s.pos, s.tickets, route_id) if t not in done]
            return points[s.pos.board.routes[route_id].length] + 2 * sum(tickets[t].points for t in newly)

        best = max(claims, key=lambda r: (value(r), r))
        return cheapest_claim(claims[best], s.hand, {})
    return _draw_card(s, moves, second=False)


# Stations (E-STA-1..3) and tunnels (E-TUN-2..3).


def _build_station(s: GreedySituation, moves: Sequence[mv.Move], claims: Claims) -> mv.Move | None:
    city = station_city(s)
    if city is None:
        return None
    options = [m for m in moves if isinstance(m, mv.BuildStation) and m.city == city]
    if not options:
        return None
    other_needs = needs(s.pos, s.building, s.hand)
    paid = cheapest_payment((m.cards for m in options), s.hand, other_needs)
    return next(m for m in options if m.cards == paid)


def _tunnel_payment(s: GreedySituation, moves: Sequence[mv.Move]) -> mv.Move | None:
    """Pay a tunnel's extra cards when the route matters (planned, long, or the game is ending), else decline."""
    pays = [m for m in moves if isinstance(m, mv.PayTunnel)]
    route_id = s.view.tunnel.route if s.view.tunnel is not None else None
    matters = route_id is not None and (route_id in plan_links(s) or s.endgame or not s.building)
    if pays and matters:
        other_needs = _other_needs(s, route_id) if route_id else {}
        paid = cheapest_payment((m.cards for m in pays), s.hand, other_needs)
        return next(m for m in pays if m.cards == paid)
    return next((m for m in moves if isinstance(m, mv.DeclineTunnel)), None)


# Drawing train cards (C-DRW-1..3).


def _draw_card(s: GreedySituation, moves: Sequence[mv.Move], second: bool) -> mv.Move | None:
    draws = [m for m in moves if isinstance(m, mv.DrawCard)]
    if not draws:
        return None
    market = s.view.market
    slot = market_choice(market, s.missing, s.hand)
    if slot is None and not second and _wants_locomotive(s):
        slot = locomotive_slot(market)
    if slot is not None:
        chosen = mv.DrawCard("market", slot)
        if chosen in draws:
            return chosen
    blind = mv.DrawCard("deck")
    return blind if blind in draws else draws[0]


def market_choice(market: Sequence[str | None], missing: Mapping[str, int], hand: Mapping[str, int]) -> int | None:
    """The face-up slot with the colour the plan misses most; failing that, when a gray route needs `ANY`
    colour, the colour the hand holds most of (sets grow); None when no face-up colour helps."""
    def value(card: str) -> tuple[int, int]:
        return missing.get(card, 0), hand.get(card, 0)

    useful = [
        slot
        for slot, card in enumerate(market)
        if card is not None and card != LOCOMOTIVE and (missing.get(card, 0) > 0 or missing.get(ANY, 0) > 0)
    ]
    return max(useful, key=lambda slot: value(market[slot] or ""), default=None)


def locomotive_slot(market: Sequence[str | None]) -> int | None:
    return next((slot for slot, card in enumerate(market) if card == LOCOMOTIVE), None)


def _wants_locomotive(s: GreedySituation) -> bool:
    """A face-up locomotive ends the draw (C-DRW-2): worth it for a ferry's locomotives. Otherwise two blind cards
    do better (taking it whenever several cards were missing lost 40-60 on the USA map)."""
    return bool(s.building) and s.missing.get(LOCOMOTIVE, 0) > 0


def _fallback(moves: Sequence[mv.Move]) -> mv.Move:
    """Any legal move, the harmless ones first: cards, a claim, tickets, and a station (it costs 4 points) last."""
    claims = [m for m in moves if isinstance(m, mv.ClaimRoute)]
    if claims and not any(isinstance(m, mv.DrawCard) for m in moves):
        return min(claims, key=lambda m: payment_cost(m.cards, {}, {}))
    for kind in (mv.DrawCard, mv.PayTunnel, mv.KeepTickets, mv.DeclineTunnel, mv.DrawTickets):
        found = next((m for m in moves if isinstance(m, kind)), None)
        if found is not None:
            return found
    return moves[0]
