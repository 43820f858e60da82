"""`manage.py dump_games [--month YYYY-MM] [--dir DIR]`: write the monthly dumps of every finished game
(games/api/dumps.py, docs/AUDIT.md) into DIR (default TTR_DUMP_DIR).

Without `--month`, every month due: over for an hour, every game in it scored, after the last month dumped. With
it, that month alone, if it may be dumped now (exit 1 saying why not); a month dumped already is left as it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.api import dumps


class Command(BaseCommand):
    help = "Write the signed monthly dumps of finished games that are due (or one month's)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--month", help="YYYY-MM: this month only")
        parser.add_argument("--dir", help="the directory of the dumps (default: TTR_DUMP_DIR)")

    def handle(self, *args: Any, **options: Any) -> None:
        directory = Path(options["dir"] or settings.TTR_DUMP_DIR)
        if options["month"] is None:
            months = dumps.dump_due(directory)
            for month in months:
                self.stdout.write(f"{directory / month.manifest_name}: written")
            if not months:
                self.stdout.write(f"{directory}: no month is due")
            return
        try:
            month = dumps.Month.parsed(options["month"])
            written = dumps.dump_month(month, directory)
        except (ValueError, dumps.NotDue) as refusal:
            raise CommandError(str(refusal)) from refusal
        state = "written" if written else "dumped already: left as it is"
        self.stdout.write(f"{directory / month.manifest_name}: {state}")
