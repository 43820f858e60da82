"""Playouts: a sampled game played to its end by greedy-lite, the strong bot's fast default policy, on the
engine's in-place step over a State the search owns.

`play_out(state, seat, move, rng)` plays `move`, then every seat's greedy-lite moves until the game ends, and
answers the seat's final lead in points (its score less the best other seat's, `final_score`). On USA the other
seats draw new tickets once theirs are done, as the greedy bot does (`OTHERS_DRAW_TICKETS`); the seat itself
does not, its own draws being the question its searches ask.

Greedy-lite plays like the greedy bot without listing every legal move or building a view: the station its plan
borrows a route through, else a claim of a planned route (or, with nothing left to plan, of the longest route) as
soon as the hand pays for it, at the payment that spends fewest locomotives; else a face-up card of a colour the
plan misses, else a blind draw; a tunnel paid when it can be; the fewest tickets, those its plan serves best.
About four times cheaper a move than `greedy.choose_move`. What it decides as the greedy bot does (when to draw
tickets, which claims build the plan, which tunnels are too risky, which station, which long routes are worth
their trains, which cards the plan misses) it asks situation.py and greedy_cards.py, over the `Situation` it
builds from the State (`situation_of`). Each seat keeps its plan through the playout (`Plans`) and plans again
only when the board breaks it (a planned route taken or barred, new tickets, a station to build): replanning
after every claim on the board took most of a playout's time and changed almost no plan.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from games.engine import final_score, step
from games.engine import moves as mv
from games.engine.cards import LOCOMOTIVE
from games.engine.legal import random_legal_move
from games.engine.payment import Mixes, route_mixes, station_mixes, tunnel_mixes
from games.engine.rules import can_build_station, can_draw_second_card, claimable_routes
from games.engine.state import KEEP_TICKETS, SECOND_CARD, SETUP_TICKETS, TUNNEL_PAYMENT, State

from .greedy_cards import cards_missing
from .plan import SMALL_GAME, Plan, Position, plan_network
from .situation import Situation, plan_links, points_length, risky_tunnel, station_city, wants_tickets

OTHERS_DRAW_TICKETS = {"usa": True, "europe": False}  # by map: the other seats draw tickets as greedy does (USA
# 2-player +1.5 +- 2.2 points a game, level elsewhere; Europe 4-player fell from 45.0 % to 39.5 % of 200 games)
MAX_PLAYOUT_DECISIONS = 3000  # a guard: a whole game of bots takes 100 to 600 decisions


def play_out(state: State, seat: int, move: mv.Move, rng: random.Random) -> float:
    """Play `move` and then the whole game by greedy-lite on `state` (changed in place); the seat's final lead.
    Raises IllegalMove when `move` does not fit the sampled game."""
    state, _ = step(state, seat, move, rng, in_place=True)
    plans, positions = Plans(), Positions()
    for _ in range(MAX_PLAYOUT_DECISIONS):
        if state.finished:
            break
        decider = state.deciders()[0]
        others_draw = decider != seat and OTHERS_DRAW_TICKETS.get(state.board.name, False)
        move = lite_move(state, decider, rng, positions.of(state, decider), plans, draws_tickets=others_draw)
        state, _ = step(state, decider, move, rng, in_place=True)
    scored = final_score(state.board, state.player_count, state.route_owner, state.station_owner,
                         [p.tickets for p in state.players])
    totals = [s.total for s in scored.scores]
    return float(totals[seat] - max(t for i, t in enumerate(totals) if i != seat))


def position_of(state: State, seat: int) -> Position:
    """The planner's `Position` of `seat` in a State (plan.py reads views: this is the same from a State)."""
    player = state.players[seat]
    return Position(
        map_name=state.board.name, seat=seat, players=state.player_count, trains=player.trains,
        stations_left=state.board.stations_per_player - player.stations,
        claimed=frozenset(state.route_owner.items()), built=frozenset(state.station_owner.items()),
        owner=dict(state.route_owner), station_owner=dict(state.station_owner),
    )


