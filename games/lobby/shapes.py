"""What the queue answers (docs/API.md, Playing by day): where a player stands, a frozen dataclass whose JSON and
OpenAPI schema are read off its type hints (games/api/typed_json.py, games/api/typed_schema.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated
from uuid import UUID

from games.lobby.models import QueueEntry
from games.play.shapes import MapName
from games.store.models import SPEED_CHOICES
from games.store.shape_marks import ABSENT, Absent, Schema


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueStatus:
    """Your queue entry: your choices, since when, and (while waiting) how many compatible players wait with you."""

    status: Annotated[str, Schema(enum=[s.value for s in QueueEntry.Status])]
    since: datetime
    map: MapName
    players: tuple[Annotated[int, Schema(minimum=2, maximum=5)], ...]
    ranked: bool
    speed: Annotated[str, Schema(enum=[s for s, _ in SPEED_CHOICES])]
    bots_after: int | None
    game: Annotated[UUID | None, Schema("the game a table formed for you")]
    waiting: Annotated[int | Absent, Schema("compatible players waiting besides you")] = ABSENT
    rating_gap: Annotated[float | Absent, Schema("the rating gap you accept now (it widens)")] = ABSENT
