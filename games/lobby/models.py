"""The queue of players waiting for a table (games/lobby/matchmaker.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.store.models import MAP_CHOICES, SPEED_CHOICES, Game


class QueueEntry(models.Model):
    """A player waiting for a table (POST /api/queue). The matchmaker (games/matchmaker.py) locks waiting rows
    with SKIP LOCKED, seats them, and marks them matched with the game; a new POST replaces a matched row."""

    class Status(models.TextChoices):
        WAITING = "waiting"
        MATCHED = "matched"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_entry")
    map = models.CharField(max_length=16, choices=MAP_CHOICES)
    counts = models.JSONField()  # the table sizes accepted: [2, 3, ...]
    ranked = models.BooleanField(default=False)
    speed = models.CharField(max_length=8, choices=SPEED_CHOICES, default="live")
    bots_after = models.PositiveIntegerField(null=True, blank=True)  # seconds; None: never fill with bots
    rating = models.FloatField(default=0.0)  # the conservative rating on the map when they joined
    since = models.DateTimeField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.WAITING, db_index=True)
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    matched_at = models.DateTimeField(null=True, blank=True)
