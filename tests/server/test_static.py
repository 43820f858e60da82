"""Static files (ttr_server/statics.py, pages.py): collected under hashed names with the client's module imports
rewritten to them, compressed with gzip and Brotli, served with a year's immutable cache, and linked by the page."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from ttr_server import pages, statics

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
HASHED = r"[0-9a-f]{12}"
IMPORT = re.compile(r'(?:import|export)\b[^;]*?\bfrom\s*"\./(?P<name>[^"]+)"')


def _body(response: Any) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else bytes(response.content)


def test_a_collection_hashes_every_client_file_rewrites_the_imports_and_compresses(
    settings: Any, tmp_path: Path
) -> None:
    settings.STATIC_ROOT = tmp_path / "static"
    assert statics.ensure_collected() is True
    assert statics.ensure_collected() is False  # the sources did not change: nothing to do
    root = Path(settings.STATIC_ROOT)
    manifest = json.loads((root / "staticfiles.json").read_text())["paths"]
    modules = sorted(p.name for p in FRONTEND.glob("*.js"))
    assert modules and all(re.fullmatch(rf"{name[:-3]}\.{HASHED}\.js", manifest[name]) for name in modules)
    for name in modules:
        hashed = root / manifest[name]
        text = hashed.read_text(encoding="utf-8")
        imports = IMPORT.findall(text)
        assert len(imports) == len(IMPORT.findall((FRONTEND / name).read_text(encoding="utf-8"))), name
        for imported in imports:
            # every import names another module's hashed copy, which exists
            assert re.fullmatch(rf"[a-z0-9]+\.{HASHED}\.js", imported), (name, imported)
            assert imported in manifest.values() and (root / imported).is_file(), (name, imported)
        assert (root / f"{manifest[name]}.br").is_file() and (root / f"{manifest[name]}.gz").is_file(), name
    # the catalogues, fetched by their plain names, are compressed under those too
    assert (root / "locales" / "en.json.br").is_file()


def test_the_page_links_hashed_names_served_compressed_with_an_immutable_cache(client: Client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page["Cache-Control"] == "no-cache"
    html = page.content.decode()
    assert re.search(rf'<script type="module" src="/static/app\.{HASHED}\.js"></script>', html)
    assert re.search(rf'<link rel="stylesheet" href="/static/base\.{HASHED}\.css">', html)
    assert '"/static/app.js"' not in html and '"/static/base.css"' not in html
    preloaded = re.findall(rf'<link rel="modulepreload" href="/static/([a-z0-9]+)\.{HASHED}\.js">', html)
    assert set(preloaded) == {name[:-3] for name in pages.modules()} and "dom" in preloaded

    app = re.search(rf"/static/app\.{HASHED}\.js", html)
    assert app
    plain = _body(client.get("/static/app.js"))
    brotli = client.get(app[0], HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert brotli.status_code == 200 and brotli["Content-Encoding"] == "br"
    assert "immutable" in brotli["Cache-Control"] and "max-age=315360000" in brotli["Cache-Control"]
    assert len(_body(brotli)) < len(plain) / 2
    gzip = client.get(app[0], HTTP_ACCEPT_ENCODING="gzip")
    assert gzip["Content-Encoding"] == "gzip" and "immutable" in gzip["Cache-Control"]
    # a plain name is cached briefly: it may change with the next release
    assert "immutable" not in client.get("/static/locales/en.json")["Cache-Control"]
    # the catalogues' hashed names, for the client to fetch them by those
    names = json.loads(re.search(r'<script type="application/json" id="static-names">(.*?)</script>', html)[1])
    assert set(names) == {f"locales/{p.name}" for p in (FRONTEND / "locales").glob("*.json")}
    assert re.fullmatch(rf"/static/locales/en\.{HASHED}\.json", names["locales/en.json"])
    assert "immutable" in client.get(names["locales/en.json"])["Cache-Control"]


@pytest.mark.parametrize("path", ["/", "/games/00000000-0000-0000-0000-000000000000", "/me"])
def test_every_page_address_answers_the_same_rendered_shell(client: Client, path: str) -> None:
    assert client.get(path).content == pages.render_shell()
