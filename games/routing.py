"""WebSocket routes: a game's live stream (games/realtime/consumer.py), a person's notifications
(games/realtime/me.py); any other path is answered not_found."""

from __future__ import annotations

from typing import Any

from django.urls import re_path

from games.realtime.consumer import GameConsumer, NoSuchPath
from games.realtime.me import MeConsumer

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # lower-case and hyphenated, as HTTP takes it

websocket_urlpatterns: list[Any] = [
    re_path(rf"^ws/games/(?P<game_id>{UUID})/$", GameConsumer.as_asgi()),
    re_path(r"^ws/me/$", MeConsumer.as_asgi()),
    re_path(r"", NoSuchPath.as_asgi()),
]
