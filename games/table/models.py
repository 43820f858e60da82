"""Table talk: chat lines, mutes, reports and bans (games/table/chat.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.store.models import Game


class ChatMessage(models.Model):
    """One line of a game's table talk (games/chat.py): kept here, never in the game's log (chat is not game state).
    `channel` "table" (everyone reads it) or "spectators" (only those without a seat). Staff may hide a message:
    hidden for everyone, kept for the record."""

    class Channel(models.TextChoices):
        TABLE = "table"
        SPECTATORS = "spectators"

    id = models.BigAutoField(primary_key=True)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    channel = models.CharField(max_length=16, choices=Channel.choices)
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        indexes = [models.Index(fields=["game", "id"]), models.Index(fields=["user", "created_at"])]

    def __str__(self) -> str:
        return f"chat {self.pk} in {self.game_id}"


class ChatMute(models.Model):
    """`muter` no longer receives `muted`'s table talk (their choice alone: nobody else is affected)."""

    muter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["muter", "muted"], name="one_mute_per_pair")]


class ChatReport(models.Model):
    """Someone reported a message to staff (the Django admin lists reports; staff may hide the message or ban its
    author from chat)."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="one_report_per_person")]

    def __str__(self) -> str:
        return f"report of chat {self.message_id}"


class ChatBan(models.Model):
    """A person staff have barred from writing in any game's chat (they still read it)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    reason = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"chat ban of {self.user_id}"
