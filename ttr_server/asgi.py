"""The ASGI application: HTTP through Django, WebSockets through Channels (routes added by the realtime work)."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ttr_server.settings")

from ttr_server.http import get_asgi_application  # one thread hop per HTTP request

django_asgi = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (Django must be set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {"http": django_asgi, "websocket": AuthMiddlewareStack(URLRouter(websocket_urlpatterns))}
)
