"""What the tournament endpoints answer (docs/API.md, Tournaments): frozen dataclasses whose JSON and OpenAPI schema
are read off their type hints (games/api/typed_json.py, games/api/typed_schema.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated
from uuid import UUID

from games.play.shapes import MapName
from games.store.models import SPEED_CHOICES
from games.store.shape_marks import Schema
from games.tournaments.models import Tournament

Seat = Annotated[str, Schema('a username, or "bot:<level>" for a seat a bot fills')]


@dataclass(frozen=True, slots=True, kw_only=True)
class StandingRow:
    rank: Annotated[int, Schema(minimum=1)]
    username: str
    points: Annotated[float, Schema("T-PTS-1: per game, the seats finished ahead of (ties half) over the seats less one")]
    tiebreaks: Annotated[tuple[float, ...], Schema("T-PTS-3: the sum of opponents' points, then the total game score")]
    games: Annotated[int, Schema(minimum=0)]
    withdrawn: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentRow:
    """A tournament: its settings, where it stands, and the asker's part in it."""

    id: UUID
    name: str
    format: Annotated[str, Schema(enum=[f.value for f in Tournament.Format])]
    map: MapName
    table_size: Annotated[int, Schema(minimum=2, maximum=5)]
    smaller_tables: bool
    speed: Annotated[str, Schema(enum=[s for s, _ in SPEED_CHOICES])]
    turn_seconds: int | None
    days_per_move: int | None
    rounds: Annotated[int | None, Schema("a Swiss's rounds")]
    minutes: Annotated[int | None, Schema("an arena's window")]
    starts_at: datetime
    ends_at: Annotated[datetime | None, Schema("an arena's window's end; a Swiss's end once over")]
    max_players: int | None
    ranked: bool
    bots_fill: bool
    private: bool
    featured: bool
    created_by: str
    status: Annotated[str, Schema(enum=[s.value for s in Tournament.Status])]
    server_seed_hash: Annotated[str, Schema("SHA-256 of the pairings' server seed, published at creation")]
    server_seed: Annotated[str | None, Schema("revealed once the tournament is over")]
    players: Annotated[int, Schema(minimum=0)]
    round: Annotated[int | None, Schema("a Swiss's round under way; an arena's pairings so far")]
    next_round_at: Annotated[datetime | None, Schema("a daily Swiss's next round")]
    joined: bool
    withdrawn: bool
    my_game: Annotated[UUID | None, Schema("your tournament game under way")]
    winners: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentDetail(TournamentRow):
    standings: tuple[StandingRow, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableRow:
    round: int
    game: UUID
    seats: tuple[Seat, ...]
    status: Annotated[str, Schema(enum=["active", "finished"])]
    places: Annotated[tuple[int, ...] | None, Schema("by seat, once the game is over")]


@dataclass(frozen=True, slots=True, kw_only=True)
class Tables:
    results: tuple[TableRow, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentVerification:
    """The tournament's log checked: its chain, every round's tables and the standings recomputed."""

    ok: bool
    fair: Annotated[bool | None, Schema("every pairing recomputed from the revealed seed: null until it is over")]
    head_hash: str
    problems: tuple[str, ...]
