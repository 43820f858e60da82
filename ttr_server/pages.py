"""The web client's pages and board data: every page address answers the one HTML shell (frontend/index.html),
whose modules read `location.pathname` and draw the page; `/maps/{name}.json` serves the engine's board data,
so the client draws exactly the board the rules play on. Static modules are served by WhiteNoise under /static/.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse

import games.engine

SHELL = Path(settings.BASE_DIR) / "frontend" / "index.html"
MAPS = Path(games.engine.__file__).parent / "maps"
MAP_NAMES = ("europe", "usa")


@cache
def _shell() -> bytes:
    return SHELL.read_bytes()


def shell(request: HttpRequest, **_: object) -> HttpResponse:
    """The client's one HTML page; it draws whichever page the address names."""
    body = SHELL.read_bytes() if settings.DEBUG else _shell()
    return HttpResponse(body, content_type="text/html; charset=utf-8")


def board(request: HttpRequest, name: str) -> HttpResponse:
    if name not in MAP_NAMES:
        raise Http404(name)
    response = HttpResponse((MAPS / f"{name}.json").read_bytes(), content_type="application/json")
    response["Cache-Control"] = "public, max-age=3600"
    return response
