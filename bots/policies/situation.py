"""What one greedy decision knows (`Situation`), and the decisions the greedy bot and greedy-lite make alike.

The greedy bot (greedy.py) reads its seat's view and the legal moves; greedy-lite (rollout.py), the strong bot's
playout policy, reads a State it owns and lists no moves. Both play one strategy: plan a network for the tickets,
claim its routes, draw the cards it misses. So each builds the same `Situation` (the greedy bot from a
`PlayerView`, greedy-lite from a State) and asks the questions they answer alike here: whether the game is
ending, which claims build the plan, whether a tunnel is too risky, which station to build, how long a route must
be to be worth its trains, whether to draw new tickets, which cards the plan misses. Where they differ
(greedy-lite takes the first useful face-up card, pays with fewest locomotives and keeps the fewest tickets: about
four times cheaper a move), each keeps its own way.

Below the greedy bot and greedy-lite, above the planner (plan.py): nothing here calls either of them back. A plan's
cards are counted by kind: a coloured route needs its colour, a gray route (or a double route whose two colours
differ) the colour the hand and the other needs suit best, a ferry its locomotives (E-FER-1).
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from games.engine.board import Route, load_board
from games.engine.cards import COLOURS, GRAY, LOCOMOTIVE
from games.engine.moves import Payment

from .plan import Plan, Position

ENDGAME_TRAINS = 6  # once a seat is this close to ending the game (C-END-1), unfinished plans give way to points
TICKET_DRAW_TRAINS = 15  # new tickets only with trains enough to build a few more routes
TICKET_DRAW_TIME = 12  # ... and turns enough: every seat still this many trains from ending the game (C-END-1)
LONG_ROUTE = 4  # with nothing left to plan, a route this long is worth its trains (C-CLM-2: 7 points for 4)
TUNNEL_SPARE = 2  # a tunnel asks for 2 or more extra cards about one time in seven (E-TUN-2): keep 2 for it
ANY = GRAY  # the need of a gray route no colour in hand is assigned to yet


@dataclass(slots=True)
class Situation:
    """The seat's position, hand and plan, the plan's routes still to claim, and how near the end the game is.
    Not frozen: greedy-lite builds one every decision of every playout, where a frozen dataclass's slower
    construction shows; nobody changes one."""

    pos: Position
    hand: Mapping[str, int]
    plan: Plan
    building: tuple[str, ...]  # the plan's routes nobody has claimed yet
    fewest_trains: int  # the fewest trains any seat has left (C-END-1)
    last_round: bool
    tickets_left: int  # in the ticket pile

    @property
    def endgame(self) -> bool:
        """The last turns: the last round, or a seat within ENDGAME_TRAINS of starting it (C-END-1)."""
        return endgame(self.last_round, self.fewest_trains)


def endgame(last_round: bool, fewest_trains: int) -> bool:
    """`Situation.endgame` of a game in its last round or not, and the fewest trains a seat has left."""
    return last_round or fewest_trains <= ENDGAME_TRAINS


def plan_links(s: Situation) -> set[str]:
    """The routes whose claim builds a planned link: either route of a double pair serves."""
    board = s.pos.board
    links = set(s.building)
    links.update(twin for r in s.building if (twin := board.routes[r].twin) is not None)
    return links


def risky_tunnel(s: Situation, route: Route, paid: Payment) -> bool:
    """A tunnel claimed without cards to spare for its extra cards (E-TUN-2) mostly wastes the turn; near the
    end there is no time to wait for them."""
    return risky(route, paid, s.hand, s.endgame)


def risky(route: Route, paid: Payment, hand: Mapping[str, int], endgame: bool) -> bool:
    """`risky_tunnel`, given the hand and whether it is the `endgame`."""
    return route.tunnel and not endgame and tunnel_spare(paid, hand) < TUNNEL_SPARE


def tunnel_spare(paid: Payment, hand: Mapping[str, int]) -> int:
    """Cards left in hand after `paid` that could pay a tunnel's extra cards (its colour and locomotives)."""
    colour = next((kind for kind, _ in paid if kind != LOCOMOTIVE), None)
    used = dict(paid)
    left = hand.get(LOCOMOTIVE, 0) - used.get(LOCOMOTIVE, 0)
    if colour is not None:
        left += hand.get(colour, 0) - used[colour]
    return left


def station_city(s: Situation) -> str | None:
    """Where the plan builds its first station (E-STA-1..3): it borrows a route to reconnect a cut ticket."""
    return s.plan.stations[0][0] if s.plan.stations else None


def points_length(s: Situation) -> int:
    """With nothing left to plan, the length from which a route is worth its trains (C-CLM-2)."""
    return worth_length(s.pos.trains)


def worth_length(trains: int) -> int:
    """`points_length` of a seat with `trains` left."""
    return min(LONG_ROUTE, trains)


