"""The web client's addresses (no browser needed): every page answers the client's HTML shell, the board data
is the engine's, the modules are served as JavaScript, and the API's own 404s stay JSON."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from django.test import Client

import games.engine

pytestmark = pytest.mark.django_db

GAME = uuid.uuid4()
PAGES = ["/", "/signin", "/leaderboard", "/users/ann", f"/games/{GAME}", f"/games/{GAME}/replay"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_address_answers_the_client_shell(path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert re.search(rb'<script type="module" src="/static/app\.[0-9a-f]{12}\.js">', response.content)  # its hashed name


@pytest.mark.parametrize("name", ["europe", "usa"])
def test_the_board_data_is_the_engines(name: str) -> None:
    response = Client().get(f"/maps/{name}.json")
    assert response.status_code == 200
    engine_map = Path(games.engine.__file__).parent / "maps" / f"{name}.json"
    assert json.loads(response.content) == json.loads(engine_map.read_text())


def test_an_unknown_map_or_page_is_a_json_404() -> None:
    for path in ("/maps/mars.json", "/games/not-a-uuid", "/api/nothing"):
        response = Client().get(path)
        assert response.status_code == 404, path
        assert response.json()["code"] == "not_found"


def test_the_modules_are_served_as_javascript() -> None:
    # by their plain names too (the catalogues are fetched so; the page links the hashed names: tests/server/test_static.py)
    for name in ("app.js", "game.js", "board.js", "base.css", "board.css", "game.css", "cards.css", "replay.css"):
        response = Client().get(f"/static/{name}")
        assert response.status_code == 200, name
        kind = "text/css" if name.endswith(".css") else "javascript"
        assert kind in response["Content-Type"], (name, response["Content-Type"])
