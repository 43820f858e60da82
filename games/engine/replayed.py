"""A whole log played again under the rules and compared with itself, event by event: the check of a verifier that
trusts nobody (docs/FAIRNESS.md, "Checking a game").

`log_replayed(events, game_seed)` deals the game again with `begin`, then, wherever a seat decides, reads the move
from the log (`played.move_named_at`), decides it again with `step` and compares each event the rules give with the
log's, field by field; a `game_scored` is compared with the score of the board as replayed. The chance is the game
seed's (`seeds.FairDraws`: the orders derived from the revealed seeds) or, for a game without seeds, the log's
own shuffles, each checked to be an order of the very cards it shuffled. The first difference is the answer: its
seq (1 = the log's first event), its type, the field (`cards[2]`) and both values. Events beside the moves (a
time-out, a resignation, an operator's action, a hint, the seeds) are the server's facts: applied where they stand.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any

from . import events as ev
from . import moves as mv
from .decide import score_ended, step
from .draws import Draws
from .errors import IllegalMove
from .evolve import evolve_in_place
from .played import ASIDE, move_named_at
from .seeds import FairDraws
from .setup import begin
from .state import State


@dataclass(frozen=True)
class Difference:
    """Where the log and the rules part: the event at `seq` (its `type`), its `field`, and both values."""

    seq: int
    type: str
    field: str
    expected: str  # what the rules give
    found: str  # what the log holds

    def __str__(self) -> str:
        return f"seq {self.seq} ({self.type}), field {self.field}: the rules give {self.expected}, the log has {self.found}"


@dataclass(frozen=True)
class Replayed:
    """`events` of the log were checked (all of them when `difference` is None), `moves` decided again; `over`:
    the log reaches the game's end (scored, or aborted by an operator)."""

    events: int
    moves: int
    over: bool
    difference: Difference | None


class _Differs(Exception):
    def __init__(self, difference: Difference) -> None:
        super().__init__(str(difference))
        self.difference = difference


def log_replayed(events: Sequence[ev.Event], game_seed: bytes | None) -> Replayed:
    """Replay the complete, unredacted log `events` under the rules; `game_seed`: the game's (seeds.Seeds), None
    for a game without seeds (its chance then read from its own shuffles)."""
    walk = _Walk(events, game_seed)
    try:
        walk.run()
    except _Differs as differs:
        return Replayed(walk.at, walk.moves, False, differs.difference)
    over = walk.state is not None and (bool(walk.state.scores) or walk.state.end_reason == ev.ABORTED)
    return Replayed(len(events), walk.moves, over, None)


class _Walk:
    def __init__(self, events: Sequence[ev.Event], game_seed: bytes | None) -> None:
        self.events, self.game_seed = events, game_seed
        self.logged = _LoggedOrders(events)
        self.state: State | None = None
        self.at = 0  # events[:at] are checked
        self.moves = 0

    def run(self) -> None:
        self.state = self._dealt()
        while self.at < len(self.events):
            self._next(self.state)

    def _dealt(self) -> State:
        started = self.events[0] if self.events else None
        if not isinstance(started, ev.GameStarted):
            raise _Differs(Difference(1, _type(started), "type", "'game_started'", repr(_type(started))))
        committed = self.events[1] if len(self.events) > 1 else None
        committed = committed if isinstance(committed, ev.SeedsCommitted) else None
        drawn = self.game_seed is not None and (committed is None or committed.first_seat_drawn)
        try:
            state, made = begin(
                started.map, started.players, self._chance(0), first_seat=None if drawn else started.first_seat,
                committed=committed,
            )
        except ValueError as error:  # an unknown map, a count of seats the rules do not allow
            raise _Differs(Difference(1, started.type, "map/players", "a game the rules allow", str(error))) from error
        self._compare(made)
        return state

    def _next(self, state: State) -> None:
        event = self.events[self.at]
        found = move_named_at(state, self.events, self.at)
        if found is not None:
            return self._move(state, *found)
        if isinstance(event, ev.GameScored):
            self._scored(state, event)
        elif isinstance(event, ev.GameAborted) and state.finished:
            self._differs(event.type, "type", "nothing: the game is over", repr(event.type))
        elif isinstance(event, ev.SeedsRevealed) and not state.finished:
            self._differs(event.type, "type", "no reveal: the game is not over", repr(event.type))
        elif not isinstance(event, ASIDE):
            deciders = state.deciders()
            expected = f"a move of seat {' or '.join(map(str, deciders))} ({state.phase})" if deciders else "nothing"
            self._differs(event.type, "type", expected, repr(event.type))
        evolve_in_place(state, event)
        self.at += 1
        return None

    def _move(self, state: State, seat: int, move: mv.Move) -> None:
        try:
            made = step(state, seat, move, self._chance(state.shuffles), in_place=True)[1]
        except IllegalMove as error:
            self._differs(self.events[self.at].type, "move", "a legal move", f"seat {seat}'s {move.type}: {error}")
        self._compare(made)
        self.moves += 1
        last = self.events[self.at - 1]
        if isinstance(last, ev.GameEndedV1):  # an old log: the score came with the end (step applied the new shape)
            self.at -= 1
            self._scored(state, last)
            evolve_in_place(state, last)
            self.at += 1

    def _scored(self, state: State, event: ev.GameScored | ev.GameEndedV1) -> None:
        if not state.finished or state.scores or state.end_reason == ev.ABORTED:
            self._differs(event.type, "type", "no score: the game is not over, or scored already", repr(event.type))
        scored = score_ended(state)
        if isinstance(event, ev.GameEndedV1):
            self._compare((ev.GameEndedV1(event.reason, scored.scores, scored.winner_seats),), advance=False)
        else:
            self._compare((scored,), advance=False)

    def _compare(self, made: Sequence[ev.Event], *, advance: bool = True) -> None:
        for k, expected in enumerate(made):
            i = self.at + k
            if i >= len(self.events):
                raise _Differs(Difference(i + 1, "end of the log", "type", repr(expected.type), "nothing"))
            difference = _difference(expected, self.events[i], "")
            if difference is not None:
                field, rules, log = difference
                raise _Differs(Difference(i + 1, self.events[i].type, field or "type", rules, log))
        if advance:
            self.at += len(made)

    def _differs(self, type_: str, field: str, expected: str, found: str) -> None:
        raise _Differs(Difference(self.at + 1, type_, field, expected, found))

    def _chance(self, shuffles: int) -> Draws:
        if self.game_seed is not None:
            return FairDraws(self.game_seed, shuffles)
        return self.logged


