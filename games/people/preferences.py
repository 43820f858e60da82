"""A person's own settings (GET/PATCH /api/me): the e-mail address, used only once confirmed by the link mailed to
it; which kinds of notification are mailed; the language. And what the mails' links do: confirm an address, stop
a kind of mail (games/people/mail_links.py makes and reads their tokens). Confirmation mails are limited per account and per
address (TTR_CONFIRMATION_MAILS_PER_ACCOUNT, _PER_ADDRESS an hour: games/people/rate_limits.py)."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import BaseUserManager, User
from django.db import transaction

from games.people import mail, rate_limits
from games.people.mail_links import CONFIRM_DAYS, CONFIRM_SALT, UNSUBSCRIBE_SALT, bad_token, loaded
from games.people.models import NOTIFICATION_KINDS, Account
from games.people.shapes import AccountSettings
from games.store import notify
from games.table import chat


def settings_of(user: User) -> AccountSettings:
    """The person's own settings, as GET /api/me shows them."""
    account = Account.objects.filter(user=user).first() or Account(user=user)
    return AccountSettings(
        username=user.get_username(),
        email=account.email or None,
        email_pending=account.email_pending or None,
        notify={kind: account.notify.get(kind) is not False for kind in NOTIFICATION_KINDS},
        language=account.language or None,
        muted=tuple(chat.muted_names(user)),
    )


def account_settings(user: User) -> dict[str, Any]:
    """The same settings as plain data (the export of everything stored about a person: games/staff/privacy.py)."""
    return dataclasses.asdict(settings_of(user))


def account_update(user: User, changes: dict[str, Any]) -> AccountSettings:
    """Apply PATCH /api/me's `changes` (validated): `email` ("" removes it; a new address waits, pending, for
    its confirmation link, mailed after the commit), `notify` {kind: bool}, `language` (None: Accept-Language)."""
    with transaction.atomic():
        Account.objects.get_or_create(user=user)
        account = Account.objects.select_for_update().get(user=user)
        to_confirm = _email_change(account, changes["email"]) if "email" in changes else None
        if to_confirm:
            _count_confirmation(user, to_confirm)  # refused past the limit: the transaction, and so the change, undone
        if "notify" in changes:
            account.notify = {**account.notify, **changes["notify"]}
        if "language" in changes:
            account.language = changes["language"] or ""
        account.save()
        if to_confirm:
            transaction.on_commit(lambda: notify.send(mail.mail_confirmation, user.pk, to_confirm))
    return settings_of(user)


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


def _count_confirmation(user: User, address: str) -> None:
    """Count one confirmation mail, or refuse it (429 `too_many_mails`): a few an hour per account and per address,
    so nobody can fill another's mailbox with links (the account's row is locked: its count is exact)."""
    rate_limits.check(rate_limits.MAILS_PER_ACCOUNT, str(user.pk))
    rate_limits.check(rate_limits.MAILS_PER_ADDRESS, address.casefold())
    rate_limits.hit(rate_limits.MAILS_PER_ACCOUNT, str(user.pk))
    rate_limits.hit(rate_limits.MAILS_PER_ADDRESS, address.casefold())


def email_confirm(token: str) -> str:
    """Confirm the address the token names for its user; that address. `invalid_token` if the token is bad,
    expired, or its address is neither the one pending nor the one confirmed (a stale link does nothing)."""
    payload = loaded(token, salt=CONFIRM_SALT, max_age=timedelta(days=CONFIRM_DAYS))
    user_id, address = payload.get("u"), payload.get("e")
    if not isinstance(user_id, int) or not isinstance(address, str) or not address:
        raise bad_token()
    with transaction.atomic():
        account = Account.objects.select_for_update().filter(user_id=user_id).first()
        if account is None or address not in (account.email_pending, account.email):
            raise bad_token("this link is for an address that is no longer waiting to be confirmed")
        if address == account.email_pending:
            account.email, account.email_pending = address, ""
            account.save(update_fields=["email", "email_pending"])
    return address


def unsubscribe(token: str) -> str:
    """Switch off the kind of mail the token names for its user; that kind."""
    payload = loaded(token, salt=UNSUBSCRIBE_SALT, max_age=None)
    user_id, kind = payload.get("u"), payload.get("k")
    if not isinstance(user_id, int) or kind not in NOTIFICATION_KINDS:
        raise bad_token()
    if not get_user_model().objects.filter(pk=user_id).exists():  # the person was erased
        raise bad_token()
    with transaction.atomic():
        Account.objects.get_or_create(user_id=user_id)
        account = Account.objects.select_for_update().get(user_id=user_id)
        account.notify = {**account.notify, kind: False}
        account.save(update_fields=["notify"])
    return str(kind)
