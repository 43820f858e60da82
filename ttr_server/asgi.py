"""The ASGI application: HTTP through Django, WebSockets through Channels (games/routing.py), on one server.

A socket is authenticated by `?token=` or the session cookie (games/realtime/socket_user.py)."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ttr_server.settings")

from ttr_server.http import get_asgi_application  # the size limits around Django's handler

django_asgi = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402  (Django must be set up first)

from games.realtime.outage import closing_when_unavailable  # noqa: E402
from games.realtime.socket_user import auth_stack  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

sockets = closing_when_unavailable(auth_stack(URLRouter(websocket_urlpatterns)))  # 1013 while a dependency is down
application = ProtocolTypeRouter({"http": django_asgi, "websocket": sockets})

from ttr_server.settled import settle  # noqa: E402

settle()  # start-up's objects out of the garbage collector's walks (ttr_server/settled.py)
