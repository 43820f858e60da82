"""What the reads of a game answer (docs/API.md), each shape written once, as a frozen dataclass.

The API's JSON of a shape is read off its type hints (games/api/typed_json.py), and so is its OpenAPI schema
(games/api/typed_schema.py), with the marks of games/store/shape_marks.py: `ABSENT` for a key left out,
`Schema(...)` for what a type cannot say.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, NewType
from uuid import UUID

from games.engine.cards import CARD_KINDS
from games.engine.moves import Move
from games.engine.scoring import SeatScore
from games.engine.view import PlayerView, PublicPlayer, TunnelView
from games.review.models import Analysis
from games.review.shapes import MapAnalysis, PrivateGame
from games.store.models import BOT_LEVELS, MAP_CHOICES, SPEED_CHOICES, Game
from games.store.shape_marks import ABSENT, Absent, Schema

# JSON values whose schema is the API's to say (games/api/typed_schema.py names them).
Cards = NewType("Cards", Mapping[str, int])  # train cards by colour, e.g. {"red": 2, "locomotive": 1}
# An event as the log shows it to a viewer (games/store/event_log.py `project`): seq, type, at, seat, data, reason.
LoggedEvent = NewType("LoggedEvent", Mapping[str, object])

Seq = Annotated[int, Schema(minimum=0)]
MapName = Annotated[str, Schema(enum=[m for m, _ in MAP_CHOICES])]
GameStatus = Annotated[str, Schema(enum=[s.value for s in Game.Status])]
BotLevel = Annotated[str, Schema(enum=BOT_LEVELS)]
CardKind = Annotated[str, Schema(enum=list(CARD_KINDS))]


def fields_of(value: Any, *, but: str = "") -> dict[str, Any]:
    """A dataclass's fields by name, as they are (not copied, unlike `dataclasses.asdict`): to build a shape from
    a value with the same fields."""
    return {name: getattr(value, name) for name in _names(type(value)) if name != but}


_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    if cls not in _NAMES:
        _NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return _NAMES[cls]


# A game's summary.


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatSummary:
    seat: int
    username: str | None
    bot: BotLevel | None
    resigned: Annotated[bool, Schema("the player left: the game's fallback bot plays this seat")]
    hints: Annotated[int, Schema("hints the seat's player asked the strong bot for", minimum=0)]


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchOffer:
    by: str
    accepted_by: tuple[str, ...]
    game: Annotated[UUID | None, Schema("the new game, once every person has accepted")]


@dataclass(frozen=True, slots=True, kw_only=True)
class Rematch:
    offer: RematchOffer


ANALYSIS_STATUSES = ["none", *(s.value for s in Analysis.Status)]


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentLink:
    """The tournament a game is a table of, and its round (an arena's: the pairing's number)."""

    id: UUID
    round: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GameSummary:
    id: UUID
    map: MapName
    players: Annotated[int, Schema(minimum=2, maximum=5)]
    ranked: bool
    turn_seconds: int | None
    speed: Annotated[str, Schema(enum=[s for s, _ in SPEED_CHOICES])]
    days_per_move: Annotated[int | None, Schema("a daily game's days a decision")]
    bank_days: Annotated[int | None, Schema("a daily game's bank of extra days per player")]
    private: Annotated[bool, Schema("not listed in the lobby; seats by invitation")]
    spectators_at_table: Annotated[bool, Schema("spectators may write in the table's chat")]
    rematch_of: UUID | None
    fallback_bot: Annotated[BotLevel, Schema("plays a seat whose time ran out or whose player resigned")]
    status: GameStatus
    seats: tuple[SeatSummary, ...]
    created_by: str
    created_at: datetime
    seq: Seq
    server_seed_hash: Annotated[
        str | None,
        Schema(
            "SHA-256 (hex) of the game's secret server seed, fixed when it was created; the audit log reveals the seed "
            "once the game is over (docs/FAIRNESS.md). null: a game from before provably fair chance",
            minLength=64, maxLength=64,
        ),
    ]
    tournament: Annotated[TournamentLink | None, Schema("the tournament this game is a table of")] = None
    invite: Annotated[str | Absent | None, Schema("for the creator of an open private game: the link's token")] = ABSENT
    rematch: Annotated[RematchOffer | Absent | None, Schema("a finished game's rematch offer")] = ABSENT
    analysis: Annotated[
        str | Absent,
        Schema(
            "a finished game's analysis: none until a player asks for it (POST /analysis), then its status",
            enum=ANALYSIS_STATUSES,
        ),
    ] = ABSENT


@dataclass(frozen=True, slots=True, kw_only=True)
class MyGame(GameSummary):
    your_move: Annotated[bool, Schema("the game waits for your decision")]
    deadline: datetime | None
    new_moves: Annotated[int, Schema("events since you last looked at the game")]


@dataclass(frozen=True, slots=True, kw_only=True)
class MyGames:
    results: tuple[MyGame, ...]
    your_turn: Annotated[int, Schema("how many games wait for your move")]


# A game's state.


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenSeat:
    """A seat of a game not started yet: nothing dealt."""

    seat: int
    cards: int
    tickets: int
    trains: int
    stations: int
    score: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GameView:
    """The game as the requesting user may see it (docs/RULES.md X-SEC-1); once it is finished, everything.

    A started game's view is the engine's `PlayerView` (games/engine/view.py) with its `final` part spread out
    (`hands` to `winner_seats`) and what the server adds: the clock, the banks, and every hand and pile when a
    past moment of a finished game is shown. An open game's has only the keys that mean something before the deal."""

    map: MapName
    phase: Annotated[str, Schema("open, setup_tickets, turn, second_card, tunnel_payment, keep_tickets, finished")]
    current_seat: int | None
    your_seat: int | None
    first_seat: int | Absent = ABSENT
    deciding_seats: tuple[int, ...]
    players: tuple[PublicPlayer | OpenSeat, ...]
    market: Annotated[tuple[CardKind | None, ...], Schema("face-up cards; null: an empty slot")]
    deck_size: int
    discard_size: int | Absent = ABSENT
    tickets_left: int | Absent = ABSENT
    routes: Annotated[Mapping[str, int], Schema("route id -> seat")]
    stations: Annotated[Mapping[str, int], Schema("city id -> seat")]
    tunnel: TunnelView | Absent | None = ABSENT
    last_round: bool | Absent = ABSENT
    turns_left: int | Absent | None = ABSENT
    hand: Cards
    tickets: tuple[str, ...]
    offered_tickets: tuple[str, ...] | Absent = ABSENT
    hands: tuple[Cards, ...] | Absent = ABSENT
    player_tickets: tuple[tuple[str, ...], ...] | Absent = ABSENT
    end_reason: str | Absent | None = ABSENT
    scores: tuple[SeatScore, ...] | Absent = ABSENT
    winner_seats: tuple[int, ...] | Absent = ABSENT
    offered: Annotated[Mapping[str, tuple[str, ...]] | Absent, Schema("seat -> the tickets on offer to it")] = ABSENT
    draw_pile: Annotated[tuple[str, ...] | Absent, Schema("the draw pile, top card first")] = ABSENT
    deadline: Annotated[
        datetime | Absent, Schema("when the current decision times out (games with a clock, while active)")
    ] = ABSENT
    banks: Annotated[Mapping[int, int] | Absent, Schema("a daily game's bank left per seat, in seconds")] = ABSENT


