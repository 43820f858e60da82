"""The queue (docs/API.md, Playing by day): join, look, leave; and the worker's run that forms tables.

Joining writes a row and queues a run (after the commit); the beat runs it too, every TTR_MATCH_SECONDS, so
waiting players' accepted rating gaps widen and bots come when they said they may. A run reads the waiting
rows, forms tables with the pure rule of games/lobby/pairing.py, and seats each table in a transaction of its own:
it locks the table's rows with SKIP LOCKED and goes on only if every one is still waiting and free (a row
someone is leaving just then, or that another run has taken, is not; those players wait for the next run), then
creates and starts the game through the same service as a rematch (services.game_form), marks the rows matched
with the game and notifies each member (`game_formed`, on their socket after the commit). Leaving locks the row
first: it waits for the one table being seated, then finds the row waiting (and deletes it) or matched (and says
which game took it) — never both.

Limits (issue #30): a person joins at most TTR_QUEUE_JOINS times in TTR_QUEUE_JOIN_WINDOW_SECONDS (429
`too_many_joins`); may not join again while the live game the queue last found them is not over (409
`queue_game_in_play`); and one at the cap of games (games/play/game_caps.py) may not join (409 `too_many_games`) and,
if they reached it while waiting, is passed over by the runs until a game of theirs ends.
"""

from __future__ import annotations

import dataclasses
import random
from datetime import datetime

from celery import shared_task
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.utils import timezone

from games.lobby import pairing
from games.lobby.models import QueueEntry
from games.lobby.shapes import QueueStatus
from games.people import inbox, rate_limits
from games.play import game_caps, ratings, services
from games.play.models import Rating
from games.store import notify
from games.store.models import Game, Seat, map_name
from games.store.service_error import ServiceError

LIVE_TURN_SECONDS = 90  # the clock of a live game the queue forms
DAILY = services.TimeControl("daily", None, 1, 3)


def join(user: User, map_name: str, counts: list[int], ranked: bool, speed: str, bots_after: int | None) -> QueueEntry:
    with transaction.atomic():
        current = QueueEntry.objects.select_for_update().filter(user=user).first()
        if current is not None and current.status == QueueEntry.Status.WAITING:
            raise ServiceError("already_queued", "you are in the queue already: leave it to change your choices", status=409)
        rate_limits.check(rate_limits.QUEUE_JOINS, str(user.pk))
        if current is not None and _playing(current):
            raise ServiceError(
                "queue_game_in_play", "the live game the queue found you is not over: finish or resign it first",
                status=409, game=str(current.game_id),
            )
        game_caps.check_room(user, speed)
        if current is not None:
            current.delete()  # the last table the queue found you: done with
        rating = Rating.objects.filter(user=user, map=map_name).first()
        entry = QueueEntry.objects.create(
            user=user, map=map_name, counts=counts, ranked=ranked, speed=speed, bots_after=bots_after,
            rating=ratings.shown(rating.mu, rating.sigma) if rating else 0.0, since=timezone.now(),
        )
        rate_limits.hit(rate_limits.QUEUE_JOINS, str(user.pk))
        transaction.on_commit(lambda: notify.send(match))
    return entry


def _playing(entry: QueueEntry) -> bool:
    """Whether the live game the queue formed for this entry still has its person at the table. Until it is over
    (or they resign) they may not queue again: otherwise two people joining and leaving over and over would form
    one live game after another and abandon each."""
    return (
        entry.status == QueueEntry.Status.MATCHED and entry.speed == "live" and entry.game_id is not None
        and Seat.objects.filter(game_id=entry.game_id, user_id=entry.user_id, stand_in__isnull=True)
        .exclude(game__status=Game.Status.FINISHED).exists()
    )


def entry_of(user: User | AnonymousUser) -> QueueEntry:
    entry = QueueEntry.objects.filter(user=user).first() if user.is_authenticated else None
    if entry is None:
        raise ServiceError("not_queued", "you are not in the queue", status=404)
    return entry


