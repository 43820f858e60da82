"""Post-game analyses, stored beside a game and never in its log (games/review/analyses.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.store.models import MAP_CHOICES, Game


class Analysis(models.Model):
    """A finished game judged by the strong bot (games/analyses.py, bots/analysis.py): stored once, beside the game
    and never in its log, with the version of the bot that made it, its budget and the head of the log it read."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="analysis")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED, db_index=True)
    progress = models.FloatField(default=0.0)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )  # None: queued by the worker for a ranked game while the queue was idle
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)  # the run in progress (a stale one is run again)
    finished_at = models.DateTimeField(null=True, blank=True)
    bot = models.CharField(max_length=64, blank=True, default="")
    budget = models.JSONField(default=dict)
    seq = models.PositiveIntegerField(default=0)  # the log analysed: its last seq and that event's hash
    head_hash = models.CharField(max_length=64, blank=True, default="")
    decisions = models.JSONField(default=list)
    leads = models.JSONField(default=list)
    cpu_seconds = models.FloatField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True, default="")

    def __str__(self) -> str:
        return f"analysis of {self.game_id} ({self.status})"


class SeatAnalysis(models.Model):
    """One seat's part of an analysis, for the player's page: decisions judged, points lost, marks."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seat_analyses")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="seat_analyses"
    )
    map = models.CharField(max_length=16, choices=MAP_CHOICES)
    at = models.DateTimeField()  # when the game finished
    decisions = models.PositiveIntegerField()
    loss = models.FloatField()  # points lost over those decisions, summed
    inaccuracies = models.PositiveIntegerField(default=0)
    mistakes = models.PositiveIntegerField(default=0)
    blunders = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seat"], name="seat_analysis_unique")]
        indexes = [models.Index(fields=["user", "map", "-at"], name="seat_analysis_user_map")]
