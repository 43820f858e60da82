"""`manage.py verify_tournament ID|--all`: recompute tournaments' pairings and standings from their logs and their
games' records (games/tournaments/audit.py); exit 1 on any problem."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.tournaments.models import Tournament
from games.tournaments.verify import verification


class Command(BaseCommand):
    help = "Check tournaments' hash chains, every round's tables and the final standings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tournament_id", nargs="?")
        parser.add_argument("--all", action="store_true", help="verify every tournament")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["all"]:
            tournaments = list(Tournament.objects.order_by("created_at"))
        elif options["tournament_id"]:
            try:
                tournaments = list(Tournament.objects.filter(pk=options["tournament_id"]))
            except ValidationError:  # not a UUID
                tournaments = []
            if not tournaments:
                raise CommandError(f"no tournament {options['tournament_id']}")
        else:
            raise CommandError("give a tournament id or --all")
        failed = 0
        for tournament in tournaments:
            verdict = verification(tournament)
            mark = "ok" if verdict.ok else "FAILED"
            fair = {True: "fair", False: "unfair", None: "fair: not yet (seed secret)"}[verdict.fair]
            self.stdout.write(f"{tournament.id} {mark} {fair} head={verdict.head_hash[:16]}")
            for problem in verdict.problems:
                self.stdout.write(f"  - {problem}")
            failed += not verdict.ok
        if failed:
            raise CommandError(f"{failed} of {len(tournaments)} tournament(s) failed verification")
