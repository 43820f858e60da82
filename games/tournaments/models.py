"""Tournaments (docs/TOURNAMENTS.md): the tournament, its append-only hash-chained log, its entrants and its tables.

`TournamentEvent` rows are the tournament's record, chained like a game's events (games/engine/hash_chain.py) and
never updated or deleted; `Tournament.seq`/`head_hash` mirror the last one. `Entry` and `Table` are the working
copy the server pairs from (who is in, who waits in an arena's pool, which game each table plays); everything in
them is also in the log or in the games' own logs, and `verify` recomputes the pairings and standings from those.
"""

from __future__ import annotations

import uuid
from typing import Any, NoReturn

from django.conf import settings
from django.db import models

from games.engine.hash_chain import GENESIS_HASH
from games.store.models import MAP_CHOICES, SPEED_CHOICES, AppendOnlyError, Game


class Tournament(models.Model):
    class Format(models.TextChoices):
        SWISS = "swiss"
        ARENA = "arena"

    class Status(models.TextChoices):
        UPCOMING = "upcoming"
        RUNNING = "running"
        FINISHED = "finished"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=80)
    format = models.CharField(max_length=8, choices=Format.choices)
    map = models.CharField(max_length=16, choices=MAP_CHOICES)
    table_size = models.PositiveSmallIntegerField()
    smaller_tables = models.BooleanField(default=False)
    speed = models.CharField(max_length=8, choices=SPEED_CHOICES, default="live")
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)
    days_per_move = models.PositiveSmallIntegerField(null=True, blank=True)
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)  # Swiss
    minutes = models.PositiveIntegerField(null=True, blank=True)  # arena: the window
    starts_at = models.DateTimeField(db_index=True)
    max_players = models.PositiveIntegerField(null=True, blank=True)
    ranked = models.BooleanField(default=False)
    bots_fill = models.BooleanField(default=False)
    private = models.BooleanField(default=False)
    featured = models.BooleanField(default=False)  # set by staff (the admin): listed first
    bot_level = models.CharField(max_length=16, default="greedy")  # fills seats, plays for the timed out and resigned
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.UPCOMING, db_index=True)
    round = models.PositiveIntegerField(default=0)  # Swiss: the round paired last; arena: the pairings so far
    next_round_at = models.DateTimeField(null=True, blank=True)  # a daily Swiss's next round, once the last is over
    ended_at = models.DateTimeField(null=True, blank=True)
    starting_told = models.BooleanField(default=False)  # the `tournament_starting` notices went
    server_seed = models.CharField(max_length=64)  # secret until the end; its SHA-256 is public from creation
    seed = models.CharField(max_length=64, blank=True, default="")  # the pairing seed, fixed at the start (hex)
    seq = models.PositiveIntegerField(default=0)
    head_hash = models.CharField(max_length=64, default=GENESIS_HASH)

    class Meta:
        ordering = ["starts_at"]

    def __str__(self) -> str:
        return f"{self.format} tournament {self.name!r} ({self.status})"


class TournamentEvent(models.Model):
    """One fact of a tournament: created, registered, withdrawn, started, round_paired, game_finished, ended."""

    pk = models.CompositePrimaryKey("tournament", "seq")
    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    data = models.JSONField()
    at = models.DateTimeField()
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["tournament", "seq"]

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError("a tournament's events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise AppendOnlyError("a tournament's events are append-only")


class Entry(models.Model):
    """A person registered in a tournament."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_entries")
    client_seed = models.CharField(max_length=64, blank=True, default="")
    rating = models.FloatField(default=0.0)  # conservative rating on the map at registration: pairs and breaks ties
    joined_at = models.DateTimeField()
    withdrawn = models.BooleanField(default=False)
    byes = models.PositiveSmallIntegerField(default=0)
    no_shows = models.PositiveSmallIntegerField(default=0)  # consecutive games without a move of their own
    waiting_since = models.DateTimeField(null=True, blank=True)  # arena: in the pool since (None: at a table)

    class Meta:
        ordering = ["joined_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="entry_unique_user")]


class Table(models.Model):
    """One game of a tournament: its round (an arena's pairing number), its seats as named in the log."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    round = models.PositiveIntegerField()
    game = models.OneToOneField(Game, on_delete=models.PROTECT, related_name="+")
    seats = models.JSONField()  # players (account ids, as text) and "bot:<level>", in seat order
    finished = models.BooleanField(default=False, db_index=True)
    places = models.JSONField(null=True, blank=True)  # by seat, once finished
    scores = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["round", "pk"]
