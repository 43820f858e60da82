"""E-mail: a person's mail settings (GET/PATCH /api/me), the links that confirm an address or stop a kind of mail,
and the batches that mail the notifications people have not read (API.md, Playing by day).

`send_pending` runs every TTR_MAIL_SECONDS in a worker (games.tasks.mail_notifications). A notification goes
only to a confirmed address, only if its kind is on (Account.notify) and only if it is still unread; otherwise
it is marked skipped. A person gets at most one mail per game per TTR_MAIL_GAP_SECONDS: a game's notifications
wait, pending, while a mail of that game went out within the gap, and go together in the first batch after it.
Notifications without a game go in one mail per batch. Two workers may run a batch at once: each locks the
person's Account row and pending notifications (FOR UPDATE SKIP LOCKED) while it mails them and marks them sent,
so the other passes that person by and no notification is mailed twice (only a commit lost after the SMTP
server took the mail could). When the SMTP server cannot be reached the batch logs, stops and leaves the rest
pending for the next one.

Tokens are signed (django.core.signing, a salt per purpose). A confirmation token names the user and the
address and lasts CONFIRM_DAYS; it confirms only while that address is the one pending. An unsubscribe token
names the user and a kind and does not expire (it sits in mails people keep).
"""

from __future__ import annotations

import contextlib
import logging
import smtplib
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, NoReturn
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import BaseUserManager
from django.core import signing
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from games import notify
from games.errors import ServiceError
from games.models import MAP_CHOICES, NOTIFICATION_KINDS, Account, Game, Notification

logger = logging.getLogger(__name__)

MAIL_NOTIFICATIONS = "games.tasks.mail_notifications"
MAIL_CONFIRMATION = "games.tasks.mail_confirmation"
LANGUAGES = ["en", "cs", "ro", "pl", "hu", "fi"]
CONFIRM_DAYS = 7
CONFIRM_SALT = "games.mail.confirm"
UNSUBSCRIBE_SALT = "games.mail.unsubscribe"
PENDING, SENT, SKIPPED = "pending", "sent", "skipped"
PEOPLE_PER_BATCH = 500  # the next batch takes the rest
ROWS_PER_PERSON = 200
MAP_NAMES = dict(MAP_CHOICES)


# Settings (GET/PATCH /api/me)


def account_settings(user: Any) -> dict[str, Any]:
    """The person's own settings, as GET /api/me shows them."""
    account = Account.objects.filter(user=user).first() or Account(user=user)
    return {
        "username": user.get_username(),
        "email": account.email or None,
        "email_pending": account.email_pending or None,
        "notify": {kind: account.notify.get(kind) is not False for kind in NOTIFICATION_KINDS},
        "language": account.language or None,
    }


def account_update(user: Any, changes: dict[str, Any]) -> dict[str, Any]:
    """Apply PATCH /api/me's `changes` (validated): `email` ("" removes it; a new address waits, pending, for
    its confirmation link, mailed after the commit), `notify` {kind: bool}, `language` (None: Accept-Language)."""
    with transaction.atomic():
        Account.objects.get_or_create(user=user)
        account = Account.objects.select_for_update().get(user=user)
        to_confirm = _email_change(account, changes["email"]) if "email" in changes else None
        if "notify" in changes:
            account.notify = {**account.notify, **changes["notify"]}
        if "language" in changes:
            account.language = changes["language"] or ""
        account.save()
        if to_confirm:
            transaction.on_commit(lambda: notify.send(MAIL_CONFIRMATION, user.pk, to_confirm))
    return account_settings(user)


def _email_change(account: Account, address: str) -> str | None:
    """Set the account's address; the address to send a confirmation link to, if any."""
    address = BaseUserManager.normalize_email(address)
    if not address:  # removed: nothing is mailed any more
        account.email = account.email_pending = ""
        return None
    if address == account.email:  # confirmed already
        account.email_pending = ""
        return None
    account.email_pending = address  # the confirmed one, if any, serves until this one is confirmed
    return address


def email_confirm(token: str) -> str:
    """Confirm the address the token names for its user; that address. `invalid_token` if the token is bad,
    expired, or its address is neither the one pending nor the one confirmed (a stale link does nothing)."""
    payload = _loaded(token, CONFIRM_SALT, timedelta(days=CONFIRM_DAYS))
    user_id, address = payload.get("u"), payload.get("e")
    if not isinstance(user_id, int) or not isinstance(address, str) or not address:
        raise _bad_token()
    with transaction.atomic():
        account = Account.objects.select_for_update().filter(user_id=user_id).first()
        if account is None or address not in (account.email_pending, account.email):
            raise _bad_token("this link is for an address that is no longer waiting to be confirmed")
        if address == account.email_pending:
            account.email, account.email_pending = address, ""
            account.save(update_fields=["email", "email_pending"])
    return address


def unsubscribe(token: str) -> str:
    """Switch off the kind of mail the token names for its user; that kind."""
    payload = _loaded(token, UNSUBSCRIBE_SALT, None)
    user_id, kind = payload.get("u"), payload.get("k")
    if not isinstance(user_id, int) or kind not in NOTIFICATION_KINDS:
        raise _bad_token()
    if not get_user_model().objects.filter(pk=user_id).exists():  # the person was erased
        raise _bad_token()
    with transaction.atomic():
        Account.objects.get_or_create(user_id=user_id)
        account = Account.objects.select_for_update().get(user_id=user_id)
        account.notify = {**account.notify, kind: False}
        account.save(update_fields=["notify"])
    return str(kind)


def confirmation_token(user_id: int, address: str) -> str:
    return signing.dumps({"u": user_id, "e": address}, salt=CONFIRM_SALT)


