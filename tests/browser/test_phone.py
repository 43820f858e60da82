"""A whole game on a phone (390 x 844, touch) against a bot, played by taps alone at the fitted zoom: a tap on a route's
middle (a car's centre) on the screen, then Confirm; the cards and the deck in the strip at the bottom of the screen,
tapped. Every intended claim lands (the route gets the player's seat as its owner, or a tunnel's reveal is for that
route). All along: the page never scrolls, the banner at the top is no taller than 60 px, the board never moves and
the strip never covers it; a route tapped that cannot be claimed says why."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.conftest import page_errors
from tests.browser.test_edges import call, register, signed_in

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "has_touch": True, "is_mobile": True}
GAME_SECONDS = 1200  # a whole game on the shared 2-core machine, the bot's turns and the worker's scoring included
BANNER_PX = 60

# Where the page stands: the decision offered (or none), what the board and the strip occupy on the screen.
LOOK = """() => {
  const g = window.ttrGame?.game, v = g?.view;
  const rect = (el) => {
    const r = el?.getBoundingClientRect();
    return r ? { top: r.top, bottom: r.bottom, height: r.height } : null;
  };
  const drawn = Boolean(g && v && String(g.seq) === document.querySelector('div.game')?.dataset.seq);
  return {
    drawn, busy: Boolean(g?.busy), seq: g?.seq ?? null, phase: v?.phase ?? null, seat: g?.mySeat ?? null,
    moves: drawn && !g.busy ? g.moves.map((m) => m.type) : [],
    tunnel: v?.tunnel?.route ?? null, finished: Boolean(document.querySelector('section.final table.score')),
    question: Boolean(document.querySelector('dialog.confirm-move[open]')),
    scrollY: window.scrollY, board: rect(document.querySelector('svg.board')),
    banner: rect(document.querySelector('.status-bar')), dock: rect(document.querySelector('.game.docked .dock')),
  };
}"""

# The page offers the player a decision (drawn, nothing on its way), or the game is over.
DECIDING = """() => {
  const g = window.ttrGame?.game;
  if (document.querySelector('section.final table.score')) return true;
  return Boolean(g && !g.busy && g.moves.length && String(g.seq) === document.querySelector('div.game')?.dataset.seq);
}"""

# A point on the screen where a tap meets `id`: the centre of its car nearest the middle that nothing covers, between
# the banner and the strip; null when there is none.
TAP_POINT = """(id) => {
  const g = document.querySelector(`svg.board [data-route="${id}"]`);
  const top = document.querySelector('.status-bar').getBoundingClientRect().bottom;
  const dock = document.querySelector('.dock');
  const bottom = dock && getComputedStyle(dock).position === 'fixed' ? dock.getBoundingClientRect().top : innerHeight;
  const cars = [...g.querySelectorAll('.car')];
  const middle = (cars.length - 1) / 2;
  const order = cars.map((car, i) => [Math.abs(i - middle), car]).sort((a, b) => a[0] - b[0]).map(([, car]) => car);
  for (const car of order) {
    const r = car.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (y < top + 4 || y > bottom - 4) continue;
    if (document.elementFromPoint(x, y)?.closest('[data-route]') === g) return { x, y };
  }
  return null;
}"""

# The routes offered now, longest first (the game ends sooner), tunnels last (their reveal may ask for more) but
# for the first one offered (`tunnel`: none tried yet), so that a tunnel's reveal is seen on the phone too.
OFFERED = """(tunnelFirst) => [...document.querySelectorAll('svg.board .route.active')]
  .map((g) => ({ id: g.dataset.route, cars: g.querySelectorAll('.car').length, tunnel: g.classList.contains('tunnel') }))
  .sort((a, b) => (tunnelFirst ? b.tunnel - a.tunnel : a.tunnel - b.tunnel) || (b.cars - a.cars)).map((r) => r.id)"""

# An inert route far (40 px and more) from every route offered, so that the browser's own tap adjustment, which moves
# a tap to a clickable element near it, cannot take it elsewhere.
LONELY = """() => {
  const centre = (g) => { const r = g.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
  const offered = [...document.querySelectorAll('svg.board .route.active')].map(centre);
  return [...document.querySelectorAll('svg.board .route:not(.active)')].map((g) => g.dataset.route).filter((id) => {
    const [x, y] = centre(document.querySelector(`svg.board [data-route="${id}"]`));
    return offered.every(([a, b]) => Math.hypot(a - x, b - y) > 40);
  });
}"""


class Table:
    """The phone's page of one game and what the test saw of it."""

    def __init__(self, page: Page, artifacts: Path) -> None:
        self.page = page
        self.artifacts = artifacts
        self.board_top: float | None = None
        self.banner_max = 0.0
        self.intended: list[str] = []
        self.landed: list[str] = []
        self.shots: set[str] = set()

    def look(self) -> dict[str, Any]:
        return self.page.evaluate(LOOK)

    def wait_decision(self, deadline: float) -> dict[str, Any]:
        """Until the page offers the player a decision (drawn, nothing on its way) or shows the final score."""
        self.page.wait_for_function(DECIDING, timeout=max(1000, (deadline - time.monotonic()) * 1000))
        seen = self.look()
        if not seen["finished"]:  # the final score comes above the board: the game is over
            self.check_layout(seen)
        return seen

    def check_layout(self, seen: dict[str, Any]) -> None:
        """No scrolling, the banner no taller than 60 px, the board where it was and never under the strip."""
        assert seen["scrollY"] == 0, f"the page scrolled to {seen['scrollY']} px"
        assert seen["banner"]["height"] <= BANNER_PX, seen["banner"]
        self.banner_max = max(self.banner_max, seen["banner"]["height"])
        top = seen["board"]["top"]
        if self.board_top is None:
            self.board_top = top
        assert abs(top - self.board_top) < 0.5, f"the board moved from {self.board_top} to {top} px"
        if seen["dock"]:
            assert seen["board"]["bottom"] <= seen["dock"]["top"] + 0.5, (seen["board"], seen["dock"])

    def shot(self, name: str) -> None:
        if name not in self.shots:
            self.shots.add(name)
            self.page.screenshot(path=self.artifacts / f"phone-{name}.png")

    def keep_tickets(self) -> None:
        boxes = self.page.locator("section.actions input[data-ticket]")
        keep = self.page.locator("section.actions [data-action=keep]")
        for i in range(boxes.count()):
            if keep.is_enabled():
                break
            boxes.nth(i).tap()
        keep.tap()

    def confirm(self, words: list[str]) -> None:
        question = self.page.locator("dialog.confirm-move[open]")
        expect(question).to_be_visible()
        for word in words:
            expect(question).to_contain_text(word)
        self.shot("confirm")
        question.locator("[data-action=confirm-move]").tap()
        expect(question).to_have_count(0)

    def claim(self, route: str, point: dict[str, float], seat: int) -> None:
        """Tap the route, choose the first way to pay when there are several, confirm; the claim must land."""
        cities = self.page.evaluate(
            "(id) => { const b = window.ttrGame.board, r = b.routes[id]; return [b.cities[r.a].name, b.cities[r.b].name]; }",
            route,
        )
        self.intended.append(route)
        self.page.touchscreen.tap(point["x"], point["y"])
        question = self.page.locator("dialog.confirm-move[open]")
        pay = self.page.locator("section.actions [data-pay]").first
        # Another route offered about as near as this one: the board asks which (boardtap.js).
        which = self.page.locator(f".board-chooser [data-choice='{route}']")
        expect(question.or_(pay).or_(which).first).to_be_visible()
        if which.count():
            self.shot("which-route")
            which.tap()
            expect(question.or_(pay).first).to_be_visible()
        if not question.count():
            self.shot("ways-to-pay")
            pay.tap()
        self.confirm(cities)
        owner = f"svg.board [data-route='{route}'][data-owner='{seat}']"
        self.page.wait_for_function(
            "([sel, id]) => document.querySelector(sel) || window.ttrGame.game.view?.tunnel?.route === id",
            arg=[owner, route],
        )
        self.landed.append(route)

    def draw(self, seen: dict[str, Any]) -> None:
        deck = self.page.locator("section.market [data-deck]:enabled")
        card = self.page.locator("section.market [data-market]:enabled").first
        if deck.count():
            deck.tap()
        elif card.count():
            card.tap()
        else:
            self.page.locator("section.actions [data-action=draw-tickets]").tap()
        self.page.wait_for_function("(seq) => window.ttrGame.game.seq !== seq", arg=seen["seq"])

    def tunnel(self, seen: dict[str, Any]) -> None:
        """The three cards turned up, drawn as cards, and the tunnel marked on the board: then pay if possible."""
        revealed = self.page.evaluate("() => window.ttrGame.game.view.tunnel.revealed.length")
        expect(self.page.locator("section.actions .cards.revealed .card")).to_have_count(revealed)
        expect(self.page.locator(f"svg.board [data-halo='{seen['tunnel']}'].selected")).to_have_count(1)
        self.shot("tunnel")
        pay = self.page.locator("section.actions [data-move=pay_tunnel]").first
        (pay if pay.count() else self.page.locator("section.actions [data-move=decline_tunnel]")).tap()
        self.page.wait_for_function("(seq) => window.ttrGame.game.seq !== seq", arg=seen["seq"])

    def turn(self, seen: dict[str, Any]) -> None:
        if seen["phase"] == "turn" and "claim_route" in seen["moves"]:
            for route in self.page.evaluate(OFFERED, "tunnel" not in self.shots):
                point = self.page.evaluate(TAP_POINT, route)
                if point:
                    self.claim(route, point, seen["seat"])
                    return
        self.draw(seen)


def test_a_whole_game_on_a_phone_by_taps_lands_every_claim(contexts, base_url, artifacts: Path):
    name, token = register(base_url)
    game = call(base_url, token, "POST", "/games", {"map": "europe", "players": 2, "ranked": False, "turn_seconds": None})
    call(base_url, token, "POST", f"/games/{game['id']}/start", {"fill_with_bots": "greedy"})
    page = contexts(**PHONE).new_page()
    errors = page_errors(page)
    signed_in(page, base_url, name, token)
    page.goto(f"{base_url}/games/{game['id']}")
    table = Table(page, artifacts)
    deadline = time.monotonic() + GAME_SECONDS

    seen = table.wait_decision(deadline)
    assert seen["phase"] == "setup_tickets" and seen["moves"] == ["keep_tickets"] * len(seen["moves"])
    table.shot("tickets")
    # A route tapped while the tickets are being chosen cannot be claimed: the page says why, with the rule.
    route = page.evaluate(LONELY)[0]
    point = page.evaluate(TAP_POINT, route)
    assert point, route
    page.touchscreen.tap(point["x"], point["y"])
    refusal = page.locator(f"section.actions .refusal[data-refused='{route}']")
    expect(refusal).to_contain_text(" cannot be claimed now. Choose the destination tickets to keep first.")
    expect(refusal).to_contain_text("Rule E-SET-2: ")
    expect(page.locator("[data-said]")).to_contain_text("Choose the destination tickets to keep first.")
    table.shot("refusal")
    # Nothing stays behind the strip: scrolled to the end, the page's last line is above it.
    last, strip = page.evaluate(
        """() => {
          window.scrollTo(0, document.documentElement.scrollHeight);
          const last = document.querySelector('div.game').lastElementChild.getBoundingClientRect().bottom;
          return [last, document.querySelector('.dock').getBoundingClientRect().top];
        }"""
    )
    page.screenshot(path=artifacts / "phone-scrolled-to-the-end.png")
    page.evaluate("() => window.scrollTo(0, 0)")
    assert last <= strip + 0.5, (last, strip)
    table.keep_tickets()

    while True:
        assert time.monotonic() < deadline, f"the game did not end in {GAME_SECONDS} s: {len(table.landed)} claims"
        seen = table.wait_decision(deadline)
        if seen["finished"]:
            break
        table.shot("turn")
        if "keep_tickets" in seen["moves"]:
            table.keep_tickets()
            page.wait_for_function("(seq) => window.ttrGame.game.seq !== seq", arg=seen["seq"])
        elif seen["tunnel"] and seen["phase"] == "tunnel_payment":
            table.tunnel(seen)
        else:
            table.turn(seen)

    assert table.intended and table.landed == table.intended, (table.intended, table.landed)
    expect(page.locator("section.final table.score tbody > tr")).to_have_count(2)
    page.screenshot(path=artifacts / "phone-final.png")
    print(f"phone: {len(table.landed)} claims, banner {table.banner_max:.0f} px at most, board at {table.board_top:.1f} px")
    assert not errors, errors
