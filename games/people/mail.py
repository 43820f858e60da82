"""E-mail: the batches that mail the notifications people have not read, and the mail with the link that confirms
an address (docs/API.md, Playing by day). A person's settings are games/people/preferences.py's; the links,
games/people/mail_links.py's.

`send_pending` runs every TTR_MAIL_SECONDS in a worker (games.tasks.mail_notifications). A notification goes
only to a confirmed address, only if its kind is on (Account.notify) and only if it is still unread; otherwise
it is marked skipped. A person gets at most one mail per game per TTR_MAIL_GAP_SECONDS: a game's notifications
wait, pending, while a mail of that game went out within the gap, and go together in the first batch after it.
Notifications without a game go in one mail per batch. Two workers may run a batch at once: each locks the
person's Account row and pending notifications (FOR UPDATE SKIP LOCKED) while it mails them and marks them sent,
so the other passes that person by and no notification is mailed twice (only a commit lost after the SMTP
server took the mail could). When the SMTP server cannot be reached the batch logs, stops and leaves the rest
pending for the next one.

Mails are in the recipient's language (Account.language; English without one), from the templates under
games/templates/mail/ and the catalogues under locale/ (compiled by `make messages`). A notification's text is
stored in English when it is written: in English it is mailed as it is; in another language it is told again from
its kind, game and data (mail/notification.txt).
"""

from __future__ import annotations

import contextlib
import logging
import smtplib
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import NoReturn

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.template.loader import render_to_string
from django.utils import formats, timezone, translation
from django.utils.translation import gettext, ngettext, pgettext_lazy

from games.people import mail_links
from games.people.models import Account, Notification
from games.store.models import Game

logger = logging.getLogger(__name__)

PENDING, SENT, SKIPPED = "pending", "sent", "skipped"
PEOPLE_PER_BATCH = 500  # the next batch takes the rest
ROWS_PER_PERSON = 200


# Mailing


@shared_task(
    ignore_result=True, autoretry_for=(OSError, smtplib.SMTPException), retry_backoff=30, max_retries=5,
)
def mail_confirmation(user_id: int, address: str) -> bool:
    """The worker's mail of a confirmation link, queued after the commit that set the address (retried while the
    SMTP server cannot be reached)."""
    return send_confirmation(user_id, address=address)


def send_confirmation(user_id: int, *, address: str) -> bool:
    """Mail the link that confirms `address` for the user, unless it is no longer the address pending; whether it
    went. An SMTP error is raised (the task retries)."""
    account = Account.objects.select_related("user").filter(user_id=user_id).first()
    if account is None or account.email_pending != address:
        return False
    link = mail_links.link("/confirm-email", token=mail_links.confirmation_token(user_id, address=address))
    with translation.override(language_of(account)):
        # No username: the address may not be the requester's, and a name chosen by anyone is no text to mail them.
        context = {"days": mail_links.CONFIRM_DAYS, "link": link}
        body = _text("mail/confirm_email.txt", context)
        subject = gettext("Ticket to Ride: confirm your e-mail address")
    EmailMessage(subject, body, to=[address], headers=_AUTOMATIC).send()
    return True


_AUTOMATIC = {"Auto-Submitted": "auto-generated"}


def language_of(account: Account | None) -> str:
    """The language of the person's mails: their account's, else English."""
    code = account.language if account is not None else ""
    return code if code in dict(settings.LANGUAGES) else "en"


def _text(template: str, context: dict[str, object]) -> str:
    """A plain-text mail body from its template (in the active language), ending in one line break."""
    return render_to_string(template, context).strip("\n") + "\n"


class MailDown(Exception):
    """The SMTP server cannot be reached, or refuses to send: the batch stops."""


