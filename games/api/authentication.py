"""Token authentication that honours the token's lifetime (games.accounts); for the endpoints of one game, the token
checked in the same statement that reads the game (games/game_rows.py)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from games import game_rows
from games.accounts import token_expired
from ttr_server import logs


class ExpiringTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> Any:
        user, token = super().authenticate_credentials(key)
        return accepted(user, token)


def accepted(user: Any, token: Any) -> tuple[Any, Any]:
    if token_expired(token):
        raise AuthenticationFailed("the token has expired: ask POST /api/auth/token for a new one")
    logs.bind(user=user.get_username())
    return user, token


class GameTokenAuthentication(ExpiringTokenAuthentication):
    """For a view of one game (`kwargs["game_id"]`): one statement reads the token's owner and the game, and the
    view keeps what it read (`view.game_read`) instead of asking again. Same header, same answers as
    `ExpiringTokenAuthentication`."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        self.request = request  # an authenticator serves one request (DRF makes them per request)
        return super().authenticate(request)

    def authenticate_credentials(self, key: str) -> Any:
        view = self.request.parser_context["view"]
        found = game_rows.read(view.kwargs["game_id"], token_key=key)
        view.game_read = found
        if found.caller is None:
            raise AuthenticationFailed(_("Invalid token."))
        if not found.caller.user.is_active:
            raise AuthenticationFailed(_("User inactive or deleted."))
        return accepted(found.caller.user, found.caller.token)
