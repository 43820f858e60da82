"""A normal session's person, made once for the browser tests that look at every page (axe-core in
test_accessibility, overflow in test_fit): a daily game in play against bots with a few moves made (cards in hand, a
route claimed, each seat's bank in the players' table), a finished game, which the bots play out in the
background while the first pages are looked at, and a daily Swiss under way with another person and a bot at its
table (its page: the standings and the round's tables; the tournaments' list)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from playwright.sync_api import Page, expect

from tests.browser.test_board import finished_game, game_against_bots, play
from tests.browser.test_edges import call, register

DRAWN_MS = 30_000  # a page's first drawing, while the bots of the finished game play on the same two cores


@dataclass
class Person:
    name: str
    token: str
    game: str  # a daily game in play
    tournament: str  # a daily Swiss under way
    _finished: dict[str, str] = field(default_factory=dict)
    _worker: threading.Thread | None = None

    def pages(self) -> list[tuple[str, str, str, bool]]:
        """Every page of a normal session but the replay (its game is finished later): (name, address, what shows
        once it is drawn, signed in)."""
        return [
            ("sign-in", "/signin", "form.login", False),
            ("lobby-out", "/", "section.games-open", False),
            ("leaderboard-out", "/leaderboard", "#page h1", False),
            ("tournaments-out", "/tournaments", "section.tournaments-running li", False),
            ("lobby", "/", "section.my-games", True),
            ("game", f"/games/{self.game}", "section.players table", True),
            ("leaderboard", "/leaderboard", "#page h1", True),
            ("player", f"/users/{self.name}", "#page h1", True),
            ("me", "/me", "section.language", True),
            ("tournaments", "/tournaments", "form.tour-form", True),
            ("tournament", f"/tournaments/{self.tournament}", "table.tour-standings-table", True),
        ]

    def finished(self) -> str:
        """The finished game's id, once the bots have played it out."""
        assert self._worker is not None
        self._worker.join(timeout=180)
        assert "id" in self._finished, "the bots did not finish the game"
        return self._finished["id"]


def tournament_under_way(base_url: str, token: str) -> str:
    """A daily Swiss of this person and another at a table of three that a bot fills, starting now (the server's
    periodic task starts it within seconds, while the games below are made)."""
    starts = (datetime.now(UTC) + timedelta(seconds=10)).isoformat()  # the two joins before it, on a busy machine
    tournament = call(base_url, token, "POST", "/tournaments", {
        "name": "Daily Swiss of the Northern Railways", "format": "swiss", "map": "europe", "table_size": 3,
        "smaller_tables": False, "speed": "daily", "days_per_move": 1, "rounds": 3, "starts_at": starts,
        "ranked": False, "bots_fill": True,
    })["id"]
    _, other = register(base_url)
    for who in (token, other):
        call(base_url, who, "POST", f"/tournaments/{tournament}/join", {})
    return str(tournament)


def started(base_url: str, token: str, tournament: str, seconds: float = 180) -> None:
    """Until the server's periodic task has started the tournament (its tick waits behind the bots' turns of the
    worker they share, so on a busy machine the start comes late)."""
    deadline = time.monotonic() + seconds
    while call(base_url, token, "GET", f"/tournaments/{tournament}")["status"] == "upcoming":
        assert time.monotonic() < deadline, "the tournament did not start"
        time.sleep(0.5)


def person_with_games(base_url: str) -> Person:
    name, token = register(base_url)
    tournament = tournament_under_way(base_url, token)
    finished: dict[str, str] = {}

    def finish() -> None:
        finished["id"] = finished_game(base_url, token, players=2, seconds=150)

    worker = threading.Thread(target=finish, daemon=True)
    worker.start()
    game = game_against_bots(base_url, token, players=3, speed="daily", days_per_move=1, bank_days=3)  # a bank column
    for _ in range(4):
        play(base_url, token, game)
    started(base_url, token, tournament)
    return Person(name, token, game, tournament, finished, worker)


def wait_drawn(page: Page, ready: str) -> None:
    """Until `ready` shows, nothing is busy and the fonts are in (sizes measured are the final ones)."""
    expect(page.locator(ready).first).to_be_visible(timeout=DRAWN_MS)
    page.wait_for_function("() => !document.querySelector('[aria-busy=true]') && document.fonts.status === 'loaded'")