class _Outbox:
    """One connection for a batch, opened at its first mail; counts what went."""

    def __init__(self) -> None:
        self.connection: BaseEmailBackend | None = None
        self.sent = 0
        self.down = False

    def send(self, message: EmailMessage) -> bool:
        """Whether the message went; False when this message was refused for good (its notifications are then
        skipped, so one bad address never holds up the queue). Raises MailDown when no mail can go now."""
        try:
            if self.connection is None:
                connection: BaseEmailBackend = get_connection(fail_silently=False)  # the stubs say Any
                connection.open()
                self.connection = connection
            self.connection.send_messages([message])
        except (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError, ValueError) as error:
            if getattr(error, "smtp_code", 550) >= 500:
                logger.warning("a mail was refused: %s", error)
                return False
            self._fail(error)
        except (smtplib.SMTPException, OSError) as error:  # unreachable, or refusing our sender or login
            self._fail(error)
        self.sent += 1
        return True

    def _fail(self, error: Exception) -> NoReturn:
        self.down = True
        raise MailDown(str(error)) from error

    def close(self) -> None:
        if self.connection is not None:
            with contextlib.suppress(smtplib.SMTPException, OSError):
                self.connection.close()


def send_pending(*, now: datetime | None = None) -> int:
    """Mail the pending notifications (one batch, see the module's docstring); how many mails went."""
    now = now or timezone.now()
    outbox = _Outbox()
    try:
        for user_id in _people_with_pending(now):
            _mail_person(user_id, now, outbox)
            if outbox.down:
                logger.warning("the mail server cannot be reached: the notifications wait for the next batch")
                break
    finally:
        outbox.close()
    return outbox.sent


def _people_with_pending(now: datetime) -> list[int]:
    """Those with a notification that may go now: a game's, while the gap holds them, are left for later."""
    since = now - timedelta(seconds=settings.TTR_MAIL_GAP_SECONDS)
    mailed = Notification.objects.filter(
        user_id=OuterRef("user_id"), game_id=OuterRef("game_id"), mail=SENT, mailed_at__gt=since
    )
    rows = Notification.objects.filter(~Exists(mailed), mail=PENDING).order_by("user_id")
    return list(rows.values_list("user_id", flat=True).distinct()[:PEOPLE_PER_BATCH])


def _mail_person(user_id: int, now: datetime, outbox: _Outbox) -> None:
    with transaction.atomic():
        account = Account.objects.select_for_update(skip_locked=True).filter(user_id=user_id).first()
        if account is None and Account.objects.filter(user_id=user_id).exists():
            return  # another worker is mailing this person
        pending = Notification.objects.select_for_update(skip_locked=True).filter(user_id=user_id, mail=PENDING)
        rows = list(pending.order_by("pk")[:ROWS_PER_PERSON])
        wanted = [row for row in rows if account is not None and _wanted(account, row)]
        _mark([row for row in rows if row not in wanted], SKIPPED)
        games = {pk: (map_id, players) for pk, map_id, players in
                 Game.objects.filter(pk__in={row.game_id for row in wanted}).values_list("pk", "map", "players")}
        for game_id, group in _by_game(wanted).items():
            if game_id is not None and _mailed_within_gap(user_id, game_id, now):
                continue  # they go together after the gap
            assert account is not None
            try:
                went = outbox.send(_notification_mail(account, group, games.get(game_id) if game_id else None))
            except MailDown:
                logger.warning("could not mail user %s", user_id, exc_info=True)
                return  # what was sent is marked: the transaction commits
            if not went:
                logger.warning("the mail server refused the address of user %s: their notifications are skipped", user_id)
            _mark(group, SENT if went else SKIPPED, now if went else None)


def _wanted(account: Account, row: Notification) -> bool:
    return bool(account.email) and account.notify.get(row.kind) is not False and not row.read


def _by_game(rows: Iterable[Notification]) -> dict[uuid.UUID | None, list[Notification]]:
    groups: dict[uuid.UUID | None, list[Notification]] = {}
    for row in rows:
        groups.setdefault(row.game_id, []).append(row)
    return groups


def _mailed_within_gap(user_id: int, game_id: uuid.UUID, now: datetime) -> bool:
    since = now - timedelta(seconds=settings.TTR_MAIL_GAP_SECONDS)
    mailed = Notification.objects.filter(user_id=user_id, game_id=game_id, mail=SENT, mailed_at__gt=since)
    return bool(mailed.exists())


def _mark(rows: list[Notification], mail: str, at: datetime | None = None) -> None:
    if rows:
        Notification.objects.filter(pk__in=[row.pk for row in rows]).update(mail=mail, mailed_at=at)