def started_view(seen: PlayerView, **more: Any) -> GameView:
    """The view of a started game: `seen`'s fields, its `final` part spread out, and `more` (`deadline`, ...)."""
    final = fields_of(seen.final) if seen.final is not None else {}
    return GameView(**fields_of(seen, but="final"), **final, **more)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameState:
    seq: Seq
    status: GameStatus
    view: GameView
    presence: Annotated[
        tuple[Annotated[int, Schema(minimum=0)], ...],
        Schema("the seats with a WebSocket open now (in a replay too: the table now, not the game then)"),
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class LegalMoves:
    seq: Seq
    moves: tuple[Move, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class EventList:
    seq: Seq
    events: tuple[LoggedEvent, ...]


# A finished game's score.


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatResult(SeatScore):
    """Every part of one seat's final score, and who sat there."""

    username: str | None
    bot: BotLevel | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Score:
    scores: tuple[SeatResult, ...]
    winner_seats: tuple[int, ...]
    end_reason: str | None


# Ratings (games/play/ratings.py) and a player's page.


@dataclass(frozen=True, kw_only=True)
class RatedAccount:
    username: str
    bot: Annotated[BotLevel | None, Schema("the level a bot account rates")]


@dataclass(frozen=True, kw_only=True)
class MapRating:
    rating: Annotated[float, Schema("the rating shown: mu - 3 sigma")]
    mu: float
    sigma: float
    provisional: Annotated[bool, Schema("fewer than 5 rated games on this map")]
    games: Annotated[int, Schema(minimum=0)]
    wins: Annotated[int, Schema(minimum=0)]


@dataclass(frozen=True, kw_only=True)
class LeaderboardEntry(MapRating, RatedAccount):  # (the account's fields first: the last base's come first)
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class RatingChange:
    game: PrivateGame
    map: MapName
    place: Annotated[int, Schema("the best place of the player's seats", minimum=1)]
    before: Annotated[float, Schema("the rating shown before the game")]
    after: Annotated[float, Schema("the rating shown after the game")]
    at: datetime
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass(frozen=True, kw_only=True)
class PlayerPage(RatedAccount):
    ratings: Annotated[
        Mapping[str, MapRating],
        Schema("by map (unrated maps: the starting rating, 0 games)", required=[m for m, _ in MAP_CHOICES]),
    ]
    history: Annotated[tuple[RatingChange, ...], Schema("rating changes, newest first (the last 50)")]
    recent_games: Annotated[tuple[GameSummary, ...], Schema("the player's last games, newest first")]
    analysis: Annotated[
        Mapping[str, MapAnalysis], Schema("by map: points lost per decision over the analysed games")
    ]
