"""Events: the facts of a game (past-tense names), the only input of `evolve`.

Every random outcome is a field of an event (docs/RULES.md X-RNG-1): the order of a shuffled pile, the first
player. Fields that some viewers may not see are optional: `redact` (view.py) sets them to None and keeps
the public counts beside them, so a redacted event still says what happened, just not what was hidden.
Every event type carries a schema version `v` for upcasting old logs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, get_args

from .moves import Payment
from .scoring import SeatScore


@dataclass(frozen=True, slots=True)
class GameStarted:
    type: ClassVar[str] = "game_started"
    v: ClassVar[int] = 1
    map: str
    players: int
    first_seat: int


@dataclass(frozen=True, slots=True)
class DeckShuffled:
    """Cards shuffled into the draw pile, top card first; they go under any cards still in the pile."""

    type: ClassVar[str] = "deck_shuffled"
    v: ClassVar[int] = 1
    size: int
    reason: str  # "setup", "reshuffle" (C-DRW-5) or "tunnel" (E-TUN-1)
    cards: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class TicketsShuffled:
    type: ClassVar[str] = "tickets_shuffled"
    v: ClassVar[int] = 1
    size: int
    long_size: int
    tickets: tuple[str, ...] | None = None  # top first
    long_tickets: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class CardsDealt:
    type: ClassVar[str] = "cards_dealt"
    v: ClassVar[int] = 1
    seat: int
    count: int
    cards: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class MarketRevealed:
    """Cards turned face up from the draw pile into the given market slots."""

    type: ClassVar[str] = "market_revealed"
    v: ClassVar[int] = 1
    slots: tuple[int, ...]
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MarketDiscarded:
    """Three face-up locomotives: the whole market goes to the discard pile (C-DRW-4)."""

    type: ClassVar[str] = "market_discarded"
    v: ClassVar[int] = 1
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MarketWipeSkipped:
    """Three face-up locomotives stay: the piles cannot supply a market without three (C-DRW-4)."""

    type: ClassVar[str] = "market_wipe_skipped"
    v: ClassVar[int] = 1
    reason: str


@dataclass(frozen=True, slots=True)
class TicketsDealt:
    type: ClassVar[str] = "tickets_dealt"
    v: ClassVar[int] = 1
    seat: int
    count: int
    long_count: int = 0
    tickets: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class TicketsKept:
    type: ClassVar[str] = "tickets_kept"
    v: ClassVar[int] = 1
    seat: int
    kept_count: int
    returned_count: int
    kept: tuple[str, ...] | None = None
    returned: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class CardDrawn:
    type: ClassVar[str] = "card_drawn"
    v: ClassVar[int] = 1
    seat: int
    source: str  # "deck" or "market"
    index: int | None = None
    card: str | None = None  # hidden from others when drawn blind


@dataclass(frozen=True, slots=True)
class RouteClaimed:
    type: ClassVar[str] = "route_claimed"
    v: ClassVar[int] = 1
    seat: int
    route: str
    cards: Payment
    points: int


@dataclass(frozen=True, slots=True)
class TunnelRevealed:
    type: ClassVar[str] = "tunnel_revealed"
    v: ClassVar[int] = 1
    seat: int
    route: str
    cards: Payment  # the cards played before the reveal
    revealed: tuple[str, ...]
    extra: int


@dataclass(frozen=True, slots=True)
class TunnelDeclined:
    type: ClassVar[str] = "tunnel_declined"
    v: ClassVar[int] = 1
    seat: int
    route: str


@dataclass(frozen=True, slots=True)
class StationBuilt:
    type: ClassVar[str] = "station_built"
    v: ClassVar[int] = 1
    seat: int
    city: str
    cards: Payment


@dataclass(frozen=True, slots=True)
class TurnPassed:
    """The seat had no legal action at all (C-END-2)."""

    type: ClassVar[str] = "turn_passed"
    v: ClassVar[int] = 1
    seat: int


@dataclass(frozen=True, slots=True)
class TurnEnded:
    type: ClassVar[str] = "turn_ended"
    v: ClassVar[int] = 1
    seat: int
    next_seat: int


@dataclass(frozen=True, slots=True)
class LastRoundStarted:
    """The seat ended its turn with 2 trains or fewer: everyone gets one more turn (C-END-1)."""

    type: ClassVar[str] = "last_round_started"
    v: ClassVar[int] = 1
    seat: int
    turns_left: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """No more moves: the game is over. Scoring follows as its own event (`GameScored`), from the workers."""

    type: ClassVar[str] = "game_ended"
    v: ClassVar[int] = 2
    reason: str  # "last_round" (C-END-1) or "no_moves" (C-END-2)


@dataclass(frozen=True, slots=True)
class GameEndedV1:
    """The first shape of `game_ended`, with the final score inside: read in old logs, never written now."""

    type: ClassVar[str] = "game_ended"
    v: ClassVar[int] = 1
    reason: str
    scores: tuple[SeatScore, ...]
    winner_seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameScored:
    """The final score of an ended game (`scoring.final_score`): every part of every score, and the winners."""

    type: ClassVar[str] = "game_scored"
    v: ClassVar[int] = 1
    scores: tuple[SeatScore, ...]
    winner_seats: tuple[int, ...]


ABORTED = "aborted"  # the end reason a `game_aborted` gives the game (`State.end_reason`)


@dataclass(frozen=True, slots=True)
class GameAborted:
    """An operator ended the game (an action in the log, never an edit): it is over, unscored and unrated.
    `staff`: the operator's account id (never a name, so erasing a person leaves the log verifying)."""

    type: ClassVar[str] = "game_aborted"
    v: ClassVar[int] = 1
    staff: int
    reason: str


