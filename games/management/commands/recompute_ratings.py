"""`manage.py recompute_ratings [--check]`: rebuild every rating from the rated games, in scoring order.

The stored changes are replayed from the default ratings (games.play.ratings.recompute_ratings) and every difference
is listed. Without `--check` the Ratings, and any change whose before/after values differ, are rewritten to what
the replay gave; with it nothing is written and the exit status is 1 when anything differs.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.play.ratings import recompute_ratings


class Command(BaseCommand):
    help = "Recompute every rating from the rated games; rewrite what differs (--check: only report)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="report differences, write nothing, exit 1 if any")

    def handle(self, *args: Any, **options: Any) -> None:
        result = recompute_ratings(write=not options["check"])
        for problem in result.problems:
            self.stdout.write(f"  - {problem}")
        if result.ok:
            replayed = f"{result.games} games replayed, {len(result.standings)} ratings"
            self.stdout.write(f"every stored rating matched its history ({replayed})")
        elif options["check"]:
            raise CommandError(f"{len(result.problems)} stored values differ from the replayed history")
        else:
            rewritten = f"; {len(result.changes)} rating changes rewritten" if result.changes else ""
            self.stdout.write(f"{len(result.problems)} stored values differed: ratings rewritten{rewritten}")
