"""A person's data: everything stored about them (`export`, GET /api/me/export) and its erasure (`erase`,
DELETE /api/me), which leaves every game log, audit export, checkpoint and rating history verifying.

The logs name seats, and the rating history names account ids, never a person's name or address, so erasure
changes neither: the account stays as a tombstone under a stable pseudonym ("player-7f3a9c02"), its name, e-mail
address, settings, sessions, tokens, notifications, queue entry, vacations and chat lines (with the mutes and reports
it made) gone, its password unusable. First, in the same transaction, nothing it took part in is left waiting
for it (games/staff/erasure.py): its seats in games still running are resigned (the game's fallback bot plays on), its
seats in games not started are freed, a game it created and nobody started passes to the next person seated (or
goes), its invitations and rematch acceptances are withdrawn. Other people's notifications that named it ("Ann
offers a rematch") name the pseudonym instead. What is not erased here: the process logs, which an operator keeps
for a limited time (docs/OPERATIONS.md, "A person's data").
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db import transaction
from rest_framework.authtoken.models import Token

from games.clocks.models import Vacation
from games.lobby.models import QueueEntry
from games.people import preferences
from games.people.models import Account, Notification
from games.play.models import Invitation, Rating, RatingChange
from games.review.models import Analysis, SeatAnalysis
from games.staff import erasure
from games.store.models import Game, Seat
from games.table.models import ChatMessage, ChatMute, ChatReport
from games.tournaments.models import Entry, Tournament

PSEUDONYM_PREFIX = "player-"


def export(user: User) -> dict[str, Any]:
    """Everything stored about `user` (their token keys aside: a file of them would be a way into the account)."""
    seats = Seat.objects.filter(user=user).select_related("game").order_by("game__created_at")
    return {
        "account": {
            "id": user.pk, "date_joined": user.date_joined, "last_login": user.last_login,
            **preferences.account_settings(user),
        },
        "seats": [
            {
                "game": str(seat.game_id), "seat": seat.number, "map": seat.game.map, "status": seat.game.status,
                "ranked": seat.game.ranked, "created_at": seat.game.created_at, "resigned": bool(seat.stand_in),
                "client_seed": seat.client_seed or None,
            }
            for seat in seats
        ],
        "games_created": [str(pk) for pk in Game.objects.filter(created_by=user).values_list("pk", flat=True)],
        "ratings": list(Rating.objects.filter(user=user).values("map", "mu", "sigma", "games", "wins")),
        "rating_changes": list(
            RatingChange.objects.filter(user=user).order_by("id").values(
                "game", "map", "place", "seat_places", "mu_before", "sigma_before", "mu_after", "sigma_after"
            )
        ),
        "notifications": list(
            Notification.objects.filter(user=user).order_by("id").values("kind", "game", "at", "read", "text", "data")
        ),
        "queue": list(QueueEntry.objects.filter(user=user).values()),
        "tournaments": list(
            Entry.objects.filter(user=user).order_by("joined_at").values(
                "tournament", "joined_at", "client_seed", "rating", "withdrawn", "byes", "no_shows"
            )
        ),
        "tournaments_created": [
            str(pk) for pk in Tournament.objects.filter(created_by=user).values_list("pk", flat=True)
        ],
        "vacations": list(Vacation.objects.filter(user=user).values("starts_at", "ends_at")),
        "invitations": list(Invitation.objects.filter(invitee=user).values("game", "token")),
        "tokens": [{"created": created} for created in Token.objects.filter(user=user).values_list("created", flat=True)],
        "chat": list(
            ChatMessage.objects.filter(user=user).order_by("id").values(
                "id", "game", "channel", "text", "created_at", "hidden_at"
            )
        ),
        "muted": list(ChatMute.objects.filter(muter=user).values_list("muted__username", flat=True)),
        "chat_reports": list(ChatReport.objects.filter(reporter=user).values("message", "reason", "created_at")),
        "analyses": list(
            SeatAnalysis.objects.filter(user=user).order_by("at").values(
                "game", "seat", "map", "at", "decisions", "loss", "inaccuracies", "mistakes", "blunders"
            )
        ),
        "analyses_requested": [
            str(pk) for pk in Analysis.objects.filter(requested_by=user).values_list("game_id", flat=True)
        ],
    }


def pseudonym(user: User) -> str:
    """A stable name for an erased account: the same for the same account, told apart from every other name."""
    digest = hashlib.sha256(f"{settings.SECRET_KEY}:erased:{user.pk}".encode()).hexdigest()
    for length in range(8, len(digest) + 1):
        name = PSEUDONYM_PREFIX + digest[:length]
        if not User.objects.filter(username__iexact=name).exclude(pk=user.pk).exists():
            return name
    raise RuntimeError("no free pseudonym")  # 2^256 names: not reached


def erase(user: User) -> None:
    """Erase `user`'s personal data (see the module): what stays is a tombstone under a pseudonym. One
    transaction: a failure leaves the account and its games as they were."""
    with transaction.atomic():
        # Two erasures of one account: one after the other. NO KEY: a game formed meanwhile with this account in a
        # seat (the matchmaker's run, whose queue row hand_over waits for) only shares the key, so it is not blocked.
        User.objects.select_for_update(no_key=True).get(pk=user.pk)
        erasure.hand_over(user)
        old, new = user.username, pseudonym(user)
        user.username, user.email, user.first_name, user.last_name = new, "", "", ""
        user.is_active = False
        user.set_unusable_password()
        user.save()
        Account.objects.filter(user=user).delete()
        Token.objects.filter(user=user).delete()
        Notification.objects.filter(user=user).delete()
        Vacation.objects.filter(user=user).delete()
        Invitation.objects.filter(invitee=user).delete()
        ChatMessage.objects.filter(user=user).delete()
        ChatMute.objects.filter(muter=user).delete()
        ChatReport.objects.filter(reporter=user).delete()
        _forget_sessions(user)
        _rename_in_notifications(old, new)


def _forget_sessions(user: User) -> None:
    for session in Session.objects.all().iterator():
        if str(session.get_decoded().get("_auth_user_id")) == str(user.pk):
            session.delete()


def _rename_in_notifications(old: str, new: str) -> None:
    """Other people's notifications that named the account: they say who in `data["by"]` and begin with the name
    ("Ann offers a rematch", "Ann invites you")."""
    for note in Notification.objects.filter(data__by=old).iterator():
        if note.text.startswith(old):
            note.text = new + note.text[len(old) :]
        note.data = {**note.data, "by": new}
        note.save(update_fields=["text", "data"])
