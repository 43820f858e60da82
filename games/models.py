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

from games.chain import GENESIS_HASH  # a new game's head: the chain is plain Python (games/chain.py)

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

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise AppendOnlyError("events are append-only: an event row is never deleted")


class Snapshot(models.Model):
    """The engine state after event `seq`. Only a cache of the log: safe to delete.

    `state` holds `games.snapshot_codec.encode_state` (JSON of plain data, the board by its map name) and
    `format` that encoding's version: a row of any other format (0: the old pickles) is ignored.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="snapshots")
    seq = models.PositiveIntegerField()
    format = models.PositiveSmallIntegerField(default=0)
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


# Playing by day (docs/API.md): invitations, rematches, the queue, notifications, accounts' settings, vacations.


class Invitation(models.Model):
    """A token that seats whoever holds it in a private game, once. `invitee`: the person it was sent to (None:
    the game's link, which the creator passes on; a new link replaces a used one while seats are free)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=64, unique=True)
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="invitations"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    used_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    used_at = models.DateTimeField(null=True, blank=True)


class RematchOffer(models.Model):
    """An offer to play a finished game again; `game` is set once every person of the table has accepted."""

    finished = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="rematch_offer")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    accepted_by = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="+")
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)


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


NOTIFICATION_KINDS = ["your_turn", "game_formed", "invitation", "rematch_offered", "game_ended", "clock_running_out"]


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


class Vacation(models.Model):
    """A stretch of time during which the person's daily clocks stand still (POST /api/me/vacation)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vacations")
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()


class Checkpoint(models.Model):
    """A finished game's record, signed: its id, final seq and head hash under one of the server's Ed25519 keys
    (games/signing.py, docs/CHECKPOINTS.md). Written once the game is scored; never changed."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="checkpoint")
    seq = models.PositiveIntegerField()
    head_hash = models.CharField(max_length=64)
    key_id = models.CharField(max_length=64)
    signature = models.CharField(max_length=128)  # base64 of the 64-byte Ed25519 signature
    signed_at = models.DateTimeField(auto_now_add=True)


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


class LimitHit(models.Model):
    """One counted attempt at something limited (games/rate_limits.py): a wrong password, a confirmation mail, a
    queue join. `key` is a keyed hash of the rule and its subject (a username, an address, a client's IP), so no
    name or address is stored; rows past the longest window are deleted as new ones come."""

    key = models.CharField(max_length=64)
    at = models.DateTimeField(db_index=True)

    class Meta:
        indexes = [models.Index(fields=["key", "at"], name="limit_hit_key_at")]