def status(entry: QueueEntry) -> QueueStatus:
    """Where a player stands: their choices, since when, and how many compatible players wait with them."""
    answer = QueueStatus(
        status=entry.status, since=entry.since, map=entry.map, players=tuple(entry.counts), ranked=entry.ranked,
        speed=entry.speed, bots_after=entry.bots_after, game=entry.game_id,
    )
    if entry.status != QueueEntry.Status.WAITING:
        return answer
    others = QueueEntry.objects.filter(
        status=QueueEntry.Status.WAITING, map=entry.map, ranked=entry.ranked, speed=entry.speed
    ).exclude(pk=entry.pk)
    wanted = set(entry.counts)
    waited = (timezone.now() - entry.since).total_seconds()
    return dataclasses.replace(
        answer, waiting=sum(1 for counts in others.values_list("counts", flat=True) if wanted & set(counts)),
        rating_gap=round(pairing.allowed_gap(waited), 2),
    )


def leave(user: User) -> None:
    with transaction.atomic():
        entry = QueueEntry.objects.select_for_update().filter(user=user).first()  # waits for a run that holds it
        if entry is None:
            raise ServiceError("not_queued", "you are not in the queue", status=404)
        if entry.status == QueueEntry.Status.MATCHED:
            raise ServiceError(
                "already_matched", "a table has already formed for you", status=409,
                game=str(entry.game_id) if entry.game_id else None,
            )
        entry.delete()


@shared_task(ignore_result=True)
def match() -> int:
    """The worker's run (queued by a join, and by beat every TTR_MATCH_SECONDS): how many tables it formed."""
    return len(run())


def run(*, now: datetime | None = None) -> list[Game]:
    """Form every table the queue allows now; the games started."""
    now = now or timezone.now()
    entries = list(QueueEntry.objects.filter(status=QueueEntry.Status.WAITING))
    full = {speed: game_caps.full([e.user_id for e in entries if e.speed == speed], speed) for speed in ("live", "daily")}
    waiting = [_waiting(e) for e in entries if e.user_id not in full[e.speed]]  # at the cap: wait for a game's end
    formed: list[Game] = []
    for table in pairing.form_tables(waiting, now.timestamp()):
        with transaction.atomic():  # one table at a time: a leave waits for one table's game, never for the run
            rows = {
                row.pk: row
                for row in QueueEntry.objects.select_for_update(skip_locked=True)
                .filter(pk__in=table.members, status=QueueEntry.Status.WAITING)
                .select_related("user")
            }
            if len(rows) == len(table.members):  # else someone left, or is leaving, or another run took them
                formed.append(_seat(table, [rows[member] for member in table.members], now))
    return formed


def _waiting(row: QueueEntry) -> pairing.Waiting:
    return pairing.Waiting(
        id=row.pk, rating=row.rating, since=row.since.timestamp(), map=row.map, counts=frozenset(row.counts),
        ranked=row.ranked, speed=row.speed, bots_after=row.bots_after,
    )


def _seat(table: pairing.Table, members: list[QueueEntry], now: datetime) -> Game:
    first = members[0]
    seats: list[User | str] = [member.user for member in members] + [settings.TTR_QUEUE_BOT] * table.bots
    random.SystemRandom().shuffle(seats)
    clock = DAILY if first.speed == "daily" else services.TimeControl("live", LIVE_TURN_SECONDS)
    game = services.game_form(seats, map_name=first.map, ranked=first.ranked, clock=clock)
    QueueEntry.objects.filter(pk__in=[member.pk for member in members]).update(
        status=QueueEntry.Status.MATCHED, game=game, matched_at=now
    )
    others = f" and {table.bots} bot{'s' if table.bots != 1 else ''}" if table.bots else ""
    for member in members:
        inbox.send(
            member.user_id, "game_formed", f"{game.pk}:{member.user_id}",
            f"A {table.players}-player {map_name(first.map)} table formed ({len(members)} players{others}): "
            "choose your tickets.", game.pk,
        )
    return game
