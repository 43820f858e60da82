"""WebSocket routes: a game's live stream (games/realtime/consumer.py), a person's notifications
(games/realtime/me.py), a tournament's standings (games/realtime/tournament.py); any other path is answered
not_found."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from django.urls import re_path

from games.realtime.consumer import GameConsumer, NoSuchPath
from games.realtime.me import MeConsumer
from games.realtime.tournament import TournamentConsumer

if TYPE_CHECKING:  # _ExtendedURLPattern: the stubs' URL pattern whose callback is an ASGI application
    from channels.routing import URLRouter, _ExtendedURLPattern

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # lower-case and hyphenated, as HTTP takes it


def _route(regex: str, application: Callable[..., Awaitable[None]]) -> _ExtendedURLPattern:
    # Channels routes ASGI applications through Django's URL patterns, while django-stubs type re_path's second
    # argument as a Django view (and its pattern's callback so).
    return re_path(regex, application)  # type: ignore[arg-type, return-value]


websocket_urlpatterns: list[_ExtendedURLPattern | URLRouter] = [
    _route(rf"^ws/games/(?P<game_id>{UUID})/$", GameConsumer.as_asgi()),
    _route(r"^ws/me/$", MeConsumer.as_asgi()),
    _route(rf"^ws/tournaments/(?P<tournament_id>{UUID})/$", TournamentConsumer.as_asgi()),
    _route(r"", NoSuchPath.as_asgi()),
]
