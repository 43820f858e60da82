"""`manage.py verify_game ID|--all`: re-hash, replay and re-score games; exit 1 on any problem."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.store.models import Game
from games.trust.verify import verify_game


class Command(BaseCommand):
    help = "Check games' hash chains, commitments, replay and final scores."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_id", nargs="?")
        parser.add_argument("--all", action="store_true", help="verify every game")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["all"]:
            games = list(Game.objects.exclude(seq=0).order_by("created_at"))
        elif options["game_id"]:
            try:
                games = list(Game.objects.filter(pk=options["game_id"]))
            except ValidationError:  # not a UUID
                games = []
            if not games:
                raise CommandError(f"no game {options['game_id']}")
        else:
            raise CommandError("give a game id or --all")
        failed = 0
        for game in games:
            report = verify_game(game)
            mark = "ok" if report["ok"] else "FAILED"
            self.stdout.write(f"{game.id} {mark} events={report['events']} head={report['head_hash'][:16]}")
            for problem in report["problems"]:
                self.stdout.write(f"  - {problem}")
            failed += not report["ok"]
        if failed:
            raise CommandError(f"{failed} of {len(games)} game(s) failed verification")
