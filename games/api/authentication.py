"""Token authentication that honours the token's lifetime (games.accounts)."""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from games.accounts import token_expired
from ttr_server import logs


class ExpiringTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> Any:
        user, token = super().authenticate_credentials(key)
        if token_expired(token):
            raise AuthenticationFailed("the token has expired: ask POST /api/auth/token for a new one")
        logs.bind(user=user.get_username())
        return user, token
