"""Table talk (docs/API.md, Table talk and languages): what a person may write in a game's chat, and read.

Chat is kept in PostgreSQL beside the game, never in its hash-chained log: it is not game state, so it is never in
`/events`, `/audit` or a game's export. Two channels: "table", which everyone reads and the seated players write
(spectators too when the game's creator allows it: `Game.spectators_at_table`), and "spectators", which only those
without a seat read and write. A message is text alone: at most `MAX_LENGTH` characters once trimmed, no control
or bidirectional-override characters (they could hide or reorder what others read). A person writes at most
`RATE_MESSAGES` messages in `RATE_SECONDS` (across all games and web processes: counted in the database). A person
may mute another for themselves; anyone who can read a message may report it; staff hide a message (gone for
everyone, kept for the record) or ban a person from writing (the Django admin, games/staff/admin.py).
A new or hidden message is announced to the game's sockets by id only (games/store/notify.py): each socket reads what
its own viewer may see (games/realtime/consumer.py).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from games.store import notify, viewers
from games.store.models import Game, GameId
from games.store.service_error import ServiceError
from games.store.shape_marks import Schema
from games.table.models import ChatBan, ChatMessage, ChatMute, ChatReport

MAX_LENGTH = 500
RATE_MESSAGES, RATE_SECONDS = 5, 10
PAGE = 200  # messages at most in one answer of the history
TABLE, SPECTATORS = ChatMessage.Channel.TABLE.value, ChatMessage.Channel.SPECTATORS.value
# Bidirectional overrides and isolates: they let a line show other than it reads (Trojan Source).
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
Viewer = AbstractBaseUser | AnonymousUser


@dataclass(frozen=True, slots=True, kw_only=True)
class Line:
    """A message as the API and the socket give it (its JSON: games/api/typed_json.py)."""

    id: Annotated[int, Schema(minimum=1)]
    channel: Annotated[str, Schema(enum=[TABLE, SPECTATORS])]
    username: str
    text: str
    at: datetime


def checked_text(text: object) -> str:
    """The message's text, trimmed; raises ServiceError (`invalid`, field `text`) for anything else."""
    if not isinstance(text, str):
        raise ServiceError("invalid", "text is a string", field="text")
    text = text.strip()
    if not text:
        raise ServiceError("invalid", "a message needs some text", field="text")
    if len(text) > MAX_LENGTH:
        raise ServiceError("invalid", f"a message is at most {MAX_LENGTH} characters", field="text")
    if hides_or_reorders(text):
        raise ServiceError("invalid", "control characters are not allowed in a message", field="text")
    return text


def hides_or_reorders(text: str) -> bool:
    """Whether `text` holds a control or bidirectional-override character (text others read: a message, a name)."""
    return any(unicodedata.category(c) in ("Cc", "Cs") or c in _BIDI for c in text)


def readable_channels(game: Game, viewer: Viewer) -> tuple[str, ...]:
    """The channels `viewer` reads: the table, and the spectators' own if they have no seat."""
    return (TABLE,) if viewers.seat_of(game, viewer) is not None else (TABLE, SPECTATORS)


def post(game: Game, *, user: User, text: object, channel: object = None) -> ChatMessage:
    """Write `text` in `game`'s chat as `user` (channel: "table" for a seated player, "spectators" for anyone else,
    unless named). Raises ServiceError; announces the message to the game's sockets after the commit."""
    text = checked_text(text)
    seated = viewers.seat_of(game, user) is not None
    wanted = channel if channel is not None else (TABLE if seated else SPECTATORS)
    if wanted not in (TABLE, SPECTATORS):
        raise ServiceError("invalid", f"channel is {TABLE!r} or {SPECTATORS!r}", field="channel")
    if wanted == SPECTATORS and seated:
        raise ServiceError("not_a_spectator", "the spectators' channel is for those without a seat", status=403)
    if wanted == TABLE and not seated and not game.spectators_at_table:
        raise ServiceError(
            "spectator", "spectators write in their own channel: this game's creator keeps the table to its players",
            status=403, field="channel",
        )
    if ChatBan.objects.filter(user=user).exists():
        raise ServiceError("chat_banned", "staff have barred you from writing in chat", status=403)
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one writer per person: the count holds
        since = timezone.now() - timedelta(seconds=RATE_SECONDS)
        if ChatMessage.objects.filter(user=user, created_at__gte=since).count() >= RATE_MESSAGES:
            raise ServiceError(
                "rate_limited", f"at most {RATE_MESSAGES} messages in {RATE_SECONDS} seconds", status=429,
                retry_after=str(RATE_SECONDS),
            )
        message = ChatMessage.objects.create(game=game, user=user, channel=wanted, text=text)
        transaction.on_commit(lambda: _announce(game.pk, "chat.posted", message.pk))
    return message


