"""Starting a game (C-SET-1, E-SET-1, U-SET-1): the first player, the shuffles and the deal, as events."""

from __future__ import annotations

from . import events as ev
from .board import load_board
from .cards import full_deck
from .draws import Draws
from .evolve import evolve_in_place, initial_state
from .state import State
from .table import Table

HAND_SIZE = 4
SETUP_REGULAR_TICKETS = {"europe": 3, "usa": 3}
SETUP_LONG_TICKETS = {"europe": 1, "usa": 0}


def start_game(map_name: str, players: int, rng: Draws) -> tuple[ev.Event, ...]:
    """The events that open a game of `players` seats on `map_name`, every random outcome written in them."""
    return begin(map_name, players, rng)[1]


def begin(
    map_name: str, players: int, rng: Draws, first_seat: int | None = None,
    committed: ev.SeedsCommitted | None = None,
) -> tuple[State, tuple[ev.Event, ...]]:
    """`first_seat`: who plays first (a rematch passes the seat after the last game's first); None: drawn.
    `committed`: a provably fair game's seeds (X-RNG-2), written right after `game_started`; `rng` then draws
    from them (seeds.FairDraws)."""
    board = load_board(map_name)
    if not 2 <= players <= 5:
        raise ValueError("a game has 2 to 5 players (C-CMP-2)")
    if first_seat is not None and not 0 <= first_seat < players:
        raise ValueError(f"first_seat {first_seat} is not a seat of {players}")
    first = rng.randrange(players) if first_seat is None else first_seat
    started = ev.GameStarted(map=map_name, players=players, first_seat=first)
    table = Table(initial_state(started), rng)
    table.events.append(started)
    if committed is not None:
        table.emit(committed)
    deck = full_deck()
    rng.shuffle(deck)
    table.emit(ev.DeckShuffled(size=len(deck), reason="setup", cards=tuple(deck)))
    for seat in range(players):
        table.emit(ev.CardsDealt(seat=seat, count=HAND_SIZE, cards=tuple(table.top_cards(HAND_SIZE))))
    table.fill_market()
    regular, long_ = list(board.regular_tickets), list(board.long_tickets)
    rng.shuffle(regular)
    rng.shuffle(long_)
    table.emit(ev.TicketsShuffled(len(regular), len(long_), tuple(regular), tuple(long_)))
    n_long, n_regular = SETUP_LONG_TICKETS[map_name], SETUP_REGULAR_TICKETS[map_name]
    for seat in range(players):
        dealt = (*table.state.long_pile[::-1][:n_long], *table.state.ticket_pile[::-1][:n_regular])
        table.emit(ev.TicketsDealt(seat, n_long + n_regular, n_long, tuple(dealt)))
    return table.state, tuple(table.events)


__all__ = ["begin", "evolve_in_place", "start_game"]