def _type(event: ev.Event | None) -> str:
    return event.type if event is not None else "nothing"


def _difference(expected: Any, found: Any, path: str) -> tuple[str, str, str] | None:
    """The first field in which two events (or two values inside them) differ, with both values; None: equal."""
    if expected == found and type(expected) is type(found):
        return None
    if isinstance(expected, ev.GameEnded) and isinstance(found, ev.GameEndedV1):  # the old shape (read-only)
        return _difference(expected.reason, found.reason, "reason")
    if type(expected) is not type(found):
        if dataclasses.is_dataclass(expected) and dataclasses.is_dataclass(found):
            return "type", repr(getattr(expected, "type", "?")), repr(getattr(found, "type", "?"))
        return path, repr(expected), repr(found)
    if dataclasses.is_dataclass(expected):
        for field in dataclasses.fields(expected):
            inner = f"{path}.{field.name}" if path else field.name
            difference = _difference(getattr(expected, field.name), getattr(found, field.name), inner)
            if difference is not None:
                return difference
    if isinstance(expected, tuple) and len(expected) == len(found):
        for k, (a, b) in enumerate(zip(expected, found, strict=True)):
            difference = _difference(a, b, f"{path}[{k}]")
            if difference is not None:
                return difference
    return path, repr(expected), repr(found)


class _LoggedOrders:
    """A game without seeds: its chance is the log's own orders (the first seat is given to `begin`), each
    checked to be an order of the cards or tickets the rules shuffle at that moment (else a Difference)."""

    def __init__(self, events: Sequence[ev.Event]) -> None:
        self._orders = self._outcomes(events)
        self._end = len(events) + 1

    @staticmethod
    def _outcomes(events: Sequence[ev.Event]) -> Iterator[tuple[int, str, str, tuple[str, ...] | None]]:
        for seq, event in enumerate(events, start=1):
            if isinstance(event, ev.DeckShuffled):
                yield seq, event.type, "cards", event.cards
            elif isinstance(event, ev.TicketsShuffled):
                yield seq, event.type, "tickets", event.tickets
                yield seq, event.type, "long_tickets", event.long_tickets

    def randrange(self, n: int, /) -> int:
        raise ValueError("a game without seeds gives its first seat")

    def shuffle(self, x: MutableSequence[Any], /) -> None:
        logged = next(self._orders, None)
        if logged is None:
            raise _Differs(Difference(self._end, "end of the log", "type", "a shuffle", "nothing"))
        seq, type_, field, order = logged
        if order is None or sorted(order) != sorted(x):
            shown = "nothing" if order is None else f"{len(order)} others"
            raise _Differs(Difference(seq, type_, field, f"an order of the {len(x)} shuffled", shown))
        x[:] = order
