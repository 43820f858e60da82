"""A tournament's own log: append-only and hash-chained as a game's is (games/engine/hash_chain.py: each row's hash
is SHA-256 of the previous hash and the canonical JSON of its seq, type, data and time), so its audit log checks
alone (audit.py checks it, with the same `line_hash`). The caller holds the tournament's row lock (`locked`):
appends to one tournament are one after another.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from django.utils import timezone

from games.tournaments.audit import line_hash
from games.tournaments.models import Tournament, TournamentEvent


def locked(tournament_id: UUID | str) -> Tournament:
    """The tournament's row, locked until the end of the caller's transaction (DoesNotExist: no such one)."""
    return Tournament.objects.select_for_update().get(pk=tournament_id)


def append(tournament: Tournament, type_: str, data: dict[str, Any]) -> TournamentEvent:
    """Append one event to `tournament`'s log (its row locked by the caller) and move its head."""
    at = timezone.now()
    seq = tournament.seq + 1
    digest = line_hash({"prev_hash": tournament.head_hash, "seq": seq, "type": type_, "data": data, "at": at.isoformat()})
    row = TournamentEvent.objects.create(
        tournament=tournament, seq=seq, type=type_, data=data, at=at, prev_hash=tournament.head_hash, hash=digest
    )
    tournament.seq, tournament.head_hash = seq, digest
    Tournament.objects.filter(pk=tournament.pk).update(seq=seq, head_hash=digest)
    return row


def line(row: TournamentEvent) -> dict[str, Any]:
    """One line of the audit log (GET /api/tournaments/{id}/audit)."""
    return {
        "seq": row.seq, "type": row.type, "at": row.at.isoformat(), "data": row.data, "prev_hash": row.prev_hash,
        "hash": row.hash,
    }


def lines(tournament: Tournament) -> Iterator[str]:
    for row in TournamentEvent.objects.filter(tournament=tournament).order_by("seq").iterator():
        yield json.dumps(line(row), sort_keys=True, ensure_ascii=False) + "\n"
