"""Reading a tournament: its settings, standings, meetings and arena pool as the pure pairing takes them, and the
answers' JSON (docs/API.md, Tournaments). Nothing here writes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any
from uuid import UUID

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, QuerySet

from games.store.models import Event, Game
from games.tournaments import pairing, standings
from games.tournaments.models import Entry, Table, Tournament
from games.tournaments.shapes import StandingRow, TableRow, Tables, TournamentDetail, TournamentRow

ANY_SEAT = -1
PERSON_MOVES = frozenset({
    "tickets_kept", "card_drawn", "route_claimed", "tunnel_revealed", "tunnel_declined", "station_built",
})
SETTINGS = (
    "name", "format", "map", "table_size", "smaller_tables", "speed", "turn_seconds", "days_per_move", "rounds",
    "minutes", "max_players", "ranked", "bots_fill", "private", "bot_level",
)


def ids(names: Iterable[str]) -> list[int]:
    """The user ids among a log's names (a person is named by their id, so erasing their account changes no log;
    a bot's seat is "bot:<level>")."""
    return [int(name) for name in names if not standings.is_bot(name)]


def usernames(names: Iterable[str]) -> dict[str, str]:
    """The usernames of the people among `names` (ids as text), by id, in the order given."""
    names = list(names)
    found = dict(User.objects.filter(pk__in=ids(names)).values_list("pk", "username"))
    return {name: found[int(name)] for name in dict.fromkeys(names) if not standings.is_bot(name) and int(name) in found}


def settings_json(tournament: Tournament) -> dict[str, Any]:
    return {name: getattr(tournament, name) for name in SETTINGS} | {"starts_at": tournament.starts_at.isoformat()}


def seed_hash(tournament: Tournament) -> str:
    return hashlib.sha256(bytes.fromhex(tournament.server_seed)).hexdigest()


def pairing_settings(tournament: Tournament) -> pairing.Settings:
    return pairing.Settings(tournament.table_size, tournament.smaller_tables, tournament.bots_fill, tournament.bot_level)


def seed_of(tournament: Tournament) -> bytes:
    """The pairing seed once started; before, the server seed's hash stands in (the standings' draw only)."""
    return bytes.fromhex(tournament.seed) if tournament.seed else bytes.fromhex(seed_hash(tournament))


def results_of(tournament: Tournament) -> list[standings.Result]:
    return [
        standings.Result(str(t.game_id), t.round, tuple(t.seats), tuple(t.places or ()), tuple(t.scores or ()))
        for t in Table.objects.filter(tournament=tournament, finished=True).exclude(places=None)
    ]


def entrants_of(tournament: Tournament) -> list[standings.Entrant]:
    return [standings.Entrant(str(e.user_id), e.rating, e.withdrawn) for e in Entry.objects.filter(tournament=tournament)]


def standings_of(tournament: Tournament) -> list[standings.Standing]:
    rows = Entry.objects.filter(tournament=tournament, byes__gt=0).values_list("user_id", "byes")
    byes = {str(user_id): n for user_id, n in rows}
    return standings.standings(entrants_of(tournament), results_of(tournament), byes, seed_of(tournament))


def meetings_of(tournament: Tournament) -> dict[frozenset[str], int]:
    """Who has met whom in the games played out (an aborted game counts for nothing, as in the standings)."""
    return standings.meetings(results_of(tournament))


def pool_of(tournament: Tournament) -> list[pairing.Waiter]:
    """The arena's pool: people waiting, with their points, rating, draw and previous table."""
    rows = {row.player: row for row in standings_of(tournament)}
    last: dict[str, frozenset[str]] = {}
    for table in Table.objects.filter(tournament=tournament).order_by("round", "pk"):
        for name in table.seats:
            last[name] = frozenset(table.seats) - {name}
    waiting = Entry.objects.filter(tournament=tournament, withdrawn=False, waiting_since__isnull=False)
    pool = []
    for entry in waiting.order_by("waiting_since", "pk"):
        row = rows[str(entry.user_id)]
        assert entry.waiting_since is not None
        pool.append(pairing.Waiter(
            row.player, row.points, row.rating, row.draw, round(entry.waiting_since.timestamp(), 3),
            last.get(row.player, frozenset()),
        ))
    return pool


def no_shows(game: Game) -> set[int]:
    """The seats whose person timed out and never made a move of their own in `game`. A bot's move (the fallback's
    after a `turn_timed_out`, a stand-in's) says why on its first row, which may name no seat (a reshuffle); the
    move's later rows say nothing: so the bot holds the seat from that row to the end of the turn."""
    timed_out: set[int] = set()
    moved: set[int] = set()
    bot: int | None = None  # the seat a bot is moving for (ANY_SEAT: the bot's first row named none yet)
    for seat, type_, reason in Event.objects.filter(game=game).order_by("seq").values_list("seat", "type", "reason"):
        if type_ == "turn_timed_out" and seat is not None:
            timed_out.add(seat)
            bot = seat
            continue
        if reason:
            bot = seat if seat is not None else ANY_SEAT
        elif type_ in PERSON_MOVES and seat is not None and bot not in (seat, ANY_SEAT):
            moved.add(seat)
        if bot == ANY_SEAT and seat is not None:
            bot = seat
        if type_ == "turn_ended":
            bot = None
    return timed_out - moved


