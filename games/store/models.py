"""Games, seats and the append-only event log.

`Event` rows are the record of a game: unique (game, seq), each hash-chained to the one before, never
updated or deleted (the model refuses in code; on PostgreSQL a trigger refuses in the database too).
`Game.seq` and `Game.head_hash` mirror the last event and are moved in the same transaction as the append,
with a conditional UPDATE, so two writers at the same `expected_seq` cannot both win. `Snapshot` rows are an
optimisation only: deleting them all changes nothing but speed.
"""

from __future__ import annotations

import uuid
from typing import Any, NoReturn

from django.conf import settings
from django.db import models
from django.utils.functional import cached_property

from games.engine.hash_chain import GENESIS_HASH  # a new game's head: the chain is plain Python

MAP_CHOICES = [("europe", "Europe"), ("usa", "USA")]
# A game's key as the code passes it around: the UUID, or its text (from a URL, a task's arguments, a socket's path).
GameId = uuid.UUID | str


def map_name(map_id: str) -> str:
    """The map's name for people ("USA" for "usa")."""
    return dict(MAP_CHOICES).get(map_id, map_id)

BOT_LEVELS = ["random", "greedy", "strong"]
SPEED_CHOICES = [("live", "Live"), ("daily", "Daily")]


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
    # Time control (docs/API.md, Playing by day): "live" has `turn_seconds` a decision; "daily" has `days_per_move` a
    # decision and a bank of `bank_days` each player draws on once a decision's days are spent (games/clocks.py).
    speed = models.CharField(max_length=8, choices=SPEED_CHOICES, default="live")
    days_per_move = models.PositiveSmallIntegerField(null=True, blank=True)
    bank_days = models.PositiveSmallIntegerField(null=True, blank=True)
    private = models.BooleanField(default=False)  # not listed in the lobby; seats by invitation
    rematch_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
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
    # Provably fair chance (X-RNG-2, docs/FAIRNESS.md): the secret server seed, 32 bytes as hex, drawn when the game
    # is created; its hash is public at once, the seed itself in the log once the game is over. "": a game from
    # before fair chance.
    server_seed = models.CharField(max_length=64, blank=True, default="")
    # Table talk (games/chat.py): spectators write in their own channel unless the creator lets them write at the table.
    spectators_at_table = models.BooleanField(default=False)
    # The tournament this game is a table of (games/tournaments/), and its round: plain values, not a foreign key, so
    # that a game's record names no layer above its own.
    tournament = models.UUIDField(null=True, blank=True, db_index=True)
    tournament_round = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [  # the stream and the dumps read finished public games in this order (games/api/game_lines.py)
            models.Index(
                fields=["finished_at", "id"], name="game_finished_public",
                condition=models.Q(status="finished", private=False),
            )
        ]

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
    # The seq the seat's player last looked at (GET /state, the game's socket): /api/me/games counts what is new.
    seen_seq = models.PositiveIntegerField(default=0)
    # The seat's own seed (X-RNG-2): hex, up to 32 bytes, given when it joined or started the game ("": none).
    client_seed = models.CharField(max_length=64, blank=True, default="")
    # Hints the seat's player asked for (the `hint_used` events in the log are the record; this is their count).
    hints = models.PositiveIntegerField(default=0)

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
    """One fact of a game. `data` is the whole engine event (hidden parts included) as JSON.

    Keyed by (game, seq), no surrogate id: on PostgreSQL the table is hash-partitioned by game (migration 0016), and
    a key that leads with the game is what lets every read of a game touch one partition (and Citus distribute the
    table by game with no query changed). The key's index serves the foreign key too: no index of its own."""

    pk = models.CompositePrimaryKey("game", "seq")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False)
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

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.type}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError("events are append-only: an event row is never updated")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise AppendOnlyError("events are append-only: an event row is never deleted")


class Snapshot(models.Model):
    """The engine state after event `seq`. Only a cache of the log: safe to delete.

    `state` holds `games.snapshot_codec.encode_state` (JSON of plain data, the board by its map name) and
    `format` that encoding's version: a row of any other format (0: the old pickles) is ignored. Keyed by (game,
    seq) and partitioned by game on PostgreSQL, as `Event` is.
    """

    pk = models.CompositePrimaryKey("game", "seq")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="snapshots", db_index=False)
    seq = models.PositiveIntegerField()
    format = models.PositiveSmallIntegerField(default=0)
    state = models.BinaryField()


class BotAccount(models.Model):
    """The account a bot level is rated as (`greedy-bot` for "greedy"): a real user that cannot log in."""

    level = models.CharField(max_length=16, unique=True)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bot_account")

    def __str__(self) -> str:
        return f"{self.level} bot ({self.user_id})"




class Heartbeat(models.Model):
    """A background process saying it is alive (not a fact of any game): each Celery worker every few seconds, and
    the sweep each time beat has it run. /readyz and the containers' health checks read them (ttr_server/health.py)."""

    name = models.CharField(max_length=200, primary_key=True)  # "worker:<celery hostname>" or "sweep"
    at = models.DateTimeField()