def unsubscribe_token(user_id: int, kind: str) -> str:
    return signing.dumps({"u": user_id, "k": kind}, salt=UNSUBSCRIBE_SALT)


def _loaded(token: str, salt: str, max_age: timedelta | None) -> dict[str, Any]:
    try:
        payload = signing.loads(token, salt=salt, max_age=max_age)
    except signing.SignatureExpired as error:
        raise _bad_token("this link has expired: set the address again for a new one") from error
    except (signing.BadSignature, ValueError) as error:
        raise _bad_token() from error
    if not isinstance(payload, dict):
        raise _bad_token()
    return payload


def _bad_token(detail: str = "this link is not valid") -> ServiceError:
    return ServiceError("invalid_token", detail, field="token")


def _link(path: str, **query: str) -> str:
    return f"{settings.TTR_PUBLIC_URL.rstrip('/')}{path}" + (f"?{urlencode(query)}" if query else "")


# Mailing


def send_confirmation(user_id: int, address: str) -> bool:
    """Mail the link that confirms `address` for the user, unless it is no longer the address pending; whether it
    went. An SMTP error is raised (the task retries)."""
    account = Account.objects.select_related("user").filter(user_id=user_id).first()
    if account is None or account.email_pending != address:
        return False
    link = _link("/confirm-email", token=confirmation_token(user_id, address))
    body = (
        f"Hello {account.user.get_username()},\n\nto receive Ticket to Ride's notifications at this address, "
        f"open this link within {CONFIRM_DAYS} days:\n\n{link}\n\nIf you did not ask for this, ignore this mail: "
        "nothing will be sent here.\n"
    )
    message = EmailMessage("Ticket to Ride: confirm your e-mail address", body, to=[address], headers=_AUTOMATIC)
    message.send()
    return True


_AUTOMATIC = {"Auto-Submitted": "auto-generated"}


class MailDown(Exception):
    """The SMTP server cannot be reached, or refuses to send: the batch stops."""


class _Outbox:
    """One connection for a batch, opened at its first mail; counts what went."""

    def __init__(self) -> None:
        self.connection: Any = None
        self.sent = 0
        self.down = False

    def send(self, message: EmailMessage) -> bool:
        """Whether the message went; False when this message was refused for good (its notifications are then
        skipped, so one bad address never holds up the queue). Raises MailDown when no mail can go now."""
        try:
            if self.connection is None:
                self.connection = get_connection(fail_silently=False)
                self.connection.open()
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


def send_pending(now: datetime | None = None) -> int:
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
        maps = dict(Game.objects.filter(pk__in={row.game_id for row in wanted}).values_list("pk", "map"))
        for game_id, group in _by_game(wanted).items():
            if game_id is not None and _mailed_within_gap(user_id, game_id, now):
                continue  # they go together after the gap
            assert account is not None
            try:
                went = outbox.send(_notification_mail(account, group, maps.get(game_id)))
            except MailDown:
                logger.warning("could not mail user %s", user_id, exc_info=True)
                return  # what was sent is marked: the transaction commits
            if not went:
                logger.warning("the mail server refused the address of user %s: their notifications are skipped", user_id)
            _mark(group, SENT if went else SKIPPED, now if went else None)


def _wanted(account: Account, row: Notification) -> bool:
    return bool(account.email) and account.notify.get(row.kind) is not False and not row.read


def _by_game(rows: Iterable[Notification]) -> dict[Any, list[Notification]]:
    groups: dict[Any, list[Notification]] = {}
    for row in rows:
        groups.setdefault(row.game_id, []).append(row)
    return groups


def _mailed_within_gap(user_id: int, game_id: Any, now: datetime) -> bool:
    since = now - timedelta(seconds=settings.TTR_MAIL_GAP_SECONDS)
    mailed = Notification.objects.filter(user_id=user_id, game_id=game_id, mail=SENT, mailed_at__gt=since)
    return bool(mailed.exists())


def _mark(rows: list[Notification], mail: str, at: datetime | None = None) -> None:
    if rows:
        Notification.objects.filter(pk__in=[row.pk for row in rows]).update(mail=mail, mailed_at=at)


def _notification_mail(account: Account, rows: list[Notification], map_name: str | None) -> EmailMessage:
    """One mail holding `rows` (all of one game, or all without one), with a link to stop each kind of them."""
    game_id = rows[0].game_id
    where = f" in your {MAP_NAMES.get(map_name or '', 'Ticket to Ride')} game" if game_id else ""
    subject = _one_line(rows[0].text) if len(rows) == 1 else f"{len(rows)} notifications{where}"
    stops = {kind: _link("/unsubscribe", token=unsubscribe_token(account.user_id, kind)) for kind in _kinds(rows)}
    lines = [f"- {_one_line(row.text)}" for row in rows]
    lines += ["", f"Open the game: {_link(f'/games/{game_id}')}" if game_id else f"Open Ticket to Ride: {_link('/')}"]
    lines += ["", "No more mails like these:"]
    lines += [f"  {kind.replace('_', ' ')}: {url}" for kind, url in stops.items()]
    headers = {**_AUTOMATIC, "List-Unsubscribe": ", ".join(f"<{url}>" for url in stops.values())}
    return EmailMessage(f"Ticket to Ride: {subject[:120]}", "\n".join(lines) + "\n", to=[account.email], headers=headers)


def _kinds(rows: list[Notification]) -> list[str]:
    return list(dict.fromkeys(row.kind for row in rows))


def _one_line(text: str) -> str:
    return " ".join(text.split())  # no line breaks: a subject that holds one is refused (header injection)
