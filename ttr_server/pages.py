"""The web client's pages and board data: every page address answers the one HTML shell (frontend/index.html),
whose modules read `location.pathname` and draw the page; `/maps/{name}.json` serves the engine's board data,
so the client draws exactly the board the rules play on. Static modules are served by WhiteNoise under /static/.

The shell links the static files by their hashed names (ttr_server/statics.py), lists every module app.js
imports, directly or not, as a `modulepreload` (the browser fetches them at once rather than one level of imports
after another: the chain is ten deep), and holds the hashed names of the catalogues the client fetches itself.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import Http404, HttpRequest, HttpResponse

import games.engine

FRONTEND = Path(settings.BASE_DIR) / "frontend"
SHELL = FRONTEND / "index.html"
ENTRY = "app.js"
MAPS = Path(games.engine.__file__).parent / "maps"
MAP_NAMES = ("europe", "usa")
STATIC_LINK = re.compile(r'(?P<attribute>href|src)="/static/(?P<name>[^"]+)"')
MODULE_IMPORT = re.compile(r'^(?:import|export)\b[^;]*?\bfrom\s*"\./(?P<name>[\w.-]+\.js)"', re.MULTILINE)


def modules(entry: str = ENTRY) -> list[str]:
    """The client's modules `entry` imports, directly or through others, in the order first met."""
    found: list[str] = []
    waiting = [entry]
    while waiting:
        name = waiting.pop(0)
        for imported in MODULE_IMPORT.findall((FRONTEND / name).read_text(encoding="utf-8")):
            if imported != entry and imported not in found:
                found.append(imported)
                waiting.append(imported)
    return found


def render_shell() -> bytes:
    """index.html with /static/ names turned into the storage's (hashed, unless DEBUG) and the modules preloaded."""
    text = SHELL.read_text(encoding="utf-8")
    text = STATIC_LINK.sub(lambda m: f'{m["attribute"]}="{staticfiles_storage.url(m["name"])}"', text)
    preloads = "".join(f'\n  <link rel="modulepreload" href="{staticfiles_storage.url(name)}">' for name in modules())
    entry = f'<script type="module" src="{staticfiles_storage.url(ENTRY)}"></script>'
    if entry in text:
        text = text.replace(entry, f"{static_names()}\n  {entry}{preloads}", 1)
    return text.encode("utf-8")


def static_names() -> str:
    """The hashed names of the files the client fetches itself (the catalogues), for it to ask for those:
    `{"locales/cs.json": "/static/locales/cs.bb600254b7bf.json", ...}` in `<script id="static-names">`."""
    names = {
        f"locales/{path.name}": staticfiles_storage.url(f"locales/{path.name}")
        for path in sorted((FRONTEND / "locales").glob("*.json"))
    }
    return f'<script type="application/json" id="static-names">{json.dumps(names)}</script>'



@cache
def _shell(manifest: str) -> bytes:
    return render_shell()


def shell(request: HttpRequest, **_: object) -> HttpResponse:
    """The client's one HTML page; it draws whichever page the address names."""
    # Kept per manifest: the names are always the storage's (a test's storage may read a newer collection)
    body = render_shell() if settings.DEBUG else _shell(getattr(staticfiles_storage, "manifest_hash", ""))
    response = HttpResponse(body, content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-cache"  # asked again each time: a new release links new names
    return response


def board(request: HttpRequest, name: str) -> HttpResponse:
    if name not in MAP_NAMES:
        raise Http404(name)
    response = HttpResponse((MAPS / f"{name}.json").read_bytes(), content_type="application/json")
    response["Cache-Control"] = "public, max-age=3600"
    return response
