"""Playouts: a sampled game played to its end by greedy-lite, the strong bot's fast default policy, on the
engine's in-place step over a State the search owns.

`play_out(state, seat, move, rng)` plays `move`, then every seat's greedy-lite moves until the game ends, and
answers the seat's final lead in points (its score less the best other seat's, `final_score`). On USA the other
seats draw new tickets once theirs are done, as the greedy bot does (`OTHERS_DRAW_TICKETS`); the seat itself
does not, its own draws being the question its searches ask. (The other seats may keep the tickets the greedy
bot would, `OTHERS_KEEP_LIKE_GREEDY`: tried, and off.)

Greedy-lite plays like the greedy bot without listing every legal move or building a view: the station its plan
borrows a route through, else a claim of a planned route (or, with nothing left to plan, of the longest route) as
soon as the hand pays for it, at the payment that spends fewest locomotives; else a face-up card of a colour the
plan misses, else a blind draw; a tunnel paid when it can be; the fewest tickets, those its plan serves best.
About four times cheaper a move than `greedy.choose_move`. What it decides as the greedy bot does (when to draw
tickets, which claims build the plan, which tunnels are too risky, which station, which long routes are worth
their trains, which cards the plan misses) it asks situation.py, over the `Situation` it builds from the State
(`situation_of`). Each seat keeps its plan through the playout (`Plans`) and plans again
only when the board breaks it (a planned route taken or barred, new tickets, a station to build): replanning
after every claim on the board took most of a playout's time and changed almost no plan.

A playout's `Seats` keeps, by seat, what greedy-lite reads of the plan and the board (`Known`: the routes still
to claim, the claims it wants as a bit mask, the cards those routes take whatever the hand), looked at again only
once the board or the seat's tickets change, and brought up to date without starting over when only the other
seats have claimed: most moves draw cards, and those read just the hand and the market.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from functools import cache, lru_cache
from itertools import combinations, islice

from games.engine import moves as mv
from games.engine import step
from games.engine.board import Board, Route, load_board
from games.engine.cards import LOCOMOTIVE
from games.engine.legal import random_legal_move
from games.engine.payment import Mixes, can_pay_route, route_colours, route_mixes, station_mixes, tunnel_mixes
from games.engine.rules import can_build_station, can_draw_second_card, claimable_mask
from games.engine.scoring import final_totals
from games.engine.state import FINISHED, KEEP_TICKETS, SECOND_CARD, SETUP_TICKETS, TUNNEL_PAYMENT, State

from .greedy import KEEP_RESERVE, SETUP_RESERVE, STATION_COST, TRAIN_COST
from .plan import SMALL_GAME, Plan, Position, plan_network
from .situation import (
    Flexible,
    Situation,
    endgame,
    need_parts_of,
    needs_of,
    risky,
    station_city,
    wants_tickets,
    worth_length,
)

OTHERS_KEEP_LIKE_GREEDY = False  # the other seats keep the tickets the greedy bot would (`greedy_keep`: a third
# opening ticket 65 % of the time) instead of the fewest. The truer model did not play better: USA 2-player -4.3
# +- 4.2 points a game, 73.5 % against 81.6 % wins (49 deals, 48 samples a decision; the README), so it is off
OTHERS_DRAW_TICKETS = {"usa": True, "europe": False}  # by map: the other seats draw tickets as greedy does (USA
# 2-player +1.5 +- 2.2 points a game, level elsewhere; Europe 4-player fell from 45.0 % to 39.5 % of 200 games)
FEW_CLAIMS = 4  # up to this many claims wanted, greedy-lite asks the hand about each; beyond, about all at once
MANY_TRAINS = 1000  # more than any seat has
MARKET_SLOTS = 5  # face-up cards (C-DRW-1)
MAX_PLAYOUT_DECISIONS = 3000  # a guard: a whole game of bots takes 100 to 600 decisions


Seen = tuple[frozenset[tuple[str, int]], frozenset[tuple[str, int]], dict[str, int], dict[str, int]]  # `_board_of`


def play_out(state: State, seat: int, move: mv.Move, rng: random.Random) -> float:
    """Play `move` and then the whole game by greedy-lite on `state` (changed in place); the seat's final lead.
    Raises IllegalMove when `move` does not fit the sampled game."""
    state, _ = step(state, seat, move, rng, in_place=True)
    seats = Seats()
    others_draw = OTHERS_DRAW_TICKETS.get(state.board.name, False)
    for _ in range(MAX_PLAYOUT_DECISIONS):
        if state.phase == FINISHED:
            break
        decider = state.current  # None only while the seats keep their setup tickets
        if decider is None:
            decider = state.deciders()[0]
        move = seats.move(state, decider, rng, draws_tickets=others_draw, other=decider != seat)
        state, _ = step(state, decider, move, rng, in_place=True)
    totals = final_totals(state.board, state.player_count, state.route_owner, state.station_owner,
                          [p.tickets for p in state.players])
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
    counts tell. Most moves of a playout draw cards and change neither. The seats' positions on one board
    share what they read of it (`Position.claimed`, `built`, `owner`, `station_owner`)."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[tuple[int, int], Position]] = {}
        self._board: tuple[tuple[int, int], Seen] | None = None  # the board as last seen

    def of(self, state: State, seat: int) -> Position:
        board = (len(state.route_owner), len(state.station_owner))
        held = self._held.get(seat)
        if held is not None and held[0] == board:
            return held[1]
        seen = self._board
        if seen is None or seen[0] != board:
            seen = self._board = (board, _board_of(state, seen))
        player, (claimed, built, owner, station_owner) = state.players[seat], seen[1]
        pos = Position(
            map_name=state.board.name, seat=seat, players=len(state.players), trains=player.trains,
            stations_left=state.board.stations_per_player - player.stations, claimed=claimed, built=built,
            owner=owner, station_owner=station_owner,
        )
        self._held[seat] = (board, pos)
        return pos


def _board_of(state: State, before: tuple[tuple[int, int], Seen] | None) -> Seen:
    """What every seat's `Position` reads of the board: `claimed`, `built`, `owner` and `station_owner`; from
    the board `before` (its counts and this) when only routes have been claimed since (claims are only ever
    added, in order: the new ones are the last)."""
    owner = state.route_owner
    if before is not None and before[0][1] == len(state.station_owner) and before[0][0] <= len(owner):
        (routes, _), (claimed, built, _, station_owner) = before
        claimed = claimed.union(islice(reversed(owner.items()), len(owner) - routes))
        return claimed, built, dict(owner), station_owner
    return (frozenset(owner.items()), frozenset(state.station_owner.items()), dict(owner),
            dict(state.station_owner))


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
        plan = self.kept(state, seat)
        return self.made(state, seat, root) if plan is None else plan

    def kept(self, state: State, seat: int) -> Plan | None:
        """The seat's plan if it still holds, else None (`made` makes the next)."""
        checked = self._checked.get(seat)
        if checked is not None and checked[1] == len(state.route_owner) and checked[0] == state.players[seat].tickets:
            return self._held[seat][1]
        held = self._held.get(seat)
        if held is not None and held[0] == tuple(sorted(state.players[seat].tickets)) and _holds(state, seat, held[1]):
            self._checked[seat] = (list(state.players[seat].tickets), len(state.route_owner))
            return held[1]
        return None

    def made(self, state: State, seat: int, root: Position) -> Plan:
        """A new plan for the seat, on `root`."""
        self._checked.pop(seat, None)
        tickets = tuple(sorted(state.players[seat].tickets))
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


