"""A live server's API as one registered user sees it: `client()`, and `my_decision()`, waiting until the bots
have answered and that user alone decides."""

from __future__ import annotations

import time
from typing import Any

import httpx

from bench.live.embedded import LiveServer


def client(server: LiveServer, username: str, password: str = "correct-horse-9") -> httpx.Client:
    """An HTTP client of the server's API with the token of a newly registered user."""
    http = httpx.Client(base_url=server.api, timeout=30)
    answer = http.post("/auth/register", json={"username": username, "password": password})
    assert answer.status_code == 201, answer.text
    http.headers["Authorization"] = f"Token {answer.json()['token']}"
    return http


def my_decision(http: httpx.Client, game: str, seconds: float = 60, poll: float = 0.02) -> dict[str, Any] | None:
    """Wait until the client's user alone decides in `game`: the bots have answered, so nothing else can move
    the seq. The `/state` answer then, or None once the game is over."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = http.get(f"/games/{game}/state").json()
        if state["status"] != "active":
            return None
        if state["view"]["deciding_seats"] == [state["view"]["your_seat"]]:
            return dict(state)
        time.sleep(poll)
    raise AssertionError(f"the bots did not answer in {seconds} s")
