"""The OpenAPI schema lists the API (docs/API.md: /api/schema/), and /api/docs/ renders it."""

from __future__ import annotations

import json

import pytest
import yaml
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

PATHS = [
    "/api/auth/register",
    "/api/auth/token",
    "/api/auth/login",
    "/api/auth/logout",
    "/api/games",
    "/api/games/{game_id}",
    "/api/games/{game_id}/join",
    "/api/games/{game_id}/bots",
    "/api/games/{game_id}/start",
    "/api/games/{game_id}/state",
    "/api/games/{game_id}/legal-moves",
    "/api/games/{game_id}/moves",
    "/api/games/{game_id}/events",
    "/api/games/{game_id}/replay",
    "/api/games/{game_id}/audit",
    "/api/games/{game_id}/verify",
    "/api/games/{game_id}/score",
]


def check(schema: dict) -> None:
    assert str(schema["openapi"]).startswith("3.")
    assert schema["info"]["title"]
    missing = [p for p in PATHS if p not in schema["paths"]]
    assert not missing, missing
    assert "post" in schema["paths"]["/api/games/{game_id}/moves"]
    assert {"get", "post"} <= set(schema["paths"]["/api/games"])
    assert "get" in schema["paths"]["/api/games/{game_id}/state"]


def test_schema_json() -> None:
    response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    check(json.loads(response.content))


def test_schema_default_yaml() -> None:
    response = APIClient().get("/api/schema/")
    assert response.status_code == 200
    check(yaml.safe_load(response.content))


def test_docs_page() -> None:
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert b"/api/schema/" in response.content
