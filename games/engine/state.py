"""The state of one game: everything `evolve` folds out of the log, and nothing else.

State is mutable for speed but owned: `evolve` returns a new state and leaves its argument alone, and
only `evolve_in_place` (used by `replay`, `decide`'s scratch copy and simulations that own their state)
changes one. `copy()` is cheap: the board is shared, the rest is small lists and dicts.

Piles keep their top card at the END of the list so that drawing is `pop()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .board import Board
from .cards import Cards
from .moves import Payment
from .scoring import SeatScore


class Phase(StrEnum):
    """What the game waits for. Each value is the string stored in snapshots and served in views: a `Phase`
    equals its string, so a state decoded with a plain string in `phase` compares and looks up the same."""

    SETUP_TICKETS = "setup_tickets"  # every seat keeps 2 or more of its dealt tickets at once
    TURN = "turn"  # the current seat draws cards, claims a route, draws tickets or builds a station
    SECOND_CARD = "second_card"  # the current seat draws its turn's second train card
    TUNNEL_PAYMENT = "tunnel_payment"  # the current seat pays the extra cards of a tunnel, or declines it
    KEEP_TICKETS = "keep_tickets"  # the current seat keeps 1 or more of the tickets it drew
    FINISHED = "finished"


# The members as module constants, for comparisons and assignments: on Python 3.11 `Phase.TURN` is an attribute
# lookup through the enum metaclass's `__getattr__` hook (about 80 ns, against 15 for a global), and `evolve` compares
# or sets the phase on most events. A `match` over a phase needs the dotted names (`case Phase.TURN:`).
SETUP_TICKETS = Phase.SETUP_TICKETS
TURN = Phase.TURN
SECOND_CARD = Phase.SECOND_CARD
TUNNEL_PAYMENT = Phase.TUNNEL_PAYMENT
KEEP_TICKETS = Phase.KEEP_TICKETS
FINISHED = Phase.FINISHED


@dataclass(slots=True)
class PlayerState:
    trains: int
    hand: Cards = field(default_factory=dict)
    tickets: list[str] = field(default_factory=list)
    stations: int = 0  # stations built
    score: int = 0  # route points so far (public)
    barred: int = 0  # bit mask of routes this player may not claim: twins of its own routes (C-DBL-1)

    def copy(self) -> PlayerState:
        return PlayerState(
            self.trains, dict(self.hand), list(self.tickets), self.stations, self.score, self.barred
        )


@dataclass(frozen=True, slots=True)
class PendingTunnel:
    route: str
    played: Payment
    revealed: tuple[str, ...]
    extra: int


@dataclass(slots=True)
class State:
    board: Board
    players: list[PlayerState]
    first_seat: int
    phase: Phase = SETUP_TICKETS
    current: int | None = None  # None while every seat chooses its setup tickets at once
    draw_pile: list[str] = field(default_factory=list)
    discards: Cards = field(default_factory=dict)
    market: list[str | None] = field(default_factory=lambda: [None] * 5)
    ticket_pile: list[str] = field(default_factory=list)
    long_pile: list[str] = field(default_factory=list)
    route_owner: dict[str, int] = field(default_factory=dict)
    closed: int = 0  # bit mask of routes nobody may claim: claimed ones, and their twins in small games (C-DBL-2)
    station_owner: dict[str, int] = field(default_factory=dict)
    offered: dict[int, tuple[str, ...]] = field(default_factory=dict)  # tickets a seat must choose from
    # The tunnel claimed this turn, from its reveal to the end of the turn: paid for or declined in TUNNEL_PAYMENT,
    # then holding its revealed cards until TurnEnded puts them on the discard pile (E-TUN-4).
    tunnel: PendingTunnel | None = None
    turns_left: int | None = None  # set once the last round starts (C-END-1)
    end_reason: str | None = None
    scores: tuple[SeatScore, ...] = ()
    winner_seats: tuple[int, ...] = ()
    shuffles: int = 0  # shuffles so far (the setup's deck and two ticket piles, then each reshuffle): fairness.py

    @property
    def player_count(self) -> int:
        return len(self.players)

    @property
    def finished(self) -> bool:
        return self.phase == FINISHED

    def deciders(self) -> tuple[int, ...]:
        """The seats whose decision the game waits for."""
        if self.phase == SETUP_TICKETS:
            return tuple(sorted(self.offered))
        if self.phase == FINISHED or self.current is None:
            return ()
        return (self.current,)

    def copy(self) -> State:
        return State(
            board=self.board,
            players=[p.copy() for p in self.players],
            first_seat=self.first_seat,
            phase=self.phase,
            current=self.current,
            draw_pile=list(self.draw_pile),
            discards=dict(self.discards),
            market=list(self.market),
            ticket_pile=list(self.ticket_pile),
            long_pile=list(self.long_pile),
            route_owner=dict(self.route_owner),
            closed=self.closed,
            station_owner=dict(self.station_owner),
            offered=dict(self.offered),
            tunnel=self.tunnel,
            turns_left=self.turns_left,
            end_reason=self.end_reason,
            scores=self.scores,
            winner_seats=self.winner_seats,
            shuffles=self.shuffles,
        )
