"""The signed links a mail holds (django.core.signing, a salt per purpose). A confirmation token names the user and
the address and lasts CONFIRM_DAYS; it confirms only while that address is the one pending. An unsubscribe token
names the user and a kind and does not expire (it sits in mails people keep)."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.core import signing

from games.store.service_error import ServiceError

CONFIRM_DAYS = 7
CONFIRM_SALT = "games.mail.confirm"  # the salt of links already mailed: never renamed
UNSUBSCRIBE_SALT = "games.mail.unsubscribe"


def confirmation_token(user_id: int, *, address: str) -> str:
    return signing.dumps({"u": user_id, "e": address}, salt=CONFIRM_SALT)


def unsubscribe_token(user_id: int, *, kind: str) -> str:
    return signing.dumps({"u": user_id, "k": kind}, salt=UNSUBSCRIBE_SALT)


def loaded(token: str, *, salt: str, max_age: timedelta | None) -> dict[str, object]:
    try:
        payload = signing.loads(token, salt=salt, max_age=max_age)
    except signing.SignatureExpired as error:
        raise bad_token("this link has expired: set the address again for a new one") from error
    except (signing.BadSignature, ValueError) as error:
        raise bad_token() from error
    if not isinstance(payload, dict):
        raise bad_token()
    return payload


def bad_token(detail: str = "this link is not valid") -> ServiceError:
    return ServiceError("invalid_token", detail, status=404, field="token")  # names nothing to confirm: not found


def link(path: str, **query: str) -> str:
    return f"{settings.TTR_PUBLIC_URL.rstrip('/')}{path}" + (f"?{urlencode(query)}" if query else "")


