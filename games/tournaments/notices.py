"""What a tournament's watchers and people hear: its socket group (`tournament.<id>`, games/realtime/tournament.py),
told only the tournament's id and seq (each socket reads what changed itself), and the inbox's `tournament_starting`,
`tournament_table` and `tournament_ended` (games/people/inbox.py), each written in the caller's transaction.
"""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth.models import User
from django.db import transaction

from games.people import inbox
from games.store import notify
from games.store.models import Game, map_name
from games.tournaments.models import Tournament
from games.tournaments.standings import Standing


def group_name(tournament_id: UUID | str) -> str:
    return f"tournament.{tournament_id}"


def changed(tournament: Tournament) -> None:
    """After the commit, the tournament's socket group hears its new seq."""
    group, message = group_name(tournament.pk), {"type": "tournament.changed", "seq": tournament.seq}
    transaction.on_commit(lambda: notify.post(group, message))


def starting(tournament: Tournament) -> None:
    """`tournament_starting` to everyone registered (ten minutes before; once)."""
    if tournament.starting_told:
        return
    for entry in tournament.entries.filter(withdrawn=False):
        inbox.send(
            entry.user_id, "tournament_starting", f"{tournament.pk}:{entry.user_id}",
            f"The tournament {tournament.name} starts at {tournament.starts_at:%H:%M} UTC.",
            tournament=str(tournament.pk), name=tournament.name, starts_at=tournament.starts_at.isoformat(),
        )
    Tournament.objects.filter(pk=tournament.pk).update(starting_told=True)


def table(tournament: Tournament, user: User, game: Game, number: int) -> None:
    """`tournament_table`: the person's next game, with its link."""
    swiss = tournament.format == Tournament.Format.SWISS
    what = f"round {number}" if swiss else "your next game"
    rounds: dict[str, int] = {"round": number} if swiss else {}  # an arena's pairings are no rounds
    inbox.send(
        user.pk, "tournament_table", f"{game.pk}:{user.pk}",
        f"{tournament.name}, {what}: your {map_name(tournament.map)} table is ready.", game.pk,
        tournament=str(tournament.pk), name=tournament.name, **rounds,
    )


def ended(tournament: Tournament, row: Standing) -> None:
    """`tournament_ended`: the person's place."""
    user_id = int(row.player)  # a person is named by their id in the tournament's own record
    inbox.send(
        user_id, "tournament_ended", f"{tournament.pk}:{user_id}",
        f"The tournament {tournament.name} is over: you finished {row.rank} with {float(row.points):g} points.",
        tournament=str(tournament.pk), name=tournament.name, place=row.rank,
    )
