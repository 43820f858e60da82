"""Guessing passwords: every form that checks one (the API's token and login, DELETE /api/me, the admin's login and
password change) goes through here, so one count of wrong passwords, per username and per client address, kept in
the database (games/people/rate_limits.py), covers them all and every web process shares it.

Past either limit (TTR_PASSWORD_FAILURES_PER_USERNAME, TTR_PASSWORD_FAILURES_PER_IP in TTR_PASSWORD_WINDOW_SECONDS)
every attempt is refused, 429 `too_many_attempts`, before the password is looked at: a right password too, until
the oldest failure leaves the window, so an attempt at the limit tells a guesser nothing. The client's address is
REMOTE_ADDR, which uvicorn sets from a trusted proxy's X-Forwarded-For (--proxy-headers), never the header as a
client sent it. The cost: ten wrong passwords for someone's name lock that name for the window, whoever typed them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth import authenticate as django_authenticate
from django.contrib.auth.models import AbstractBaseUser, User
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from games.people import accounts, rate_limits
from games.people.rate_limits import PASSWORD_PER_IP, PASSWORD_PER_USERNAME
from games.store.service_error import ServiceError

View = Callable[..., HttpResponse]


def check(request: HttpRequest, username: str) -> None:
    """Refuse (ServiceError 429 `too_many_attempts`) while the username or the client's address is at its limit."""
    rate_limits.check(PASSWORD_PER_USERNAME, _name(username))
    rate_limits.check(PASSWORD_PER_IP, client_address(request))


def failed(request: HttpRequest, username: str) -> None:
    """Count one wrong password, for the username and for the client's address."""
    rate_limits.hit(PASSWORD_PER_USERNAME, _name(username))
    rate_limits.hit(PASSWORD_PER_IP, client_address(request))


def authenticate(request: HttpRequest, username: str, password: str) -> User | None:
    """The account these credentials open, or None (counted); refused while at the limit."""
    check(request, username)
    user = django_authenticate(request, username=username, password=password)
    if user is None:
        failed(request, username)
        return None
    assert isinstance(user, User)
    return user


def password_matches(request: HttpRequest, user: AbstractBaseUser, password: str) -> bool:
    """Whether `password` is the signed-in user's own (a wrong one counted); refused while at the limit."""
    check(request, user.get_username())
    if user.check_password(password):
        return True
    failed(request, user.get_username())
    return False


def client_address(request: HttpRequest) -> str:
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def _name(username: str) -> str:
    return accounts.normalised(username).casefold()  # one count for every spelling of one account


# The admin's forms: Django's own views, wrapped (ttr_server/urls.py routes them here before admin.site.urls).


def admin_login(view: View) -> View:
    """The admin site's login view: refused past the limit; a form sent back with a login error counts a failure."""

    @wraps(view)
    def login(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method != "POST":
            return view(request, *args, **kwargs)
        username = str(request.POST.get("username", ""))
        return _guarded(request, username, NON_FIELD_ERRORS, lambda: view(request, *args, **kwargs))

    return login


def admin_password_change(view: View) -> View:
    """The admin's change of one's own password, which asks for the old one: refused past the limit; a wrong old
    password counts a failure."""

    @wraps(view)
    def password_change(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method != "POST" or not request.user.is_authenticated:
            return view(request, *args, **kwargs)  # signed out: the admin sends the person to its login
        username = request.user.get_username()
        return _guarded(request, username, "old_password", lambda: view(request, *args, **kwargs))

    return password_change


def _guarded(request: HttpRequest, username: str, field: str, answer: Callable[[], HttpResponse]) -> HttpResponse:
    try:
        check(request, username)
    except ServiceError as refused:
        return _refusal(refused)
    response = answer()
    if _form_error(response, field):
        failed(request, username)
    return response


def _form_error(response: HttpResponse, field: str) -> bool:
    """Whether the view sent its form back with an error on `field` (the admin's views answer a TemplateResponse
    whose context still holds the form until it is rendered)."""
    if not isinstance(response, TemplateResponse) or not response.context_data:
        return False
    errors = getattr(response.context_data.get("form"), "errors", None) or {}
    return field in errors


def _refusal(refused: ServiceError) -> HttpResponse:
    """The admin's answer past the limit: a plain page saying so, 429 with Retry-After."""
    response = HttpResponse(f"Too many attempts: {refused.detail}.\n", status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(refused.extra.get("retry_after") or "")
    return response
