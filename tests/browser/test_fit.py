"""No text wider than its box (issue #33): every page (the lobby signed out and in, sign-in, a game in play, a
finished game's replay, the leaderboard, a player's page, the settings) in each of the six languages, on a phone
(390x844) and a desktop (1400x900), has no element whose content is wider than the element itself (scrollWidth
against clientWidth: tables and their wrappers, cards and their labels, buttons, headings, the document), so
nothing is clipped and no table scrolls sideways. The language is this browser's choice, as the header's selector
keeps it (the account has none, so the browser's choice is the page's language). Two contexts per language and size
(signed out, signed in), each language's pages loading side by side; the same games for all. The overflows found
are written to test-artifacts/browser/fit-overflows.txt, with a screenshot of each page that has one."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.sessions import wait_drawn
from tests.browser.test_board import DESKTOP, PHONE
from tests.browser.test_edges import call

LANGUAGES = ["en", "cs", "ro", "pl", "hu", "fi"]
SIZES = {"390": PHONE, "1400": DESKTOP}
SLACK = 1  # px: sub-pixel rounding

# Every element that lays out a box, with its content wider than the box by more than SLACK. Left out: what is
# hidden on purpose (display none, visually hidden for screen readers: 1 px with a clip), inline boxes (no width of
# their own: their block is measured), the board's frame (the board pans and zooms inside it) and SVG's insides.
OVERFLOWS = """(slack) => {
  const where = (el) => {
    let name = el.localName + (el.id ? `#${el.id}` : "")
      + [...el.classList].slice(0, 3).map((c) => `.${c}`).join("");
    for (const attr of ["data-colour", "data-seat", "data-label", "name"]) {
      if (el.hasAttribute(attr)) name += `[${attr}=${el.getAttribute(attr)}]`;
    }
    const parent = el.parentElement && el.parentElement !== document.body ? el.parentElement : null;
    const section = el.closest("section[class]");
    return (section && section !== el ? `section.${[...section.classList].join(".")} ` : "")
      + (parent ? `${parent.localName} > ` : "") + name;
  };
  // Hidden for the eye but read by screen readers: clipped to nothing (the .visually-hidden way), itself or inside.
  const clipped = new Map();
  const hidden = (el) => {
    if (!el || el === document.body) return false;
    if (!clipped.has(el)) {
      const style = getComputedStyle(el);
      const own = style.clipPath === "inset(50%)" || style.clip === "rect(0px, 0px, 0px, 0px)";
      clipped.set(el, own || hidden(el.parentElement));
    }
    return clipped.get(el);
  };
  const found = [];
  for (const el of [document.documentElement, ...document.body.querySelectorAll("*")]) {
    if (el instanceof SVGElement && el.ownerSVGElement) continue;
    if (el.closest(".board-wrap")) continue;
    const style = getComputedStyle(el);
    if (style.display === "none" || style.display === "inline" || style.display === "contents") continue;
    if (el.clientWidth <= 1 || hidden(el)) continue;
    const over = el.scrollWidth - el.clientWidth;
    if (over > slack) {
      const text = (el.innerText || el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 50);
      found.push({ element: where(el), over, text });
    }
  }
  return found;
}"""


def overflows(page: Page) -> list[dict[str, Any]]:
    """What overflows, with every folded part (the replay's final score) opened first."""
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    return list(page.evaluate(OVERFLOWS, SLACK))


def drawn(page: Page, language: str, ready: str) -> None:
    expect(page.locator("html")).to_have_attribute("lang", language)
    wait_drawn(page, ready)


def test_no_text_is_wider_than_its_box_on_any_page_in_any_language(contexts, base_url, person, artifacts):
    """Each language is this browser's choice (the header's selector keeps it in localStorage; the account has
    none, so the browser's choice is the page's language), so the languages' pages load side by side."""
    name, token = person.name, person.token
    assert call(base_url, token, "GET", "/me")["language"] is None
    pages = person.pages()
    chosen = "try {{ localStorage.setItem('ttr.language', '{}'); }} catch {{}}"
    session = (f"try {{ localStorage.setItem('ttr.user', '{name}'); localStorage.setItem('ttr.token', '{token}'); }}"
               " catch {}")
    signed_in: dict[tuple[str, str], Any] = {}
    found: list[str] = []

    def measure(batch: list[tuple[Page, str, str, str, str]]) -> None:
        """Waits for each page of the batch (all loading at once) to be drawn, then measures it."""
        for page, label, language, width, ready in batch:
            drawn(page, language, ready)
            over = overflows(page)
            found.extend(f"{label} {language} {width}px: {o['element']} is {o['over']}px too narrow for {o['text']!r}"
                         for o in over)
            if over or (language in ("hu", "pl") and label in ("game", "replay")):  # the longest words; each failure
                page.screenshot(path=artifacts / f"fit-{label}-{language}-{width}.png", full_page=True)
            page.close()

    for language in LANGUAGES:
        batch = []
        for width, size in SIZES.items():
            out, inside = contexts(**size), contexts(**size)
            out.add_init_script(chosen.format(language))
            inside.add_init_script(chosen.format(language) + session)
            signed_in[language, width] = inside
            for label, address, ready, signed in pages:
                page = (inside if signed else out).new_page()
                page.goto(base_url + address, wait_until="commit")
                batch.append((page, label, language, width, ready))
        measure(batch)
    replay = f"{base_url}/games/{person.finished()}/replay"
    batch = []
    for (language, width), context in signed_in.items():
        page = context.new_page()
        page.goto(replay, wait_until="commit")
        batch.append((page, "replay", language, width, "section.players table"))
    measure(batch)
    (artifacts / "fit-overflows.txt").write_text("".join(f"{line}\n" for line in found), encoding="utf-8")
    assert not found, "\n".join(found)
