"""WebSocket routes (the live stream arrives with the realtime issue)."""

from __future__ import annotations

from typing import Any

websocket_urlpatterns: list[Any] = []
