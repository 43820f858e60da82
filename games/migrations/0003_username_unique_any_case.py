"""Usernames are unique whatever their case (games.accounts): an index on the lower-cased name."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("games", "0002_event_append_only_trigger"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE UNIQUE INDEX games_username_any_case ON auth_user (lower(username))",
            "DROP INDEX games_username_any_case",
        )
    ]
