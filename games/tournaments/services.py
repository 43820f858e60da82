"""Use cases that change a tournament: create, join, withdraw, start, pair, record a finished game, end.

Each takes the tournament's row lock and appends what it did to the tournament's log (games/tournaments/log.py)
in the same transaction; what people and sockets hear goes after the commit (games/tournaments/notices.py). Lock
order, as scoring's: a game's row before its tournament's, so a withdrawal resigns the game first.
Pairings are the pure functions of pairing.py, called with what the log holds, so `verify` can call them again.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from celery import shared_task
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games.engine.events import GameScored
from games.engine.seeds import Seeds, Stream
from games.people import rate_limits
from games.play import ratings, services
from games.play.models import Rating
from games.store import notify
from games.store.models import Game
from games.store.service_error import ServiceError
from games.table.chat import hides_or_reorders
from games.tournaments import log, notices, pairing, reading
from games.tournaments.models import Entry, Table, Tournament
from games.tournaments.reading import ids
from games.trust import chance

STARTING_NOTICE = timedelta(minutes=10)
ARENA_WAIT_SECONDS = {"live": 20.0, "daily": 3600.0}  # T-ARENA-1's wait before a smaller table or bots
NO_SHOWS_TO_WITHDRAW = 2
LIVE_TURN_SECONDS = 90
DAILY_BANK_DAYS = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class NewTournament:
    name: str
    format: str
    map: str
    table_size: int
    smaller_tables: bool
    speed: str
    turn_seconds: int | None
    days_per_move: int | None
    rounds: int | None
    minutes: int | None
    starts_at: datetime
    max_players: int | None
    ranked: bool
    bots_fill: bool
    private: bool


def new_tournament(fields: dict[str, Any]) -> NewTournament:
    """A validated body's fields as a NewTournament (an optional field left out is None)."""
    values: dict[str, Any] = {name: fields.get(name) for name in NewTournament.__dataclass_fields__}
    return NewTournament(**values)


def tournament_create(user: User, new: NewTournament) -> Tournament:
    """A tournament `user` organises (they do not join it by creating it); its server seed's hash public at once."""
    now = timezone.now()
    if hides_or_reorders(new.name):
        raise ServiceError("invalid", "control characters are not allowed in a name", field="name")
    if new.starts_at < now - timedelta(minutes=1):
        raise ServiceError("invalid", "starts_at is in the past", field="starts_at")
    if new.starts_at > now + timedelta(days=30):
        raise ServiceError("invalid", "starts_at is at most 30 days ahead", field="starts_at")
    swiss = new.format == Tournament.Format.SWISS
    turn_seconds = (new.turn_seconds or LIVE_TURN_SECONDS) if new.speed == "live" else None
    with transaction.atomic():
        rate_limits.check(rate_limits.TOURNAMENTS_CREATED, str(user.pk))
        tournament = Tournament.objects.create(
            name=new.name, format=new.format, map=new.map, table_size=new.table_size, smaller_tables=new.smaller_tables,
            speed=new.speed, turn_seconds=turn_seconds,
            days_per_move=(new.days_per_move or 1) if new.speed == "daily" else None,
            rounds=new.rounds if swiss else None, minutes=None if swiss else new.minutes, starts_at=new.starts_at,
            max_players=new.max_players, ranked=new.ranked, bots_fill=new.bots_fill, private=new.private,
            created_by=user, server_seed=chance.new_server_seed(),
        )
        log.append(tournament, "created", {**reading.settings_json(tournament), "created_by": str(user.pk),
                                           "server_seed_hash": reading.seed_hash(tournament)})
        rate_limits.hit(rate_limits.TOURNAMENTS_CREATED, str(user.pk))
    return tournament