def number(value: Fraction) -> float | int:
    return int(value) if value.denominator == 1 else round(float(value), 4)


def standing_logged(row: standings.Standing) -> dict[str, Any]:
    """A standing as the `ended` event holds it: points as exact fractions ("7/3")."""
    return {
        "rank": row.rank, "player": row.player, "points": str(row.points),
        "opponents_points": str(row.opponents_points), "score_total": row.score_total, "games": row.games,
        "byes": row.byes, "withdrawn": row.withdrawn,
    }


def standing_row(row: standings.Standing, names: dict[str, str]) -> StandingRow:
    return StandingRow(
        rank=row.rank, username=names.get(row.player, row.player), points=number(row.points),
        tiebreaks=(number(row.opponents_points), row.score_total), games=row.games, withdrawn=row.withdrawn,
    )


def table_row(table: Table, names: dict[str, str]) -> TableRow:
    return TableRow(
        round=table.round, game=table.game_id, seats=tuple(names.get(seat, seat) for seat in table.seats),
        status="finished" if table.finished else "active", places=tuple(table.places) if table.places else None,
    )


def tables_of(tournament: Tournament, round_number: int | None) -> Tables:
    rows = Table.objects.filter(tournament=tournament)
    if round_number is not None:
        rows = rows.filter(round=round_number)
    elif tournament.format == Tournament.Format.SWISS:
        rows = rows.filter(round=tournament.round)
    tables = list(rows.order_by("round", "pk"))
    names = usernames(seat for table in tables for seat in table.seats)
    return Tables(results=tuple(table_row(table, names) for table in tables))


def listed(status: str) -> QuerySet[Tournament]:
    """The public tournaments in `status`, in the list's order."""
    rows = Tournament.objects.filter(status=status, private=False).select_related("created_by")
    if status == Tournament.Status.UPCOMING:
        return rows.order_by("-featured", "starts_at", "pk")
    if status == Tournament.Status.RUNNING:
        return rows.annotate(entrants=Count("entries")).order_by("-featured", "-entrants", "starts_at", "pk")
    return rows.order_by("-ended_at", "pk")


def tournament_row(tournament: Tournament, viewer: User | AnonymousUser | None = None) -> TournamentRow:
    """A tournament as the API lists it: settings, state and the viewer's part."""
    return TournamentRow(**_row_fields(tournament, viewer, _ranked(tournament, finished_only=True)))


def tournament_detail(tournament: Tournament, viewer: User | AnonymousUser | None = None) -> TournamentDetail:
    rows = standings_of(tournament)
    names = usernames(row.player for row in rows)
    return TournamentDetail(
        **_row_fields(tournament, viewer, rows), standings=tuple(standing_row(r, names) for r in rows)
    )


def _ranked(tournament: Tournament, *, finished_only: bool) -> list[standings.Standing]:
    return standings_of(tournament) if tournament.status == Tournament.Status.FINISHED or not finished_only else []


def _row_fields(
    tournament: Tournament, viewer: User | AnonymousUser | None, rows: list[standings.Standing]
) -> dict[str, Any]:
    entry = _entry(tournament, viewer)
    finished = tournament.status == Tournament.Status.FINISHED
    return {
        "id": tournament.pk, **{name: getattr(tournament, name) for name in SETTINGS if name != "bot_level"},
        "starts_at": tournament.starts_at, "ends_at": _ends_at(tournament), "featured": tournament.featured,
        "created_by": tournament.created_by.username, "status": tournament.status,
        "server_seed_hash": seed_hash(tournament), "server_seed": tournament.server_seed if finished else None,
        "players": tournament.entries.count(), "round": tournament.round or None,
        "next_round_at": tournament.next_round_at, "joined": entry is not None,
        "withdrawn": bool(entry and entry.withdrawn),
        "my_game": _my_game(tournament, viewer) if entry is not None and not entry.withdrawn else None,
        "winners": tuple(usernames(r.player for r in rows[:3]).values()) if finished else (),
    }


def _entry(tournament: Tournament, viewer: User | AnonymousUser | None) -> Entry | None:
    if viewer is None or not viewer.is_authenticated:
        return None
    return Entry.objects.filter(tournament=tournament, user_id=viewer.pk).first()


def _my_game(tournament: Tournament, viewer: User | AnonymousUser | None) -> UUID | None:
    if viewer is None or not viewer.is_authenticated:
        return None
    for table in Table.objects.filter(tournament=tournament, finished=False).order_by("-round"):
        if str(viewer.pk) in table.seats:
            return table.game_id
    return None


def window_end(tournament: Tournament) -> datetime:
    """When an arena stops seating people (its start and its minutes)."""
    return tournament.starts_at + timedelta(minutes=tournament.minutes or 0)


def _ends_at(tournament: Tournament) -> datetime | None:
    if tournament.format == Tournament.Format.ARENA and tournament.minutes:
        return window_end(tournament)
    return tournament.ended_at