class Positions:
    """Each seat's `Position` in one playout, made again only once the board has changed: claimed routes and
    built stations are only ever added (and the seat's trains and stations change only with them), so their
    counts tell. Most moves of a playout draw cards and change neither."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[tuple[int, int], Position]] = {}

    def of(self, state: State, seat: int) -> Position:
        board = (len(state.route_owner), len(state.station_owner))
        held = self._held.get(seat)
        if held is not None and held[0] == board:
            return held[1]
        pos = position_of(state, seat)
        self._held[seat] = (board, pos)
        return pos


def situation_of(state: State, seat: int, pos: Position, plan: Plan) -> Situation:
    """The `Situation` of `seat` in a State (the greedy bot builds it from a view): `plan` made on `pos`, and kept
    through claims since, so some of its routes may be the seat's by now."""
    return Situation(
        pos, state.players[seat].hand, plan, tuple(r for r in plan.routes if r not in state.route_owner),
        min(p.trains for p in state.players), state.turns_left is not None, len(state.ticket_pile),
    )


class Plans:
    """Each seat's plan in one playout, kept while it still holds: every route it has left to claim is free and
    open to the seat, no station is planned (those borrow routes others own), and the tickets are the same.
    A claim elsewhere on the board leaves such a plan as it was (it only closes routes the plan does not use).
    Whether it holds is asked again only once a route has been claimed (`_holds` reads nothing else that
    changes) or the tickets have: most moves of a playout draw cards."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[tuple[str, ...], Plan]] = {}
        self._checked: dict[int, tuple[list[str], int]] = {}  # by seat: its tickets and the claims on the
        # board when its held plan last held

    def of(self, state: State, seat: int, root: Position) -> Plan:
        checked = self._checked.get(seat)
        if checked is not None and checked[1] == len(state.route_owner) and checked[0] == state.players[seat].tickets:
            return self._held[seat][1]
        tickets = tuple(sorted(state.players[seat].tickets))
        held = self._held.get(seat)
        if held is not None and held[0] == tickets and _holds(state, seat, held[1]):
            self._checked[seat] = (list(state.players[seat].tickets), len(state.route_owner))
            return held[1]
        self._checked.pop(seat, None)
        plan = plan_network(root, tickets)
        self._held[seat] = (tickets, plan)
        return plan


def _holds(state: State, seat: int, plan: Plan) -> bool:
    if plan.stations:
        return False
    board, owner, trains = state.board, state.route_owner, state.players[seat].trains
    for route_id in plan.routes:
        if route_id in owner:
            if owner[route_id] != seat:
                return False
            continue
        route = board.routes[route_id]
        twin = owner.get(route.twin) if route.twin else None
        if route.length > trains or (twin is not None and (twin == seat or state.player_count <= SMALL_GAME)):
            return False
    return True


def lite_move(state: State, seat: int, rng: random.Random, root: Position, plans: Plans | None = None,
              draws_tickets: bool = False) -> mv.Move:
    """The move for `seat`; `root`: the seat's position its plan is made on (the board as it stands); `plans`:
    the plans kept through the playout (none: planned afresh); `draws_tickets`: the seat draws tickets once its
    own are done, as the greedy bot does (the other seats of a playout: the searching seat's own draws are what
    its searches ask)."""
    phase = state.phase
    if phase in (SETUP_TICKETS, KEEP_TICKETS):
        return _keep(state, seat, root)
    if phase == TUNNEL_PAYMENT:
        return _tunnel(state, seat)
    s = situation_of(state, seat, root, (plans or Plans()).of(state, seat, root))
    if phase != SECOND_CARD:
        if draws_tickets and wants_tickets(s):
            return mv.DrawTickets()
        action = _station(state, seat, s) or _claim(state, seat, s)
        if action is not None:
            return action
    missing = cards_missing(s.pos, s.building, s.hand) if s.building else {}
    draw = _draw(state, missing, second=phase == SECOND_CARD)
    if draw is not None:
        return draw
    move = random_legal_move(state, seat, rng)
    assert move is not None, "a seat that decides has a legal move"
    return move


def _keep(state: State, seat: int, pos: Position) -> mv.Move:
    """The fewest tickets allowed (C-TKT-1, E-SET-2), those whose plan with the held ones costs least."""
    offered = state.offered[seat]
    least = min(len(offered), 2 if state.phase == SETUP_TICKETS else 1)
    held = tuple(state.players[seat].tickets)
    points = state.board.tickets

    def cost(ticket_id: str) -> float:
        plan = plan_network(pos, tuple(sorted((*held, ticket_id))))
        return plan.trains - points[ticket_id].points + 3 * points[ticket_id].points * (ticket_id in plan.lost)

    return mv.KeepTickets(tuple(sorted(offered, key=lambda t: (cost(t), t))[:least]))


def _claim(state: State, seat: int, s: Situation) -> mv.Move | None:
    """The longest claimable route the plan builds (with nothing left to plan: one worth its trains), at the
    payment that spends fewest locomotives, unless it is a risky tunnel."""
    routes = claimable_routes(state, seat)
    if not routes:
        return None
    if s.building:
        links = plan_links(s)
        options = [r for r in routes if r.id in links]
    else:
        least = points_length(s)
        options = [r for r in routes if r.length >= least]
    for route in sorted(options, key=lambda r: (-r.length, -r.index)):
        paid = _fewest_locomotives(s.hand, route_mixes(s.hand, route))
        if not risky_tunnel(s, route, paid):
            return mv.ClaimRoute(route.id, paid)
    return None


def _station(state: State, seat: int, s: Situation) -> mv.Move | None:
    """The plan's first station, as soon as the hand pays for it (E-STA-1): it reconnects a cut ticket."""
    city = station_city(s)
    if city is None or city in state.station_owner or not can_build_station(state, seat):
        return None
    player = state.players[seat]
    pays = station_mixes(player.hand, player.stations + 1)
    return mv.BuildStation(city, _fewest_locomotives(player.hand, pays)) if len(pays) else None