def tournament_join(tournament_id: UUID | str, user: User, client_seed: str = "") -> Tournament:
    seed = chance.client_seed(client_seed)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status == Tournament.Status.FINISHED:
            raise ServiceError("finished", "the tournament is over", status=409)
        if tournament.status == Tournament.Status.RUNNING and tournament.format == Tournament.Format.SWISS:
            raise ServiceError("started", "a Swiss tournament takes no one once it has begun", status=409)
        if tournament.status == Tournament.Status.RUNNING and timezone.now() >= reading.window_end(tournament):
            raise ServiceError("finished", "the arena's window is over: its last games are being played", status=409)
        if Entry.objects.filter(tournament=tournament, user=user).exists():
            raise ServiceError("already_joined", "you are registered in this tournament", status=409)
        if tournament.max_players and tournament.entries.count() >= tournament.max_players:
            raise ServiceError("full", f"the tournament is full ({tournament.max_players} players)", status=409)
        now = timezone.now()
        rating = _rating(user, tournament.map)
        running = tournament.status == Tournament.Status.RUNNING
        Entry.objects.create(
            tournament=tournament, user=user, client_seed=seed, rating=rating, joined_at=now,
            waiting_since=now if running else None,
        )
        log.append(tournament, "registered", {"player": str(user.pk), "client_seed": seed, "rating": rating})
        _changed(tournament, pair_soon=running)
    return tournament


def _rating(user: User, map_name: str) -> float:
    row = Rating.objects.filter(user=user, map=map_name).first()
    return round(ratings.shown(row.mu, row.sigma), 4) if row else 0.0


def tournament_withdraw(tournament_id: UUID | str, user: User) -> None:
    """The person leaves: before the start their entry goes; after it, their running game is resigned and they are
    paired no more (their results stay, T-PTS-4)."""
    entry = Entry.objects.filter(tournament_id=tournament_id, user=user).first()
    if entry is None or entry.withdrawn:
        raise ServiceError("not_joined", "you are not playing in this tournament", status=404)
    with transaction.atomic():
        for table in Table.objects.filter(tournament_id=tournament_id, finished=False):
            if str(user.pk) in table.seats:
                with suppress(ServiceError):  # over already, or resigned already: nothing to leave
                    services.game_resign(table.game_id, user=user)
        tournament = _locked(tournament_id)
        entry = Entry.objects.select_for_update().get(pk=entry.pk)
        if tournament.status == Tournament.Status.UPCOMING:
            entry.delete()
        else:
            entry.withdrawn, entry.waiting_since = True, None
            entry.save(update_fields=["withdrawn", "waiting_since"])
        log.append(tournament, "withdrawn", {"player": str(user.pk), "why": "asked"})
        _changed(tournament)


def _locked(tournament_id: UUID | str) -> Tournament:
    try:
        return log.locked(tournament_id)
    except Tournament.DoesNotExist as error:
        raise ServiceError("not_found", "no such tournament", status=404) from error


@shared_task(ignore_result=True)
def tournaments_tick() -> int:
    return tick()


@shared_task(ignore_result=True, acks_late=True)
def advance_tournament(tournament_id: str) -> bool:
    return advance(tournament_id)


def _changed(tournament: Tournament, *, pair_soon: bool = False) -> None:
    """After the commit: the tournament's watchers hear of it; `pair_soon`: a worker looks for a pairing at once."""
    notices.changed(tournament)
    if pair_soon:
        tournament_id = str(tournament.pk)
        transaction.on_commit(lambda: notify.send(advance_tournament, tournament_id))


def tick(now: datetime | None = None) -> int:
    """Beat's run: tell who starts soon, start what is due, start a daily Swiss's due round, pair arenas' pools,
    end what is over. How many tournaments it moved."""
    now = now or timezone.now()
    moved = 0
    soon = Tournament.objects.filter(
        status=Tournament.Status.UPCOMING, starting_told=False, starts_at__lte=now + STARTING_NOTICE
    )
    for tournament_id in soon.values_list("pk", flat=True):
        with transaction.atomic():
            notices.starting(_locked(tournament_id))
    due = Tournament.objects.filter(status=Tournament.Status.UPCOMING, starts_at__lte=now)
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING)
    for tournament_id in [*due.values_list("pk", flat=True), *running.values_list("pk", flat=True)]:
        moved += advance(tournament_id, now=now)
    return moved