def wants_tickets(s: Situation) -> bool:
    """New tickets (C-TKT-1) only with every ticket done: a ticket given up means the last draw (or a cut)
    already went wrong; and with trains and turns left for more."""
    done = not s.building and not s.plan.stations and not s.plan.lost
    return done and s.fewest_trains >= TICKET_DRAW_TIME and s.pos.trains >= TICKET_DRAW_TRAINS and s.tickets_left > 0


# The cards a plan takes.


def needs(pos: Position, routes: Iterable[str], hand: Mapping[str, int]) -> dict[str, int]:
    """Cards the given routes take, by kind. A flexible route takes the colour the hand has most to spare, or
    `ANY` colour when the hand has none to spare."""
    fixed, flexible = need_parts(pos, routes)
    return needs_of(fixed, flexible, hand)


Flexible = tuple[tuple[int, tuple[str, ...]], ...]  # (cards, the colours that may pay them) of flexible routes


def need_parts(pos: Position, routes: Iterable[str]) -> tuple[dict[str, int], Flexible]:
    """What `needs` finds of the routes without the hand: the cards of those only one kind pays for, by kind,
    and the flexible ones (cards and colours), longest first. The routes are a plan's: nobody has claimed them."""
    return need_parts_of(pos.map_name, routes, pos.owner, pos.trains)


def need_parts_of(map_name: str, routes: Iterable[str], claimed: Container[str],
                  trains: int) -> tuple[dict[str, int], Flexible]:
    """`need_parts` on the board whose `claimed` routes are taken, for a seat with `trains` left. A route's twin
    is open to the seat when nobody has claimed it either and the seat has the trains for it (plan.claimable of
    the twin of a route nobody has): then the colours of both routes pay for the link."""
    board = load_board(map_name)
    table = _colour_table(map_name)
    need: dict[str, int] = {}
    flexible: list[tuple[int, int, tuple[str, ...]]] = []
    for route_id in routes:
        route = board.routes[route_id]
        ferry = route.ferry_locomotives
        if ferry:
            need[LOCOMOTIVE] = need.get(LOCOMOTIVE, 0) + ferry
        alone, paired, twin = table[route.index]
        options = paired if twin is not None and twin.id not in claimed and twin.length <= trains else alone
        if len(options) == 1:
            need[options[0]] = need.get(options[0], 0) + route.length - ferry
        else:
            flexible.append((route.length, route.length - ferry, options))
    flexible.sort(key=lambda item: -item[0])
    return need, tuple((cards, options) for _, cards, options in flexible)


@cache
def _colour_table(map_name: str) -> tuple[tuple[tuple[str, ...], tuple[str, ...], Route | None], ...]:
    """By route index, the colours that can pay for the link the route makes when its twin is closed to the seat
    (or it has none), those when its twin is open, and the twin."""
    board = load_board(map_name)

    def options(colours: set[str]) -> tuple[str, ...]:
        return COLOURS if GRAY in colours else tuple(c for c in COLOURS if c in colours)

    return tuple(
        (options({r.color}), options({r.color, twin.color}) if twin is not None else options({r.color}), twin)
        for r, twin in ((r, board.routes[r.twin] if r.twin else None) for r in board.route_list)
    )


def needs_of(fixed: Mapping[str, int], flexible: Flexible, hand: Mapping[str, int]) -> dict[str, int]:
    """`needs` from its `need_parts` and the hand."""
    need = dict(fixed)
    held, needed = hand.get, need.get
    for cards, options in flexible:
        if options is COLOURS:  # a gray route: only a colour held can have cards to spare
            colour, spare = ANY, 0  # no colour in hand to build on yet: any set will do
            for kind, n in hand.items():
                if kind != LOCOMOTIVE and ((left := n - needed(kind, 0)) > spare
                                           or (left == spare > 0 and _RANK[kind] < _RANK[colour])):
                    colour, spare = kind, left
        else:
            colour, spare = "", 0
            for option in options:  # the first colour with most to spare
                left = held(option, 0) - needed(option, 0)
                if not colour or left > spare:
                    colour, spare = option, left
            if spare <= 0 and len(options) == len(COLOURS):
                colour = ANY
        need[colour] = needed(colour, 0) + cards
    return need


_RANK = {colour: i for i, colour in enumerate(COLOURS)}  # `COLOURS`' order: the first of equals is taken


def shortfall(need: Mapping[str, int], hand: Mapping[str, int]) -> dict[str, int]:
    """Cards still to draw, by kind, before locomotives in hand are spent on any of them."""
    return {kind: n - hand.get(kind, 0) for kind, n in need.items() if n > hand.get(kind, 0)}


def cards_missing(pos: Position, routes: Iterable[str], hand: Mapping[str, int]) -> dict[str, int]:
    """Cards the routes still take beyond the hand, by kind (`needs`, then `shortfall`)."""
    return shortfall(needs(pos, routes, hand), hand)