def _fewest_locomotives(hand: Mapping[str, int], pays: Mixes) -> mv.Payment:
    """The payment among `pays` (not empty) that spends fewest locomotives, from the largest set of a colour."""
    return min((pays[i] for i in range(len(pays))), key=lambda p: (dict(p).get(LOCOMOTIVE, 0), -_held(hand, p)))


def _held(hand: Mapping[str, int], paid: mv.Payment) -> int:
    """How many of the paying colour the hand holds: pay from the largest set."""
    return max((hand.get(kind, 0) for kind, _ in paid if kind != LOCOMOTIVE), default=0)


def _draw(state: State, missing: dict[str, int], second: bool) -> mv.Move | None:
    for slot, card in enumerate(state.market):
        if card is not None and card != LOCOMOTIVE and missing.get(card, 0) > 0:
            return mv.DrawCard("market", slot)
    if state.draw_pile or state.discards:
        return mv.DrawCard("deck")
    if second and not can_draw_second_card(state):
        return None
    shown = next((i for i, c in enumerate(state.market) if c is not None and not (second and c == LOCOMOTIVE)), None)
    return mv.DrawCard("market", shown) if shown is not None else None


def _tunnel(state: State, seat: int) -> mv.Move:
    tunnel = state.tunnel
    assert tunnel is not None
    pays = tunnel_mixes(state.players[seat].hand, dict(tunnel.played), tunnel.extra)
    if len(pays):
        return mv.PayTunnel(min((pays[i] for i in range(len(pays))), key=lambda p: dict(p).get(LOCOMOTIVE, 0)))
    return mv.DeclineTunnel()
