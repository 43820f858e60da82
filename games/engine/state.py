"""The state of one game: everything `evolve` folds out of the log, and nothing else.

State is mutable for speed but owned: `evolve` returns a new state and leaves its argument alone, and
only `evolve_in_place` (used by `replay`, `decide`'s scratch copy and simulations that own their state)
changes one. `copy()` is cheap: the board is shared, the rest is small lists and dicts.

Piles keep their top card at the END of the list so that drawing is `pop()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .board import Board
from .cards import Cards
from .moves import Payment
from .scoring import SeatScore

SETUP_TICKETS = "setup_tickets"
TURN = "turn"
SECOND_CARD = "second_card"
TUNNEL_PAYMENT = "tunnel_payment"
KEEP_TICKETS = "keep_tickets"
FINISHED = "finished"
PHASES = (SETUP_TICKETS, TURN, SECOND_CARD, TUNNEL_PAYMENT, KEEP_TICKETS, FINISHED)


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
    phase: str = SETUP_TICKETS
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