class Seats:
    """What greedy-lite knows of each seat in one playout: its position and plan (`Positions`, `Plans`) and
    what follows from them alone (`Known`), looked at again only once the board (a claim, a station) or the
    seat's tickets have changed: a plan, a position and what follows from them read nothing else."""

    def __init__(self) -> None:
        self.positions = Positions()
        self.plans = Plans()
        self._known: dict[int, Known] = {}

    def known(self, state: State, seat: int) -> Known:
        known = self._known.get(seat)
        player = state.players[seat]
        if (known is not None and known.claims == len(state.route_owner) and known.built == len(state.station_owner)
                and known.tickets == player.tickets):  # (most moves draw cards: the board is as it was)
            return known
        plan = self.plans.kept(state, seat)
        if plan is None:
            plan = self.plans.made(state, seat, self.positions.of(state, seat))
        elif (known is not None and known.plan is plan and known.mine == (player.trains, player.stations)
              and known.tickets == player.tickets and known.moved(state, seat)):
            return known  # the others' claims or stations only: the same plan, the same seat
        known = self._known[seat] = Known(state, seat, self.positions, plan)
        return known

    def move(self, state: State, seat: int, rng: random.Random, draws_tickets: bool, other: bool = True) -> mv.Move:
        """`lite_move` in this playout; `other`: a seat other than the searching one (it keeps tickets as the
        greedy bot does and, when `draws_tickets`, draws them as it does)."""
        phase = state.phase
        if phase in (SETUP_TICKETS, KEEP_TICKETS):
            pos = self.positions.of(state, seat)
            return _keep_like_greedy(state, seat, pos) if other and OTHERS_KEEP_LIKE_GREEDY else _keep(state, seat, pos)
        if phase == TUNNEL_PAYMENT:
            return _tunnel(state, seat)
        return _turn(state, seat, rng, self.known(state, seat), draws_tickets and other)


