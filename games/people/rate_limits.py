"""Limits on how often something may happen to or by one subject (a username, an address, an account, a client's IP),
counted in the database so that every web process and worker shares the count (the cache is per process).

A `Limit` is a number of attempts in a sliding window, both read from settings when used (so tests and operators
change them without a restart of anything else). `wait` says how many seconds until one more attempt is allowed;
`hit` counts one; `check` refuses (ServiceError 429 with the limit's `code` and `retry_after` in seconds) while the
subject is at its limit. Counts are keyed hashes (`salted_hmac`): the table holds no name, address or IP, and rows
past the longest window are deleted as new ones come. Two requests racing may both pass a limit at its last
attempt: a limit is a bound on abuse, not an exact quota.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.crypto import salted_hmac

from games.people.models import LimitHit
from games.store.service_error import ServiceError

KEEP = timedelta(days=1)  # longer than every window: older rows count for nothing


@dataclass(frozen=True)
class Limit:
    name: str  # the hash's salt: each limit counts apart
    code: str  # the refusal's code
    count_setting: str
    window_setting: str
    what: str  # "wrong passwords": the refusal's detail names it

    @property
    def count(self) -> int:
        return int(getattr(settings, self.count_setting))

    @property
    def window(self) -> timedelta:
        return timedelta(seconds=int(getattr(settings, self.window_setting)))

    def describe(self) -> str:
        return f"at most {self.count} {self.what} in {_span(self.window)}"


def wait(limit: Limit, subject: str) -> int:
    """Seconds until `subject` may make one more attempt (0: now)."""
    now, count = timezone.now(), limit.count
    if count <= 0:
        return math.ceil(limit.window.total_seconds())
    recent = LimitHit.objects.filter(key=_key(limit, subject), at__gt=now - limit.window).order_by("-at")
    oldest_counted = recent.values_list("at", flat=True)[count - 1 : count].first()
    if oldest_counted is None:
        return 0
    return max(1, math.ceil((oldest_counted + limit.window - now).total_seconds()))


def hit(limit: Limit, subject: str) -> None:
    """Count one attempt."""
    now = timezone.now()
    LimitHit.objects.filter(at__lt=now - KEEP).delete()  # the `at` index makes this cheap when nothing is due
    LimitHit.objects.create(key=_key(limit, subject), at=now)


def check(limit: Limit, subject: str) -> None:
    """Refuse (429, the limit's code, `retry_after` seconds) while the subject is at its limit; counts nothing."""
    seconds = wait(limit, subject)
    if seconds:
        raise ServiceError(
            limit.code, f"{limit.describe()}: try again in {seconds} s", status=429, retry_after=seconds,
        )


def _key(limit: Limit, subject: str) -> str:
    return salted_hmac(limit.name, subject, algorithm="sha256").hexdigest()


def _span(window: timedelta) -> str:
    seconds = int(window.total_seconds())
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds % size == 0 and seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} seconds"


PASSWORD_PER_USERNAME = Limit(
    "password-username", "too_many_attempts", "TTR_PASSWORD_FAILURES_PER_USERNAME", "TTR_PASSWORD_WINDOW_SECONDS",
    "wrong passwords for one username",
)
PASSWORD_PER_IP = Limit(
    "password-ip", "too_many_attempts", "TTR_PASSWORD_FAILURES_PER_IP", "TTR_PASSWORD_WINDOW_SECONDS",
    "wrong passwords from one address",
)
MAILS_PER_ACCOUNT = Limit(
    "mail-account", "too_many_mails", "TTR_CONFIRMATION_MAILS_PER_ACCOUNT", "TTR_CONFIRMATION_MAIL_WINDOW_SECONDS",
    "confirmation mails for one account",
)
MAILS_PER_ADDRESS = Limit(
    "mail-address", "too_many_mails", "TTR_CONFIRMATION_MAILS_PER_ADDRESS", "TTR_CONFIRMATION_MAIL_WINDOW_SECONDS",
    "confirmation mails to one address",
)
QUEUE_JOINS = Limit("queue-join", "too_many_joins", "TTR_QUEUE_JOINS", "TTR_QUEUE_JOIN_WINDOW_SECONDS", "queue joins")
TOURNAMENTS_CREATED = Limit(
    "tournament-create", "too_many_tournaments", "TTR_TOURNAMENTS_CREATED", "TTR_TOURNAMENTS_CREATED_WINDOW_SECONDS",
    "tournaments created",
)