def advance(tournament_id: UUID | str, *, now: datetime | None = None) -> bool:
    """Whatever is due for this tournament now (start, pair, end); False when nothing was."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status == Tournament.Status.UPCOMING:
            return tournament.starts_at <= now and _start(tournament, now)
        if tournament.status != Tournament.Status.RUNNING:
            return False
        if tournament.format == Tournament.Format.SWISS:
            return _advance_swiss(tournament, now)
        return _advance_arena(tournament, now)


def _start(tournament: Tournament, now: datetime) -> bool:
    entries = list(tournament.entries.filter(withdrawn=False))
    if len(entries) < 2:
        _end(tournament, now, why="too_few_players")
        return True
    seeds = Seeds(bytes.fromhex(tournament.server_seed), tuple(bytes.fromhex(e.client_seed) for e in entries))
    tournament.seed = seeds.game_seed().hex()
    tournament.status = Tournament.Status.RUNNING
    tournament.save(update_fields=["seed", "status"])
    log.append(tournament, "started", {"players": [str(e.user_id) for e in entries]})
    if tournament.format == Tournament.Format.ARENA:
        Entry.objects.filter(tournament=tournament, withdrawn=False).update(waiting_since=now)
        _pair_arena(tournament, now)
    else:
        _pair_swiss(tournament, now)
    _changed(tournament)
    return True


def _advance_swiss(tournament: Tournament, now: datetime) -> bool:
    if tournament.tables.filter(round=tournament.round, finished=False).exists():
        return False
    if tournament.round >= (tournament.rounds or 0) or tournament.entries.filter(withdrawn=False).count() < 2:
        _end(tournament, now)
        return True
    if tournament.speed == "daily":
        if tournament.next_round_at is None:
            tournament.next_round_at = _next_daily_slot(tournament.starts_at, now)
            tournament.save(update_fields=["next_round_at"])
            _changed(tournament)
        if tournament.next_round_at > now:
            return False
    _pair_swiss(tournament, now)
    _changed(tournament)
    return True


def _next_daily_slot(starts_at: datetime, now: datetime) -> datetime:
    """T-SWISS-2: a daily Swiss's rounds begin at the time of day it started, the first such time after `now`."""
    days = (now - starts_at) // timedelta(days=1) + 1
    return starts_at + timedelta(days=days)


def _pair_swiss(tournament: Tournament, now: datetime) -> None:
    number = tournament.round + 1
    table = reading.standings_of(tournament)
    drawn = pairing.pair_swiss(table, reading.meetings_of(tournament), reading.pairing_settings(tournament),
                               Stream(bytes.fromhex(tournament.seed), f"round:{number}"))
    Entry.objects.filter(tournament=tournament, user_id__in=ids(drawn.byes)).update(byes=F("byes") + 1)
    tournament.round, tournament.next_round_at = number, None
    tournament.save(update_fields=["round", "next_round_at"])
    games = [_table_game(tournament, number, seats) for seats in drawn.tables]
    log.append(tournament, "round_paired", {
        "round": number, "tables": [{"game": str(g.pk), "seats": list(s)} for g, s in zip(games, drawn.tables, strict=True)],
        "byes": list(drawn.byes),
    })


def _advance_arena(tournament: Tournament, now: datetime) -> bool:
    if now >= reading.window_end(tournament):
        if tournament.tables.filter(finished=False).exists():
            Entry.objects.filter(tournament=tournament).update(waiting_since=None)
            return False
        _end(tournament, now)
        return True
    if _pair_arena(tournament, now):
        _changed(tournament)
        return True
    return False


def _pair_arena(tournament: Tournament, now: datetime) -> bool:
    pool = reading.pool_of(tournament)
    if len(pool) < 1:
        return False
    number = tournament.round + 1
    at = round(now.timestamp(), 3)
    drawn = pairing.pair_arena(
        pool, reading.pairing_settings(tournament), Stream(bytes.fromhex(tournament.seed), f"pairing:{number}"),
        now=at, wait_limit=ARENA_WAIT_SECONDS[tournament.speed],
    )
    if not drawn.tables:
        return False
    tournament.round = number
    tournament.save(update_fields=["round"])
    games = [_table_game(tournament, number, seats) for seats in drawn.tables]
    log.append(tournament, "round_paired", {
        "round": number, "now": at, "wait_limit": ARENA_WAIT_SECONDS[tournament.speed],
        "pool": [{"player": w.player, "since": w.since} for w in pool],
        "tables": [{"game": str(g.pk), "seats": list(s)} for g, s in zip(games, drawn.tables, strict=True)],
    })
    return True


