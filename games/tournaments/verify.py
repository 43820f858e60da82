"""Checking a stored tournament (GET /api/tournaments/{id}/verify, `manage.py verify_tournament`): its audit log and
its games' own records, handed to the pure check (audit.py)."""

from __future__ import annotations

from typing import Any

from games.store.models import Event, Seat
from games.tournaments import audit, log
from games.tournaments.models import Table, Tournament, TournamentEvent
from games.tournaments.shapes import TournamentVerification


def verification(tournament: Tournament) -> TournamentVerification:
    rows = TournamentEvent.objects.filter(tournament=tournament).order_by("seq")
    lines = [log.line(row) for row in rows]
    found = audit.check(lines, game_records(tournament))
    problems = list(found.problems)
    if lines and lines[-1]["hash"] != tournament.head_hash:
        problems.append("the tournament's head hash is not its last event's")
    return TournamentVerification(
        ok=not problems, fair=found.fair if not problems else False, head_hash=found.head_hash,
        problems=tuple(problems),
    )


def game_records(tournament: Tournament) -> dict[str, audit.GameRecord]:
    """Each table's game as its own record says: who sat where, and the places and scores its log holds."""
    game_ids = list(Table.objects.filter(tournament=tournament).values_list("game_id", flat=True))
    seats: dict[str, list[tuple[int, str]]] = {}
    for seat in Seat.objects.filter(game_id__in=game_ids):
        name = str(seat.user_id) if seat.user_id is not None else f"bot:{seat.bot}"
        seats.setdefault(str(seat.game_id), []).append((seat.number, name))
    scored = {
        str(game_id): data for game_id, data in
        Event.objects.filter(game_id__in=game_ids, type="game_scored").values_list("game_id", "data")
    }
    return {
        game_id: _record(sorted(seats.get(game_id, [])), scored.get(game_id)) for game_id in map(str, game_ids)
    }


def _record(seats: list[tuple[int, str]], data: dict[str, Any] | None) -> audit.GameRecord:
    names = tuple(name for _, name in seats)
    if data is None:
        return audit.GameRecord(names, None, None)
    by_seat = {score["seat"]: score for score in data["scores"]}
    return audit.GameRecord(
        names, tuple(by_seat[n]["place"] for n in range(len(names))), tuple(by_seat[n]["total"] for n in range(len(names)))
    )


