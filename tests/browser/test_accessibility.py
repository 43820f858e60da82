"""Checked by a machine (issue #33): axe-core, the accessibility engine (node_modules/axe-core, a devDependency of
package.json), run in the page on every page of a normal session: the lobby signed out and signed in, sign-in, a
game in play, a finished game's replay, the leaderboard, a player's page and the settings, on a phone (390x844)
and a desktop (1400x900). No violation of impact serious or critical; each found is named by its rule, impact,
page and elements. Every violation found, of any impact, is written to test-artifacts/browser/axe-<width>.json,
and each page's screenshot beside it (axe-<page>-<width>.png). The `contexts` watch fails the test on any console
error, failed request or answer of 400 or more on these pages (none is expected: a normal session)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page

from tests.browser.sessions import wait_drawn
from tests.browser.test_board import DESKTOP, PHONE

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
SIZES = {"390": PHONE, "1400": DESKTOP}
BLOCKING = ("serious", "critical")
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
    wait_drawn(page, ready)


@pytest.mark.parametrize("width", list(SIZES))
def test_no_serious_or_critical_accessibility_violation_on_any_page(contexts, base_url, person, artifacts, width):
    if not AXE.is_file():
        pytest.skip(f"axe-core is not installed ({AXE}): npm ci")
    name, token = person.name, person.token
    pages: list[tuple[str, str | None, str, bool]] = [*person.pages(), ("replay", None, "svg.board", True)]
    page = contexts(**SIZES[width]).new_page()
    found: dict[str, list[dict[str, Any]]] = {}
    for label, address, ready, signed in pages:
        if signed and not page.evaluate("localStorage.getItem('ttr.token')"):
            page.evaluate("([n, t]) => { localStorage.setItem('ttr.user', n); localStorage.setItem('ttr.token', t); }",
                          [name, token])
        if address is None:  # the replay of the finished game
            address = f"/games/{person.finished()}/replay"
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
