"""A person's rows beside Django's user: the inbox, account settings, and the counted hits of rate limits."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.store.models import Game

NOTIFICATION_KINDS = [
    "your_turn", "game_formed", "invitation", "rematch_offered", "game_ended", "clock_running_out",
    "tournament_starting", "tournament_table", "tournament_ended",
]


class Notification(models.Model):
    """One line of a person's inbox, written in the transaction of what caused it (games/inbox.py). `key` makes
    it once only: a retried task or a second sweep writes nothing new. `mail`: pending, sent or skipped."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=32)
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField()
    read = models.BooleanField(default=False)
    text = models.CharField(max_length=300)
    data = models.JSONField(default=dict)
    key = models.CharField(max_length=200, unique=True)
    mail = models.CharField(max_length=8, default="pending", db_index=True)
    mailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-id"], name="notification_user_newest")]


class Account(models.Model):
    """A person's own settings (GET/PATCH /api/me): the e-mail address (used only once confirmed by its link), which
    kinds of notification are mailed, the language."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="account")
    email = models.EmailField(blank=True, default="")  # confirmed
    email_pending = models.EmailField(blank=True, default="")  # set, its confirmation link not opened yet
    notify = models.JSONField(default=dict)  # {kind: bool}; a kind not named is mailed
    language = models.CharField(max_length=8, blank=True, default="")




class LimitHit(models.Model):
    """One counted attempt at something limited (games/rate_limits.py): a wrong password, a confirmation mail, a
    queue join. `key` is a keyed hash of the rule and its subject (a username, an address, a client's IP), so no
    name or address is stored; rows past the longest window are deleted as new ones come."""

    key = models.CharField(max_length=64)
    at = models.DateTimeField(db_index=True)

    class Meta:
        indexes = [models.Index(fields=["key", "at"], name="limit_hit_key_at")]
