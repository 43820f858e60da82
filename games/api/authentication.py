"""Token authentication that honours the token's lifetime (games.people.accounts); for the endpoints of one game, the token
checked in the same statement that reads the game (games/store/game_rows.py). `signed_in`: the user a request or a socket
acts for, as the account the services take."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.utils.translation import gettext as _
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated
from rest_framework.request import Request

from games.people.accounts import token_expired
from games.store import game_rows
from ttr_server import json_logs, overrides


class ExpiringTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[User, Token]:
        user, token = super().authenticate_credentials(key)
        return accepted(user, token)


def accepted(user: User, token: Token) -> tuple[User, Token]:
    if token_expired(token):
        raise AuthenticationFailed("the token has expired: ask POST /api/auth/token for a new one")
    json_logs.bind(user=user.get_username())
    return user, token


class GameTokenAuthentication(ExpiringTokenAuthentication):
    """For a view of one game (`kwargs["game_id"]`): one statement reads the token's owner and the game, and the
    view keeps what it read (`view.game_read`) instead of asking again. Same header, same answers as
    `ExpiringTokenAuthentication`, which it is when the override `game_token_read` is off (ttr_server/overrides/)."""

    def authenticate(self, request: Request) -> tuple[User, Token] | None:
        self.request = request  # an authenticator serves one request (DRF makes them per request)
        return super().authenticate(request)

    def authenticate_credentials(self, key: str) -> tuple[User, Token]:
        if not overrides.enabled("game_token_read"):
            return super().authenticate_credentials(key)
        view = self.request.parser_context["view"]
        found = game_rows.read(view.kwargs["game_id"], token_key=key)
        view.game_read = found
        if found.caller is None:
            raise AuthenticationFailed(_("Invalid token."))
        if not found.caller.user.is_active:
            raise AuthenticationFailed(_("User inactive or deleted."))
        return accepted(found.caller.user, found.caller.token)


def signed_in(user: AbstractBaseUser | AnonymousUser | None) -> User:
    """`user` as the account it is, or `NotAuthenticated` (401) for an anonymous one. A view that requires
    `IsAuthenticated` never meets one: there this only tells the type checker what the permission ensured."""
    if isinstance(user, User):  # a lazy user (a session's, a socket's) answers as the User it wraps
        return user
    raise NotAuthenticated()
