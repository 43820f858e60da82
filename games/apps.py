from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.play.scoring import game_over
        from games.review import analyses
        from games.tournaments import services
        from games.trust import secret_checks  # noqa: F401  (registers the secrets' system checks)

        game_over.connect(services.game_over_heard, dispatch_uid="tournaments")
        game_over.connect(analyses.game_over_heard, dispatch_uid="analysis")