def _table_game(tournament: Tournament, number: int, seats: tuple[str, ...]) -> Game:
    """Create and start the game of one table, tell its people (`tournament_table`)."""
    people = {str(u.pk): u for u in User.objects.filter(pk__in=ids(seats))}
    takers: list[User | str] = [people[s] if s in people else s.removeprefix("bot:") for s in seats]
    clock = (
        services.TimeControl("live", tournament.turn_seconds or LIVE_TURN_SECONDS) if tournament.speed == "live"
        else services.TimeControl("daily", None, tournament.days_per_move or 1, DAILY_BANK_DAYS)
    )
    bots = any(s.startswith("bot:") for s in seats)
    game = services.game_form(
        takers, map_name=tournament.map, ranked=tournament.ranked and not bots, clock=clock,
        fallback_bot=tournament.bot_level,
    )
    Game.objects.filter(pk=game.pk).update(tournament=tournament.pk, tournament_round=number)
    Table.objects.create(tournament=tournament, round=number, game=game, seats=list(seats))
    Entry.objects.filter(tournament=tournament, user_id__in=ids(seats)).update(waiting_since=None)
    for user in people.values():
        notices.table(tournament, user, game, number)
    return game


def game_over_heard(sender: object, *, game: Game, scored: GameScored | None, **_: object) -> None:
    game_over(game, scored)


def game_over(game: Game, scored: GameScored | None) -> None:
    """A tournament game was scored (`scored`) or aborted (None), in scoring's transaction: record it, put its
    people back in an arena's pool, count no-shows; the next pairing is queued for after the commit."""
    if game.tournament is None:
        return
    tournament = _locked(game.tournament)
    table = Table.objects.select_for_update().filter(game=game, finished=False).first()
    if table is None:
        return
    places = [0] * game.players
    scores = [0] * game.players
    for score in scored.scores if scored is not None else ():
        places[score.seat], scores[score.seat] = score.place, score.total
    table.finished = True
    table.places, table.scores = (places, scores) if scored is not None else (None, None)
    table.save(update_fields=["finished", "places", "scores"])
    log.append(tournament, "game_finished", {
        "game": str(game.pk), "round": table.round, "seats": table.seats,
        "places": table.places, "scores": table.scores,
    })
    _count_no_shows(tournament, table, game)
    if tournament.format == Tournament.Format.ARENA:
        Entry.objects.filter(
            tournament=tournament, withdrawn=False, user_id__in=ids(table.seats)
        ).update(waiting_since=timezone.now())
    _changed(tournament, pair_soon=True)


def _count_no_shows(tournament: Tournament, table: Table, game: Game) -> None:
    absent = reading.no_shows(game)
    for entry in Entry.objects.select_for_update().filter(tournament=tournament, user_id__in=ids(table.seats)):
        seat = table.seats.index(str(entry.user_id))
        entry.no_shows = entry.no_shows + 1 if seat in absent else 0
        if entry.no_shows >= NO_SHOWS_TO_WITHDRAW and not entry.withdrawn:
            entry.withdrawn, entry.waiting_since = True, None
            log.append(tournament, "withdrawn", {"player": str(entry.user_id), "why": "no_shows"})
        entry.save(update_fields=["no_shows", "withdrawn", "waiting_since"])


def _end(tournament: Tournament, now: datetime, *, why: str = "over") -> None:
    rows = reading.standings_of(tournament)
    tournament.status, tournament.ended_at, tournament.next_round_at = Tournament.Status.FINISHED, now, None
    tournament.save(update_fields=["status", "ended_at", "next_round_at"])
    log.append(tournament, "ended", {
        "why": why, "server_seed": tournament.server_seed,
        "standings": [reading.standing_logged(row) for row in rows],
    })
    for row in rows:
        notices.ended(tournament, row)
    _changed(tournament)
