"""The moves a game's log records: each decision of a game, found again in its events.

A log holds events, not moves. Each move's events name it (the first event of its own kind after any reshuffle
it caused: `card_drawn` a card draw, `tunnel_revealed` a tunnel claim, `tickets_kept` a ticket choice, ...), so
`played_moves` replays the log and, at every point where a seat decides, reads the move from them, decides it again
on the state of that moment (the chance it met taken from the log's own shuffles) and checks that it gives exactly
the events the log holds. A log that does not replay move by move raises `NotReplayable`, saying where.

Events beside the moves (a clock, an operator's action, a hint, the seeds) change no seat's decision: they are
applied where they stand.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any

from . import events as ev
from . import moves as mv
from .decide import step
from .errors import IllegalMove
from .evolve import evolve_in_place, initial_state
from .moves import cards_of, payment
from .state import SECOND_CARD, SETUP_TICKETS, TUNNEL_PAYMENT, TURN, State

ASIDE = (
    ev.TurnTimedOut, ev.SeatResigned, ev.SeatReplaced, ev.TimeGranted, ev.SeedsCommitted, ev.SeedsRevealed,
    ev.HintUsed, ev.GameAborted,
)


class NotReplayable(ValueError):
    """The log's events are not what its moves give (an altered log, or one written by older rules)."""


@dataclass(frozen=True, slots=True)
class Played:
    """One decision of the game: `seat` played `move` on `state` (the state before it, the caller's to keep);
    its events are the log's `events[at:at + len(events)]`."""

    state: State
    seat: int
    move: mv.Move
    at: int
    events: tuple[ev.Event, ...]


def played_moves(events: Sequence[ev.Event]) -> Iterator[Played]:
    """Every move of the game, in the log's order."""
    if not events or not isinstance(events[0], ev.GameStarted):
        raise NotReplayable("a game's log starts with game_started")
    state = initial_state(events[0])
    i = 1
    while i < len(events):
        event = events[i]
        if isinstance(event, ASIDE) or not state.deciders() or not _names_a_move(state, event, events, i):
            evolve_in_place(state, event)
            i += 1
            continue
        seat, move = _move_at(state, events, i)
        before = state.copy()
        try:
            state, made = step(state, seat, move, _LoggedShuffles(events, i))
        except IllegalMove as error:
            raise NotReplayable(f"event {i}: seat {seat}'s {move.type} is not legal there ({error})") from error
        if tuple(events[i : i + len(made)]) != made:
            raise NotReplayable(f"event {i}: seat {seat}'s {move.type} gives other events than the log holds")
        yield Played(before, seat, move, i, made)
        i += len(made)


def _names_a_move(state: State, event: ev.Event, events: Sequence[ev.Event], i: int) -> bool:
    """Whether a move's events start here: during the setup only a ticket choice is a move (the deal is not)."""
    if state.phase == SETUP_TICKETS:
        return isinstance(event, ev.TicketsKept)
    return True


def _move_at(state: State, events: Sequence[ev.Event], i: int) -> tuple[int, mv.Move]:
    """The seat and the move whose events start at `events[i]` (a reshuffle first, then the event naming it)."""
    j = i
    while j < len(events) and isinstance(events[j], ev.DeckShuffled):
        j += 1
    if j == len(events):
        raise NotReplayable(f"event {i}: the log ends inside a move")
    named = events[j]
    move = _move_named(state, named)
    seat = getattr(named, "seat", None)
    if move is None or not isinstance(seat, int):
        raise NotReplayable(f"event {j}: {named.type} names no move of the {state.phase} phase")
    return seat, move


def _move_named(state: State, e: ev.Event) -> mv.Move | None:
    phase = state.phase
    if isinstance(e, ev.TicketsKept) and e.kept is not None:
        return mv.KeepTickets(e.kept)
    if isinstance(e, ev.CardDrawn) and phase in (TURN, SECOND_CARD):
        return mv.DrawCard("market", e.index) if e.source == "market" else mv.DrawCard("deck")
    if phase == TURN:
        if isinstance(e, ev.RouteClaimed | ev.TunnelRevealed):
            return mv.ClaimRoute(e.route, e.cards)
        if isinstance(e, ev.TicketsDealt):
            return mv.DrawTickets()
        if isinstance(e, ev.StationBuilt):
            return mv.BuildStation(e.city, e.cards)
    if phase == TUNNEL_PAYMENT and state.tunnel is not None:
        if isinstance(e, ev.TunnelDeclined):
            return mv.DeclineTunnel()
        if isinstance(e, ev.RouteClaimed):
            whole, played = cards_of(e.cards), cards_of(state.tunnel.played)
            return mv.PayTunnel(payment({kind: n - played.get(kind, 0) for kind, n in whole.items()}))
    return None


class _LoggedShuffles:
    """The chance a move met, read back from the log: each shuffle gives the order of the next `deck_shuffled`
    from `events[start]` on (a move's own reshuffles come before or among its events, in order)."""

    def __init__(self, events: Sequence[ev.Event], start: int) -> None:
        self._shuffles = (e for e in events[start:] if isinstance(e, ev.DeckShuffled))

    def randrange(self, n: int, /) -> int:
        raise NotReplayable("a move drew a first player")

    def shuffle(self, x: MutableSequence[Any], /) -> None:
        logged = next(self._shuffles, None)
        if logged is None or logged.cards is None or sorted(logged.cards) != sorted(x):
            raise NotReplayable("a reshuffle's cards are not the discards of that moment")
        x[:] = logged.cards


def move_named_at(state: State, events: Sequence[ev.Event], i: int) -> tuple[int, mv.Move] | None:
    """The seat and the move whose events start at `events[i]` on `state` (a reshuffle first, then the event
    naming it); None when no move starts there (an event beside the moves, the deal, a game that waits for no
    one, an event that names no move of the phase). For a verifier that decides each move again with chance of
    its own (games/engine/replayed.py) and compares what the rules give with the log."""
    if isinstance(events[i], ASIDE) or not state.deciders() or not _names_a_move(state, events[i], events, i):
        return None
    try:
        return _move_at(state, events, i)
    except NotReplayable:
        return None