@dataclass(frozen=True, slots=True)
class SeatReplaced:
    """An operator gave a seat to another occupant: `by` is "bot:<level>" (the seat's player is treated as having
    left) or "account:<id>" (another person plays it from now on). `staff`: the operator's account id."""

    type: ClassVar[str] = "seat_replaced"
    v: ClassVar[int] = 1
    seat: int
    by: str
    staff: int
    reason: str


@dataclass(frozen=True, slots=True)
class TimeGranted:
    """An operator gave a seat `seconds` more on its clock (X-TIME-1): a live game's decision in progress runs that
    much longer; a daily game's seat has that much more in its bank. `staff`: the operator's account id."""

    type: ClassVar[str] = "time_granted"
    v: ClassVar[int] = 1
    seat: int
    seconds: int
    staff: int
    reason: str


@dataclass(frozen=True, slots=True)
class HintUsed:
    """The seat's player asked the strong bot for a hint (an unranked game against bots only): the game's record
    says so. Nothing in the game changes."""

    type: ClassVar[str] = "hint_used"
    v: ClassVar[int] = 1
    seat: int


@dataclass(frozen=True, slots=True)
class SeedsCommitted:
    """A provably fair game's seeds at its start (X-RNG-2, docs/FAIRNESS.md), right after `game_started`: the hash
    of the server's secret seed (published when the game was created) and each seat's own seed, hex ("" for
    none). `first_seat_drawn`: False when the first seat was given (a rematch), not drawn."""

    type: ClassVar[str] = "seeds_committed"
    v: ClassVar[int] = 1
    server_seed_hash: str
    client_seeds: tuple[str, ...]
    first_seat_drawn: bool


@dataclass(frozen=True, slots=True)
class SeedsRevealed:
    """The server's seed of a provably fair game, once it is over: with it anyone recomputes every random outcome."""

    type: ClassVar[str] = "seeds_revealed"
    v: ClassVar[int] = 1
    server_seed: str


@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    """The seat's decision ran past the game's turn time (X-TIME-1): the fallback bot plays it next."""

    type: ClassVar[str] = "turn_timed_out"
    v: ClassVar[int] = 1
    seat: int
    seconds: int
    bot: str


@dataclass(frozen=True, slots=True)
class SeatResigned:
    """The seat's player left: the fallback bot plays the seat's decisions for the rest of the game."""

    type: ClassVar[str] = "seat_resigned"
    v: ClassVar[int] = 1
    seat: int
    bot: str


Event = (
    GameStarted
    | DeckShuffled
    | TicketsShuffled
    | CardsDealt
    | MarketRevealed
    | MarketDiscarded
    | MarketWipeSkipped
    | TicketsDealt
    | TicketsKept
    | CardDrawn
    | RouteClaimed
    | TunnelRevealed
    | TunnelDeclined
    | StationBuilt
    | TurnPassed
    | TurnEnded
    | LastRoundStarted
    | GameEnded
    | GameEndedV1
    | GameScored
    | TurnTimedOut
    | SeatResigned
    | SeedsCommitted
    | SeedsRevealed
    | GameAborted
    | SeatReplaced
    | TimeGranted
    | HintUsed
)
# Older shapes of an event type: the codec reads them, `evolve` folds them, nothing writes them.
LEGACY_SHAPES: tuple[type[Event], ...] = (GameEndedV1,)
# Each event type by its name, and the old shapes by (name, v): both read off `Event`, the one list of event types.
EVENT_TYPES: dict[str, type[Event]] = {cls.type: cls for cls in get_args(Event) if cls not in LEGACY_SHAPES}
LEGACY_EVENT_TYPES: dict[tuple[str, int], type[Event]] = {(cls.type, cls.v): cls for cls in LEGACY_SHAPES}
