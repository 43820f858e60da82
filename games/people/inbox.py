"""Notifications: a person's inbox (docs/API.md, Playing by day), written in the transaction of what caused them.

`send` adds a row (once per `key`: a retried task or a second sweep adds nothing) and, after the commit, tells
the person's socket group (`/ws/me/`, games/realtime/me.py) which reads its new rows from the database, so
the message on the channel layer carries only ids, never the text. A notice lost on the way is repaired by the
socket's poll. E-mail is sent later, in batches, by a worker (games/people/mail.py).
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.people.models import NOTIFICATION_KINDS, Notification
from games.store import notify
from games.store.models import GameId

TEXT_LENGTH = 300


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


# Kinds of which only the newest matters: a new one marks the person's unread ones of the same game read, so a
# daily game of a hundred turns leaves one "your turn" in the inbox, not fifty (and one mail, not fifty).
SUPERSEDED = frozenset({"your_turn", "clock_running_out"})


def send(
    user_id: int, kind: str, key: str, text: str, game_id: GameId | None = None, **data: str | int | float
) -> Notification | None:
    """Put a notification in the inbox of `user_id` (in the caller's transaction); None when `key` was sent."""
    assert kind in NOTIFICATION_KINDS, kind
    try:
        with transaction.atomic():  # a savepoint: a duplicate key leaves the caller's transaction usable
            if kind in SUPERSEDED and game_id is not None:
                Notification.objects.filter(user_id=user_id, kind=kind, game_id=game_id, read=False).update(read=True)
            row = Notification.objects.create(
                user_id=user_id, kind=kind, key=f"{kind}:{key}"[:200], text=text[:TEXT_LENGTH], game_id=game_id,
                at=timezone.now(), data=data,
            )
    except IntegrityError:
        return None
    transaction.on_commit(lambda: notify.post(user_group(user_id), {"type": "user.notified", "id": row.pk}))
    return row


def as_json(row: Notification) -> dict[str, Any]:
    """A notification as the API shows it."""
    return {
        "id": row.pk, "kind": row.kind, "game": str(row.game_id) if row.game_id else None, "at": row.at.isoformat(),
        "read": row.read, "text": row.text, **({"data": row.data} if row.data else {}),
    }


def rows_after(user_id: int, *, after: int) -> list[Notification]:
    return list(Notification.objects.filter(user_id=user_id, pk__gt=after).order_by("pk")[:100])


def newest_id(user_id: int) -> int:
    return Notification.objects.filter(user_id=user_id).order_by("-pk").values_list("pk", flat=True).first() or 0


def mark_read(user_id: int, ids: list[int] | None) -> int:
    """Mark the user's notifications `ids` read (all of them when None); how many changed."""
    rows = Notification.objects.filter(user_id=user_id, read=False)
    if ids is not None:
        rows = rows.filter(pk__in=ids)
    return rows.update(read=True)