def visible(game: Game, *, viewer: Viewer, after: int = 0, upto: int | None = None) -> list[Line]:
    """The messages after id `after` (up to `upto`) that `viewer` may read, in order: their channels, not hidden,
    not by someone they muted; at most PAGE."""
    rows = _readable(game, viewer).filter(id__gt=after)
    if upto is not None:
        rows = rows.filter(id__lte=upto)
    return [_line(row) for row in rows.order_by("id").select_related("user")[:PAGE]]


def last_id(game_id: GameId) -> int:
    """The newest message's id in the game (0: none): where a socket that joins starts."""
    return ChatMessage.objects.filter(game_id=game_id).order_by("-id").values_list("id", flat=True).first() or 0


def readable_message(message_id: int, viewer: Viewer) -> ChatMessage:
    """The message if `viewer` may read it; raises ServiceError 404 otherwise."""
    message = ChatMessage.objects.select_related("game").filter(pk=message_id, hidden_at__isnull=True).first()
    if message is None or message.channel not in readable_channels(message.game, viewer):
        raise ServiceError("not_found", "no such message", status=404)
    return message


def report(message_id: int, *, reporter: User, reason: str = "") -> ChatReport:
    """`reporter` tells staff about a message they can read (once: a second report changes nothing)."""
    message = readable_message(message_id, reporter)
    if len(reason) > 300:
        raise ServiceError("invalid", "a reason is at most 300 characters", field="reason")
    found, _ = ChatReport.objects.get_or_create(message=message, reporter=reporter, defaults={"reason": reason.strip()})
    return found


def mute(muter: User, muted: User, *, on: bool) -> None:
    if muter.pk == muted.pk:
        raise ServiceError("yourself", "you cannot mute yourself", status=409, field="username")
    if on:
        ChatMute.objects.get_or_create(muter=muter, muted=muted)
    else:
        ChatMute.objects.filter(muter=muter, muted=muted).delete()


def muted_names(user: User) -> list[str]:
    return sorted(ChatMute.objects.filter(muter=user).values_list("muted__username", flat=True))


def hide(message_ids: list[int], *, staff: User) -> int:
    """Hide messages for everyone (kept for the record); the games' sockets are told. How many were hidden."""
    if not staff.is_staff:
        raise ServiceError("not_staff", "only staff hide a message", status=403)
    hidden = 0
    for message in ChatMessage.objects.filter(pk__in=message_ids, hidden_at__isnull=True):
        message.hidden_at, message.hidden_by = timezone.now(), staff
        message.save(update_fields=["hidden_at", "hidden_by"])
        transaction.on_commit(lambda m=message: _announce(m.game_id, "chat.hidden", m.pk))  # type: ignore[misc]
        hidden += 1
    return hidden


def ban(user: User, *, staff: User, reason: str = "") -> None:
    if not staff.is_staff:
        raise ServiceError("not_staff", "only staff ban a person from chat", status=403)
    ChatBan.objects.update_or_create(user=user, defaults={"by": staff, "reason": reason[:300]})


def _readable(game: Game, viewer: Viewer) -> QuerySet[ChatMessage]:
    rows = ChatMessage.objects.filter(game=game, hidden_at__isnull=True, channel__in=readable_channels(game, viewer))
    if viewer.is_authenticated:
        rows = rows.exclude(user_id__in=ChatMute.objects.filter(muter_id=viewer.pk).values("muted_id"))
    return rows


def _line(row: ChatMessage) -> Line:
    return Line(id=row.pk, channel=row.channel, username=row.user.username, text=row.text, at=row.created_at)


def _announce(game_id: GameId, kind: str, message_id: int) -> None:
    """Tell the game's sockets (every process's) that a message was posted or hidden: its id, never its text."""
    notify.post(notify.group_name(game_id), {"type": kind, "game": str(game_id), "id": message_id})
