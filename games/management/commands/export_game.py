"""`manage.py export_game ID > game.jsonl`: the complete event log with its hash chain, one event a line."""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.play.selectors import audit_lines
from games.store.models import Game


class Command(BaseCommand):
    help = "Write a game's complete event log as JSON Lines to standard output."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_id")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            game = Game.objects.filter(pk=options["game_id"]).first()
        except ValidationError:  # not a UUID
            game = None
        if game is None:
            raise CommandError(f"no game {options['game_id']}")
        for line in audit_lines(game):
            self.stdout.write(json.dumps(line, sort_keys=True))