def _notification_mail(account: Account, rows: list[Notification], game: tuple[str, int] | None) -> EmailMessage:
    """One mail holding `rows` (all of one game, or all without one), with a link to stop each kind of them; `game`
    is their game's map and number of players."""
    game_id = rows[0].game_id
    stops = {
        kind: mail_links.link("/unsubscribe", token=mail_links.unsubscribe_token(account.user_id, kind=kind))
        for kind in _kinds(rows)
    }
    with translation.override(language_of(account)):
        said = [_said(row, game) for row in rows]
        subject = said[0] if len(rows) == 1 else _count_subject(len(rows), game if game_id else None)
        body = _text("mail/notifications.txt", {
            "lines": said,
            "game_link": mail_links.link(f"/games/{game_id}") if game_id else None,
            "site_link": mail_links.link("/"),
            "stops": [{"kind": str(_KIND_WORDS.get(kind, kind)), "url": url} for kind, url in stops.items()],
        })
    headers = {**_AUTOMATIC, "List-Unsubscribe": ", ".join(f"<{url}>" for url in stops.values())}
    return EmailMessage(f"Ticket to Ride: {subject[:120]}", body, to=[account.email], headers=headers)


# The kinds' names in the mail's links to stop them ("your turn: https://...").
_KIND_WORDS = {
    "your_turn": pgettext_lazy("notification kind", "your turn"),
    "game_formed": pgettext_lazy("notification kind", "game formed"),
    "invitation": pgettext_lazy("notification kind", "invitation"),
    "rematch_offered": pgettext_lazy("notification kind", "rematch offered"),
    "game_ended": pgettext_lazy("notification kind", "game ended"),
    "clock_running_out": pgettext_lazy("notification kind", "clock running out"),
    "tournament_starting": pgettext_lazy("notification kind", "tournament starting"),
    "tournament_table": pgettext_lazy("notification kind", "tournament table"),
    "tournament_ended": pgettext_lazy("notification kind", "tournament ended"),
}
_MAP_WORDS = {"europe": pgettext_lazy("map", "Europe"), "usa": pgettext_lazy("map", "USA")}


def _map_words(game: tuple[str, int] | None) -> str:
    return str(_MAP_WORDS.get(game[0], game[0])) if game else "Ticket to Ride"


def _count_subject(count: int, game: tuple[str, int] | None) -> str:
    if game is None:
        return ngettext("%(count)s notification", "%(count)s notifications", count) % {"count": count}
    words = ngettext("%(count)s notification in your %(map)s game", "%(count)s notifications in your %(map)s game", count)
    return words % {"count": count, "map": _map_words(game)}


def _said(row: Notification, game: tuple[str, int] | None) -> str:
    """The notification in the active language: its own (English) text in English, else told from its kind and data."""
    if translation.get_language() in (None, "en", "en-us"):
        return _one_line(row.text)
    data = row.data or {}
    context = {
        "kind": row.kind, "map": _map_words(game), "players": game[1] if game else None, "text": row.text,
        "by": data.get("by"), "place": data.get("place"), "points": data.get("points"), "hours": _hours_left(row),
        "round": data.get("round"),
        "rating_before": _decimal(data.get("rating_before")), "rating_after": _decimal(data.get("rating_after")),
    }
    return _one_line(render_to_string("mail/notification.txt", context))


def _hours_left(row: Notification) -> int | None:
    """How many hours the clock had left when a `clock_running_out` was written (at least 1); None if unknown."""
    try:
        deadline = datetime.fromisoformat(str((row.data or {})["deadline"]))
    except (KeyError, ValueError):
        return None
    return max(1, round((deadline - row.at).total_seconds() / 3600))


def _decimal(value: object) -> str | None:
    return formats.number_format(value, 1) if isinstance(value, int | float) else None


def _kinds(rows: list[Notification]) -> list[str]:
    return list(dict.fromkeys(row.kind for row in rows))


def _one_line(text: str) -> str:
    return " ".join(text.split())  # no line breaks: a subject that holds one is refused (header injection)
