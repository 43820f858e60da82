"""Who a socket is: the API's token, else the session cookie, else anonymous (a spectator).

The token travels as a subprotocol (`Sec-WebSocket-Protocol: ttr.v1, token.<TOKEN>`; the consumer answers
`ttr.v1`, `subprotocol(scope)`), so that it is in no URL a server, proxy or browser history writes down;
`?token=` is still read for older clients (ttr_server/logs.py redacts it from every line).

A token is checked as the HTTP API checks it (games/api/authentication.py: unknown, revoked and expired tokens
fail); a socket that names a bad token is refused (`authentication_failed`, close code 4401), as an HTTP
request with one is refused (401), rather than silently demoted to a spectator. The session cookie is honoured
only when the handshake comes from one of our own origins (ALLOWED_HOSTS, CSRF_TRUSTED_ORIGINS) or from no
browser at all (no Origin header): a browser sends the cookie with a socket opened by any site, so without this
check another site could open a player's socket, read their hand and move for them. A cookie from a foreign
origin leaves the socket anonymous: it may watch, as anyone may.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http.request import validate_host
from rest_framework.exceptions import AuthenticationFailed

from games.api.authentication import ExpiringTokenAuthentication
from ttr_server import unavailable

PROTOCOL = "ttr.v1"  # the one subprotocol the server speaks: the client offers it beside its token
TOKEN_PREFIX = "token."


def subprotocol(scope: Mapping[str, Any]) -> str | None:
    """The subprotocol to accept the handshake with: `ttr.v1` when the client offered it (a browser fails a
    handshake that offered subprotocols and got none back), never the token's."""
    return PROTOCOL if PROTOCOL in scope.get("subprotocols", ()) else None


def offered_token(scope: dict[str, Any]) -> str | None:
    """The token the handshake names: the `token.<TOKEN>` subprotocol, else `?token=` (older clients)."""
    for offered in scope.get("subprotocols", ()):
        if offered.startswith(TOKEN_PREFIX):
            return str(offered[len(TOKEN_PREFIX):])
    tokens = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
    return tokens[0] if tokens else None


def _token_user(key: str) -> tuple[Any, str | None]:
    try:
        user, _ = unavailable.once_more_if_cut(lambda: ExpiringTokenAuthentication().authenticate_credentials(key))
    except AuthenticationFailed as failed:
        return AnonymousUser(), str(failed.detail)
    return user, None


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    value = next((v for k, v in scope.get("headers", ()) if k == name), None)
    return None if value is None else value.decode("latin-1")


def own_origin(origin: str | None) -> bool:
    if origin is None:
        return True  # not a browser: whoever holds the cookie is its owner
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    host = urlsplit(origin).hostname
    if not host:
        return False
    allowed = settings.ALLOWED_HOSTS or ([".localhost", "127.0.0.1", "[::1]"] if settings.DEBUG else [])
    return validate_host(host, allowed)


class TokenAuthMiddleware:
    """Sets scope["user"] from the offered token (and scope["auth_problem"] when the token is bad), or drops a session
    user whose handshake came from a foreign origin. Runs inside channels' session and auth middleware."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        scope = dict(scope)
        token = offered_token(scope)
        if token is not None:
            scope["user"], scope["auth_problem"] = await database_sync_to_async(_token_user)(token[:100])
        elif not own_origin(_header(scope, b"origin")):
            scope["user"] = AnonymousUser()
        return await self.inner(scope, receive, send)


def auth_stack(inner: Any) -> Any:
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))
