"""The bots' app: when Django starts, it gives the games' hint service its advisor (games never imports bots)."""

from __future__ import annotations

from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"

    def ready(self) -> None:
        from bots.advice import advise
        from games.review import hints

        hints.register(advise)