class Known:
    """A seat's plan (kept through claims since it was made, so some of its routes may be the seat's by now),
    and what greedy-lite reads of it and of the board until the board or the seat's tickets change: the routes
    still to claim (`Situation.building`), the claims it wants as a bit mask over route indexes (those that
    build a planned link, `plan_links`; with nothing left to plan, those worth their trains, `points_length`)
    and which of them are still open to the seat, the cards the routes to claim take whatever the hand
    (`need_parts`), and the fewest trains any seat has left. The seat's `Position` is asked of `positions`
    when needed (or given)."""

    __slots__ = ("building", "built", "claims", "fewest_trains", "mine", "open", "open_mask", "open_twins",
                 "parts", "plan", "pos", "positions", "ranked", "tickets", "wanted")

    def __init__(self, state: State, seat: int, pos: Position | Positions, plan: Plan) -> None:
        owner = state.route_owner
        player = state.players[seat]
        self.tickets = list(player.tickets)
        self.mine = (player.trains, player.stations)
        self.plan = plan
        self.pos: Position | None = pos if isinstance(pos, Position) else None
        self.positions: Positions | None = None if isinstance(pos, Position) else pos
        self.building = tuple(r for r in plan.routes if r not in owner)
        board = state.board
        if self.building:
            routes, twins = board.routes, board.twin_masks
            wanted = 0
            for route_id in self.building:  # `plan_links`: either route of a double pair
                index = routes[route_id].index
                wanted |= 1 << index | twins[index]
            self.wanted = wanted
            # `need_parts` reads whether these are still open (`claimable`): the building routes' twins
            self.open_twins = tuple(t for r in self.building if (t := routes[r].twin) is not None and t not in owner)
        else:
            self.wanted = _at_least(board.name)[worth_length(player.trains)]
            self.open_twins = ()
        self.parts: tuple[dict[str, int], Flexible] | None = None
        few = self.wanted.bit_count() <= FEW_CLAIMS
        self.ranked = tuple(_routes_in(board, self.wanted, player.trains)) if few else None  # in claim order
        self._follow(state, seat)

    def moved(self, state: State, seat: int) -> bool:
        """Brought up to a board the other seats alone have changed since (claims, stations), the plan and the
        seat's trains and stations the same: False when the routes still to claim are not the same."""
        if tuple(r for r in self.plan.routes if r not in state.route_owner) != self.building:
            return False
        self._follow(state, seat)
        return True

    def _follow(self, state: State, seat: int) -> None:
        """What changes with the others' claims and stations."""
        owner = state.route_owner
        self.claims, self.built = len(owner), len(state.station_owner)
        if self.positions is not None:
            self.pos = None  # the position changes with the board: asked again when needed
        if self.open_twins and any(t in owner for t in self.open_twins):  # a twin claimed: the colours that pay
            self.open_twins = tuple(t for t in self.open_twins if t not in owner)  # for its route change
            self.parts = None
        self.fewest_trains = min([p.trains for p in state.players])
        closed = state.closed | state.players[seat].barred
        self.open_mask = self.wanted & ~closed
        ranked = self.ranked
        if ranked is None:
            self.open = None
        elif self.wanted & closed:
            self.open = tuple(r for r in ranked if not closed >> r.index & 1)
        else:
            self.open = ranked

    def position(self, state: State, seat: int) -> Position:
        if self.pos is None:
            assert self.positions is not None
            self.pos = self.positions.of(state, seat)
        return self.pos

    def need_parts(self, state: State, seat: int) -> tuple[dict[str, int], Flexible]:
        """`need_parts` of the routes still to claim (asked only by a seat that draws cards), read from the State:
        a twin of one of those routes is open to the seat when nobody has it and the seat has the trains."""
        if self.parts is None:
            self.parts = need_parts_of(state.board.name, self.building, state.route_owner, self.mine[0])
        return self.parts

    def situation(self, state: State, seat: int) -> Situation:
        return Situation(self.position(state, seat), state.players[seat].hand, self.plan, self.building,
                         self.fewest_trains, state.turns_left is not None, len(state.ticket_pile))


@cache
def _at_least(map_name: str) -> tuple[int, ...]:
    """By length n, the bit mask of the routes at least n long."""
    routes = load_board(map_name).route_list
    return tuple(sum(1 << r.index for r in routes if r.length >= n) for n in range(max(r.length for r in routes) + 2))


