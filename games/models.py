"""Games, seats and the append-only event log.

`Event` rows are the record of a game: unique (game, seq), each hash-chained to the one before, never
updated or deleted (the model refuses in code; on PostgreSQL a trigger refuses in the database too).
`Game.seq` and `Game.head_hash` mirror the last event and are moved in the same transaction as the append,
with a conditional UPDATE, so two writers at the same `expected_seq` cannot both win. `Snapshot` rows are an
optimisation only: deleting them all changes nothing but speed.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.utils.functional import cached_property

MAP_CHOICES = [("europe", "Europe"), ("usa", "USA")]
BOT_LEVELS = ["random", "greedy", "strong"]
GENESIS_HASH = "0" * 64


class Game(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"
        ACTIVE = "active"
        FINISHED = "finished"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    map = models.CharField(max_length=16, choices=MAP_CHOICES)
    players = models.PositiveSmallIntegerField()
    ranked = models.BooleanField(default=False)
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)
    # The bot level that plays a seat whose time ran out or whose player resigned (X-TIME-1).
    fallback_bot = models.CharField(max_length=16, default="greedy")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    scored_at = models.DateTimeField(null=True, blank=True)  # when its score was found in the log (or appended)
    seq = models.PositiveIntegerField(default=0)
    head_hash = models.CharField(max_length=64, default=GENESIS_HASH)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.map} game {self.id} ({self.status})"

    @cached_property
    def seat_list(self) -> list[Seat]:
        """The seats in order (prefetched ones when there are; `selectors.game_row` fills this in its one query)."""
        return list(self.seats.all())

    @property
    def bot_seats(self) -> frozenset[int]:
        """The seats a bot plays: bot seats, and the seats of players who resigned."""
        return frozenset(seat.number for seat in self.seat_list if seat.played_by_bot)

    @property
    def bot_levels(self) -> dict[int, str]:
        return {seat.number: seat.played_by_bot for seat in self.seat_list if seat.played_by_bot}


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    bot = models.CharField(max_length=16, null=True, blank=True)
    # Set when the seat's player resigns: the level of the bot that plays the seat from then on (the
    # `seat_resigned` event in the log is the record; this copy lets a move find the bots without a replay).
    stand_in = models.CharField(max_length=16, null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="seat_unique_number"),
            models.UniqueConstraint(
                fields=["game", "user"], condition=models.Q(user__isnull=False), name="seat_unique_user"
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.number} of {self.game_id}"

    @property
    def taken(self) -> bool:
        return self.user_id is not None or bool(self.bot)

    @property
    def played_by_bot(self) -> str | None:
        """The level of the bot that makes this seat's decisions, or None when its player does."""
        return self.bot or self.stand_in or None


class AppendOnlyError(RuntimeError):
    pass


class Event(models.Model):
    """One fact of a game. `data` is the whole engine event (hidden parts included) as JSON."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    seat = models.SmallIntegerField(null=True, blank=True)
    data = models.JSONField()
    commitment = models.CharField(max_length=64, blank=True, default="")
    salt = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField()
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    # Why a bot made the move this row opens ("claims Berlin-Wien: ticket Berlin-Roma needs it"); blank for a
    # person's move and for the move's other rows. Covered by the row hash when set (log.row_hash).
    reason = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq")]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.type}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError("events are append-only: an event row is never updated")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        raise AppendOnlyError("events are append-only: an event row is never deleted")


class Snapshot(models.Model):
    """The engine state after event `seq`, pickled. Only a cache of the log: safe to delete."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="snapshots")
    seq = models.PositiveIntegerField()
    state = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="snapshot_unique_seq")]


# Ratings (games.ratings): openskill's Plackett-Luce defaults, a new player's rating on each map.
RATING_MU = 25.0
RATING_SIGMA = 25.0 / 3


class BotAccount(models.Model):
    """The account a bot level is rated as (`greedy-bot` for "greedy"): a real user that cannot log in."""

    level = models.CharField(max_length=16, unique=True)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bot_account")

    def __str__(self) -> str:
        return f"{self.level} bot ({self.user_id})"


class Rating(models.Model):
    """A player's current rating on one map. Derived data: `recompute_ratings` rebuilds it from the changes."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="ratings")
    map = models.CharField(max_length=16, choices=MAP_CHOICES)
    mu = models.FloatField(default=RATING_MU)
    sigma = models.FloatField(default=RATING_SIGMA)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "map"], name="rating_unique_user_map")]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.map}: {self.mu:.2f} ± {self.sigma:.2f}"


class RatingChange(models.Model):
    """One account's rating change from one ranked game. The id is the scoring order.

    `seat_places` holds the place of every seat the account held ({"seat": place}); `place` is the best of them.
    With the other accounts' rows of the game, that is the whole match, so the history can be replayed exactly."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="rating_changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="rating_changes")
    map = models.CharField(max_length=16, choices=MAP_CHOICES)
    place = models.PositiveSmallIntegerField()
    seat_places = models.JSONField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="rating_change_unique_game_user")]
        indexes = [models.Index(fields=["user", "-id"], name="rating_change_user_newest")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.game_id}: place {self.place}"


class Heartbeat(models.Model):
    """A background process saying it is alive (not a fact of any game): each Celery worker every few seconds, and
    the sweep each time beat has it run. /readyz and the containers' health checks read them (ttr_server/health.py)."""

    name = models.CharField(max_length=200, primary_key=True)  # "worker:<celery hostname>" or "sweep"
    at = models.DateTimeField()
