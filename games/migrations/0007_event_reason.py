"""Event.reason: why a bot made the move an event row opens (blank for people's moves and for old rows)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0006_game_scored_at")]
    operations = [
        migrations.AddField(
            model_name="event",
            name="reason",
            field=models.CharField(blank=True, default="", max_length=300),
        ),
    ]
