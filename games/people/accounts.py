"""Accounts: what a username may be, and the tokens clients authenticate with.

A username is compared after Unicode NFKC normalisation and case folding, so `Alice`, `alice` and the
full-width form of `alice` (U+FF41...) are one account: registering any of them when another exists is `username_taken`,
and each of them logs in to it. It is stored as typed (after NFKC), 2 to 24 characters of ASCII letters,
digits, `_`, `-` and `.`, beginning with a letter or digit: ASCII only, so no two names can look alike across
scripts. A database index on the lower-cased name makes the uniqueness hold under concurrent registrations.

A token lives `TOKEN_LIFETIME_DAYS` (settings; default 30) from when it was issued, or until its owner logs
out. Asking for a token while one is valid returns that one; an expired or revoked one is replaced.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils import timezone
from rest_framework.authtoken.models import Token

USERNAME_MIN, USERNAME_MAX = 2, 24
USERNAME_PATTERN = rf"^[A-Za-z0-9][A-Za-z0-9_.-]{{{USERNAME_MIN - 1},{USERNAME_MAX - 1}}}$"
USERNAME_RULE = (
    f"a username is {USERNAME_MIN} to {USERNAME_MAX} characters: ASCII letters, digits, '_', '-' and '.', "
    "beginning with a letter or digit"
)
_USERNAME = re.compile(USERNAME_PATTERN)


def normalised(username: str) -> str:
    return unicodedata.normalize("NFKC", username)


def username_problem(username: str) -> str | None:
    """Why this (normalised) username cannot be registered, or None."""
    return None if _USERNAME.fullmatch(username) else USERNAME_RULE


def user_named(username: str) -> User | None:
    """The account this name means (NFKC, any case), or None."""
    return get_user_model().objects.filter(username__iexact=normalised(username)).first()


class UsernameBackend(ModelBackend):
    """Password login by the username in any case or Unicode compatibility form."""

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> User | None:
        if username is None or password is None:
            return None
        user = user_named(username)
        if user is None:
            get_user_model()().set_password(password)  # as slow as a real check: no timing hint that the name is free
            return None
        return user if user.check_password(password) and self.user_can_authenticate(user) else None


def token_lifetime() -> timedelta:
    return timedelta(days=settings.TOKEN_LIFETIME_DAYS)


def token_expired(token: Token) -> bool:
    created: datetime = token.created  # the stubs declare Token's fields without their types
    return created + token_lifetime() <= timezone.now()


def token_for(user: User) -> Token:
    """The user's valid token, or a new one in place of an expired or revoked one."""
    token, created = Token.objects.get_or_create(user=user)
    if not created and token_expired(token):
        token.delete()
        token = Token.objects.create(user=user)
    return token


def token_revoke(token: object) -> None:
    """Revoke the request's token (DRF's `request.auth`: a Token, or None for a session)."""
    if isinstance(token, Token):
        Token.objects.filter(pk=token.pk).delete()
