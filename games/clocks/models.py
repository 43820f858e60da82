"""Vacations: the days a person stops their daily clocks (games/clocks/vacations.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Vacation(models.Model):
    """A stretch of time during which the person's daily clocks stand still (POST /api/me/vacation)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vacations")
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
