"""Checked by a machine (issue #33): axe-core, the accessibility engine (node_modules/axe-core, a devDependency of
package.json), run in the page on every page of a normal session: the lobby signed out and signed in, sign-in, a
game in play, a finished game's replay, the leaderboard, a player's page and the settings, on a phone (390x844)
and a desktop (1400x900). No violation of impact serious or critical; each found is named by its rule, impact,
page and elements. Every violation found, of any impact, is written to test-artifacts/browser/axe-<width>.json,
and each page's screenshot beside it (axe-<page>-<width>.png). The `contexts` watch fails the test on any console
error, failed request or answer of 400 or more on these pages (none is expected: a normal session)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.test_board import DESKTOP, PHONE, finished_game, game_against_bots, play
from tests.browser.test_edges import register

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
SIZES = {"390": PHONE, "1400": DESKTOP}
BLOCKING = ("serious", "critical")
LOAD_MS = 30_000
# Every rule axe runs by default (WCAG 2.0-2.2 A and AA, and its best practices), the experimental ones aside.
RUN = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(" "), html: n.html.slice(0, 160), summary: n.failureSummary })),
  }));
}"""


def axe(page: Page) -> list[dict[str, Any]]:
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return list(page.evaluate(RUN))


def opened(page: Page, url: str, ready: str) -> None:
    page.goto(url)
    expect(page.locator(ready).first).to_be_visible(timeout=LOAD_MS)
    page.wait_for_function("() => !document.querySelector('[aria-busy=true]') && document.fonts.status === 'loaded'")


@pytest.fixture(scope="module")
def session_games(live: Any) -> dict[str, Any]:
    """A person with a game in play (a few moves made: cards in hand) and a finished game, made once for both
    sizes; the finished one is played out by the bots while the first pages are checked."""
    base_url = f"http://127.0.0.1:{live.port}"
    name, token = register(base_url)
    finished: dict[str, str] = {}

    def finish() -> None:
        finished["id"] = finished_game(base_url, token, players=2, seconds=150)

    worker = threading.Thread(target=finish, daemon=True)
    worker.start()
    game = game_against_bots(base_url, token, players=3)
    for _ in range(4):
        play(base_url, token, game)
    return {"name": name, "token": token, "game": game, "finished": finished, "worker": worker}


@pytest.mark.parametrize("width", list(SIZES))
def test_no_serious_or_critical_accessibility_violation_on_any_page(contexts, base_url, session_games, artifacts, width):
    if not AXE.is_file():
        pytest.skip(f"axe-core is not installed ({AXE}): npm ci")
    name, token = session_games["name"], session_games["token"]
    pages = [  # (page, address, what shows once it is drawn, signed in)
        ("lobby-out", "/", "section.games-open", False),
        ("sign-in", "/signin", "form.login", False),
        ("leaderboard-out", "/leaderboard", "#page h1", False),
        ("lobby", "/", "section.my-games", True),
        ("game", f"/games/{session_games['game']}", "section.players table", True),
        ("leaderboard", "/leaderboard", "#page h1", True),
        ("player", f"/users/{name}", "#page h1", True),
        ("me", "/me", "section.language", True),
        ("replay", None, "svg.board", True),
    ]
    page = contexts(**SIZES[width]).new_page()
    found: dict[str, list[dict[str, Any]]] = {}
    for label, address, ready, signed in pages:
        if signed and not page.evaluate("localStorage.getItem('ttr.token')"):
            page.evaluate("([n, t]) => { localStorage.setItem('ttr.user', n); localStorage.setItem('ttr.token', t); }",
                          [name, token])
        if address is None:  # the replay of the finished game
            session_games["worker"].join(timeout=180)
            assert "id" in session_games["finished"], "the bots did not finish the game"
            address = f"/games/{session_games['finished']['id']}/replay"
        opened(page, base_url + address, ready)
        found[label] = axe(page)
        page.screenshot(path=artifacts / f"axe-{label}-{width}.png", full_page=True)
    (artifacts / f"axe-{width}.json").write_text(json.dumps(found, indent=1), encoding="utf-8")
    blocking = [
        f"{label} {width}px: {v['id']} ({v['impact']}: {v['help']}) on "
        + "; ".join(f"{n['target']} [{n['html']}]" for n in v["nodes"][:6])
        + (f"; and {len(v['nodes']) - 6} more" if len(v["nodes"]) > 6 else "")
        for label, violations in found.items()
        for v in violations
        if v["impact"] in BLOCKING
    ]
    assert not blocking, "\n".join(blocking)
