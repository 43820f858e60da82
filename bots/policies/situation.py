"""What one greedy decision knows (`Situation`), and the decisions the greedy bot and greedy-lite make alike.

The greedy bot (greedy.py) reads its seat's view and the legal moves; greedy-lite (rollout.py), the strong bot's
playout policy, reads a State it owns and lists no moves. Both play one strategy: plan a network for the tickets,
claim its routes, draw the cards it misses. So each builds the same `Situation` (the greedy bot from a
`PlayerView`, greedy-lite from a State) and asks the questions they answer alike here: whether the game is
ending, which claims build the plan, whether a tunnel is too risky, which station to build, how long a route must
be to be worth its trains, whether to draw new tickets (and greedy_cards.py: which cards the plan misses). Where
they differ (greedy-lite takes the first useful face-up card, pays with fewest locomotives and keeps the fewest
tickets: about four times cheaper a move), each keeps its own way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from games.engine.board import Route
from games.engine.moves import Payment

from .greedy_cards import tunnel_spare
from .plan import Plan, Position

ENDGAME_TRAINS = 6  # once a seat is this close to ending the game (C-END-1), unfinished plans give way to points
TICKET_DRAW_TRAINS = 15  # new tickets only with trains enough to build a few more routes
TICKET_DRAW_TIME = 12  # ... and turns enough: every seat still this many trains from ending the game (C-END-1)
LONG_ROUTE = 4  # with nothing left to plan, a route this long is worth its trains (C-CLM-2: 7 points for 4)
TUNNEL_SPARE = 2  # a tunnel asks for 2 or more extra cards about one time in seven (E-TUN-2): keep 2 for it


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
