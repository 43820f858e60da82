"""Ratings, invitations and rematch offers: the rows the use cases of play keep beside a game."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.store.models import MAP_CHOICES, Game

# Ratings (games.play.ratings): openskill's Plackett-Luce defaults, a new player's rating on each map.
RATING_MU = 25.0
RATING_SIGMA = 25.0 / 3


class Rating(models.Model):
    """A player's current rating on one map. Derived data: `recompute_ratings` rebuilds it from the changes."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="ratings")
    map = models.CharField(max_length=16, choices=MAP_CHOICES)
    mu = models.FloatField(default=RATING_MU)
    sigma = models.FloatField(default=RATING_SIGMA)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "map"], name="rating_unique_user_map")]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.map}: {self.mu:.2f} ± {self.sigma:.2f}"


class RatingChange(models.Model):
    """One account's rating change from one ranked game. The id is the scoring order.

    `seat_places` holds the place of every seat the account held ({"seat": place}); `place` is the best of them.
    With the other accounts' rows of the game, that is the whole match, so the history can be replayed exactly."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="rating_changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="rating_changes")
    map = models.CharField(max_length=16, choices=MAP_CHOICES)
    place = models.PositiveSmallIntegerField()
    seat_places = models.JSONField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="rating_change_unique_game_user")]
        indexes = [models.Index(fields=["user", "-id"], name="rating_change_user_newest")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.game_id}: place {self.place}"



class Invitation(models.Model):
    """A token that seats whoever holds it in a private game, once. `invitee`: the person it was sent to (None:
    the game's link, which the creator passes on; a new link replaces a used one while seats are free)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=64, unique=True)
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="invitations"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    used_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    used_at = models.DateTimeField(null=True, blank=True)


class RematchOffer(models.Model):
    """An offer to play a finished game again; `game` is set once every person of the table has accepted."""

    finished = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="rematch_offer")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    accepted_by = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="+")
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