def lite_move(state: State, seat: int, rng: random.Random, root: Position, plans: Plans | None = None,
              draws_tickets: bool = False) -> mv.Move:
    """The move for `seat`; `root`: the seat's position its plan is made on (the board as it stands); `plans`:
    the plans kept through the playout (none: planned afresh); `draws_tickets`: the seat draws tickets once its
    own are done, as the greedy bot does (the other seats of a playout: the searching seat's own draws are what
    its searches ask). A playout asks its `Seats` instead, which keeps what it knows of each seat."""
    phase = state.phase
    if phase in (SETUP_TICKETS, KEEP_TICKETS):
        return _keep(state, seat, root)
    if phase == TUNNEL_PAYMENT:
        return _tunnel(state, seat)
    return _turn(state, seat, rng, Known(state, seat, root, (plans or Plans()).of(state, seat, root)), draws_tickets)


def _turn(state: State, seat: int, rng: random.Random, known: Known, draws_tickets: bool) -> mv.Move:
    phase = state.phase
    if phase != SECOND_CARD:
        if draws_tickets and wants_tickets(known.situation(state, seat)):
            return mv.DrawTickets()
        action = _station(state, seat, known) if known.plan.stations else None
        if action is None:
            action = _claim(state, seat, known)
        if action is not None:
            return action
    if known.building:  # the cards the plan misses: those it needs beyond the hand (`cards_missing`)
        hand = state.players[seat].hand
        fixed, flexible = known.parts or known.need_parts(state, seat)
        draw = _draw(state, needs_of(fixed, flexible, hand) if flexible else fixed, hand, phase == SECOND_CARD)
    else:
        draw = _draw(state, {}, {}, phase == SECOND_CARD)
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


def _keep_like_greedy(state: State, seat: int, pos: Position) -> mv.Move:
    """The ticket choice the greedy bot makes (`greedy.ranked_keeps` from a State)."""
    setup = state.phase == SETUP_TICKETS
    return mv.KeepTickets(greedy_keep(pos, tuple(state.players[seat].tickets), tuple(state.offered[seat]), setup))


def greedy_keep(pos: Position, held: tuple[str, ...], offered: tuple[str, ...], setup: bool) -> tuple[str, ...]:
    """The tickets the greedy bot keeps of `offered` (C-TKT-1, E-SET-2): of every choice allowed, in the order of
    the legal moves (ties go to the first), the one whose plan with the `held` tickets, within the seat's trains
    less the greedy bot's reserve, expects the most points less what its trains and stations cost."""
    least = min(len(offered), 2 if setup else 1)
    budget = pos.trains - (SETUP_RESERVE if setup else KEEP_RESERVE)
    points = load_board(pos.map_name).tickets
    best: tuple[str, ...] = offered[:least]
    top = -float("inf")
    for size in range(len(offered), least - 1, -1):
        for chosen in combinations(offered, size):
            plan = plan_network(pos, tuple(sorted((*held, *chosen))), budget)
            value = (sum(points[t].points for t in plan.kept) - sum(points[t].points for t in plan.lost)
                     - TRAIN_COST * plan.trains - STATION_COST * len(plan.stations))
            if value > top:
                best, top = chosen, value
    return best


@lru_cache(maxsize=4096)
def opening_keep(map_name: str, players: int, dealt: tuple[str, ...]) -> tuple[str, ...]:
    """The tickets the greedy bot keeps of its opening deal `dealt`, on the empty board (the same for every
    seat): what a search's belief asks of the other seats' hidden opening deals (`belief.draw_tickets`)."""
    board = load_board(map_name)
    pos = Position(map_name=map_name, seat=0, players=players, trains=board.trains_per_player,
                   stations_left=board.stations_per_player, claimed=frozenset(), built=frozenset(), owner={},
                   station_owner={})
    return greedy_keep(pos, (), dealt, setup=True)


def _claim(state: State, seat: int, known: Known) -> mv.Move | None:
    """The longest claimable route the plan builds (with nothing left to plan: one worth its trains), at the
    payment that spends fewest locomotives, unless it is a risky tunnel. (`claimable_routes` among the
    wanted ones: those open to the seat that the hand pays for.)"""
    hand = state.players[seat].hand
    options: Iterable[Route] | None = known.open
    paying = options is None
    if options is None:  # many: the hand tried on every route at once, on bit masks (those it pays for)
        options = _routes_in(state.board, claimable_mask(state, seat) & known.open_mask)
    for route in options:
        if paying or can_pay_route(hand, route):
            paid = _fewest_locomotives_for(hand, route)
            if not route.tunnel or not risky(route, paid, hand, endgame(state.turns_left is not None, known.fewest_trains)):
                return mv.ClaimRoute(route.id, paid)
    return None


