"""Ratings (games.ratings): one bot account per bot level, each player's rating per map, and every change.

The bot accounts are real users (`random-bot`, `greedy-bot`, `strong-bot`) with unusable passwords, so their
names are taken (registering one is `username_taken`) and /api/users/greedy-bot shows the bot's rating.
"""

import django.db.models.deletion
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.db import migrations, models

BOT_LEVELS = ["random", "greedy", "strong"]  # games.models.BOT_LEVELS when this migration was written


def create_bot_accounts(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    BotAccount = apps.get_model("games", "BotAccount")
    for level in BOT_LEVELS:
        username = f"{level}-bot"
        if User.objects.filter(username__iexact=username).exists():
            raise RuntimeError(f"a user named {username!r} exists: rename it before migrating (bot accounts need the name)")
        user = User.objects.create(username=username, password=make_password(None))
        BotAccount.objects.create(level=level, user=user)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0004_fallback_bot_and_stand_in'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='BotAccount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('level', models.CharField(max_length=16, unique=True)),
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='bot_account', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='Rating',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('map', models.CharField(choices=[('europe', 'Europe'), ('usa', 'USA')], max_length=16)),
                ('mu', models.FloatField(default=25.0)),
                ('sigma', models.FloatField(default=8.333333333333334)),
                ('games', models.PositiveIntegerField(default=0)),
                ('wins', models.PositiveIntegerField(default=0)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='ratings', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('user', 'map'), name='rating_unique_user_map')],
            },
        ),
        migrations.CreateModel(
            name='RatingChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('map', models.CharField(choices=[('europe', 'Europe'), ('usa', 'USA')], max_length=16)),
                ('place', models.PositiveSmallIntegerField()),
                ('seat_places', models.JSONField()),
                ('mu_before', models.FloatField()),
                ('sigma_before', models.FloatField()),
                ('mu_after', models.FloatField()),
                ('sigma_after', models.FloatField()),
                ('at', models.DateTimeField()),
                ('game', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='rating_changes', to='games.game')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='rating_changes', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [models.Index(fields=['user', '-id'], name='rating_change_user_newest')],
                'constraints': [models.UniqueConstraint(fields=('game', 'user'), name='rating_change_unique_game_user')],
            },
        ),
        migrations.RunPython(create_bot_accounts, migrations.RunPython.noop),
    ]
