"""What a person's own settings answer (GET /api/me, docs/API.md), a frozen dataclass whose JSON and OpenAPI schema
are read off its type hints (games/api/typed_json.py, games/api/typed_schema.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated

from games.people.models import NOTIFICATION_KINDS
from games.store.shape_marks import Schema

LANGUAGES = ["en", "cs", "ro", "pl", "hu", "fi"]


@dataclass(frozen=True, kw_only=True)
class AccountSettings:
    username: str
    email: Annotated[str | None, Schema("the confirmed address notifications are mailed to", format="email")]
    email_pending: Annotated[str | None, Schema("an address whose link is not opened yet", format="email")]
    notify: Annotated[
        Mapping[str, bool],
        Schema("every kind of notification: mailed or not", required=NOTIFICATION_KINDS),
    ]
    language: Annotated[str | None, Schema("null: Accept-Language decides", enum=LANGUAGES)]
    muted: Annotated[tuple[str, ...], Schema("the people whose chat lines you do not get")]