def _routes_in(board: Board, mask: int, trains: int = MANY_TRAINS) -> Iterator[Route]:
    """The routes of a bit mask over route indexes that take at most `trains`, in the order greedy-lite tries
    its claims: longest first, then last on the board first."""
    routes = board.route_list
    for length, of_length in _by_length(board.name):
        if length <= trains:
            found = mask & of_length
            while found:
                last = found.bit_length() - 1
                found ^= 1 << last
                yield routes[last]


@cache
def _by_length(map_name: str) -> tuple[tuple[int, int], ...]:
    """Each route length, longest first, with the bit mask of the routes that long."""
    routes = load_board(map_name).route_list
    return tuple((n, sum(1 << r.index for r in routes if r.length == n)) for n in sorted({r.length for r in routes},
                                                                                         reverse=True))


def _station(state: State, seat: int, known: Known) -> mv.Move | None:
    """The plan's first station, as soon as the hand pays for it (E-STA-1): it reconnects a cut ticket."""
    if not known.plan.stations:
        return None
    city = station_city(known.situation(state, seat))
    if city is None or city in state.station_owner or not can_build_station(state, seat):
        return None
    player = state.players[seat]
    pays = station_mixes(player.hand, player.stations + 1)
    return mv.BuildStation(city, _fewest_locomotives(player.hand, pays)) if len(pays) else None


def _fewest_locomotives(hand: Mapping[str, int], pays: Mixes) -> mv.Payment:
    """The payment among `pays` (not empty) that spends fewest locomotives, from the largest set of a colour."""
    return min((pays[i] for i in range(len(pays))), key=lambda p: (dict(p).get(LOCOMOTIVE, 0), -_held(hand, p)))


def _fewest_locomotives_for(hand: Mapping[str, int], route: Route) -> mv.Payment:
    """`_fewest_locomotives(hand, route_mixes(hand, route))` without listing the payments: of each colour that
    pays, as many cards as it takes (fewest locomotives), the first colour that needs fewest locomotives and
    is held most; all locomotives only when no colour pays."""
    size = route.length
    locos = hand.get(LOCOMOTIVE, 0)
    lo = size - locos if size - locos > 1 else 1
    top = size - route.ferry_locomotives
    best, most = 0, 0
    colour = ""
    for option in route_colours(route):
        held = hand.get(option, 0)
        k = held if held < top else top
        if k >= lo and (k > best or (k == best and held > most)):
            colour, best, most = option, k, held
    if not colour:
        return _fewest_locomotives(hand, route_mixes(hand, route))  # all locomotives
    return ((colour, best), (LOCOMOTIVE, size - best)) if best < size else ((colour, best),)


def _held(hand: Mapping[str, int], paid: mv.Payment) -> int:
    """How many of the paying colour the hand holds: pay from the largest set."""
    return max((hand.get(kind, 0) for kind, _ in paid if kind != LOCOMOTIVE), default=0)


def _draw(state: State, need: Mapping[str, int], hand: Mapping[str, int], second: bool) -> mv.Move | None:
    """The first face-up colour the plan misses (`need` beyond `hand`: `cards_missing`), else a blind draw."""
    missing = [kind for kind, n in need.items() if n > hand.get(kind, 0) and kind != LOCOMOTIVE]
    if missing:
        for slot, card in enumerate(state.market):
            if card in missing:
                return _FACE_UP[slot]
    if state.draw_pile or state.discards:
        return _BLIND
    if second and not can_draw_second_card(state):
        return None
    shown = next((i for i, c in enumerate(state.market) if c is not None and not (second and c == LOCOMOTIVE)), None)
    return _FACE_UP[shown] if shown is not None else None


# The card draws greedy-lite makes, made once (a move is an immutable value)
_BLIND = mv.DrawCard("deck")
_FACE_UP = tuple(mv.DrawCard("market", slot) for slot in range(MARKET_SLOTS))


def _tunnel(state: State, seat: int) -> mv.Move:
    tunnel = state.tunnel
    assert tunnel is not None
    pays = tunnel_mixes(state.players[seat].hand, dict(tunnel.played), tunnel.extra)
    if len(pays):
        return mv.PayTunnel(min((pays[i] for i in range(len(pays))), key=lambda p: dict(p).get(LOCOMOTIVE, 0)))
    return mv.DeclineTunnel()
