"""What a person's vacations answer (docs/API.md, Playing by day), a frozen dataclass whose JSON and OpenAPI schema
are read off its type hints (games/api/typed_json.py, games/api/typed_schema.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from games.store.shape_marks import Schema


@dataclass(frozen=True, slots=True, kw_only=True)
class VacationStatus:
    """Your daily clocks' vacation."""

    until: Annotated[datetime | None, Schema("your daily clocks stand still until then")]
    days_left: Annotated[int, Schema("vacation days left in the last 365 days")]
