"""Vacations (docs/API.md, Playing by day): a person stops their daily clocks for a number of days, at most
TTR_VACATION_DAYS (30) in any 365 days. Days booked count whether or not they are used, unless the vacation is
ended early, which gives the days not begun back (a day begun counts whole, so the limit is exact). The clock
reads them (games/clocks/turn_clocks.py); live games do not stop."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.clocks.models import Vacation
from games.clocks.shapes import VacationStatus
from games.clocks.turn_clocks import day
from games.store.service_error import ServiceError

YEAR = timedelta(days=365)


def status(user: User) -> VacationStatus:
    now = timezone.now()
    current = Vacation.objects.filter(user=user, starts_at__lte=now, ends_at__gt=now).order_by("-ends_at").first()
    return VacationStatus(until=current.ends_at if current else None, days_left=days_left(user))


def days_left(user: User) -> int:
    since = timezone.now() - YEAR
    spans = Vacation.objects.filter(user=user, ends_at__gt=since).values_list("starts_at", "ends_at")
    booked = sum((end - start for start, end in spans), timedelta(0))
    # A day begun is a day booked (rounded up): rounding to the nearest let half days add up past the limit.
    return max(0, settings.TTR_VACATION_DAYS - -(-booked // day()))


def take(user: User, days: int) -> VacationStatus:
    """Stop the person's daily clocks for `days` more days (from now, or from the end of the vacation on now)."""
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one booking at a time per person
        left = days_left(user)
        if days > left:
            raise ServiceError(
                "no_vacation_left", f"you have {left} vacation day(s) left in these 365 days", status=409, field="days"
            )
        now = timezone.now()
        current = Vacation.objects.filter(user=user, starts_at__lte=now, ends_at__gt=now).order_by("-ends_at").first()
        if current is not None:
            current.ends_at += days * day()
            current.save(update_fields=["ends_at"])
        else:
            Vacation.objects.create(user=user, starts_at=now, ends_at=now + days * day())
    return status(user)


def end(user: User) -> VacationStatus:
    """End the vacation on now: the clocks run again and the days not used are given back."""
    now = timezone.now()
    Vacation.objects.filter(user=user, starts_at__lte=now, ends_at__gt=now).update(ends_at=now)
    return status(user)
