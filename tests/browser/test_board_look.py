"""The board at a glance and under a finger (issue #33): a tap acts on the offered route nearest the finger (or asks
which, when two lie about as near), a tap or click on a route not offered calls the page's refusal, a drag still
pans; claimed routes are train pieces and free ones empty spaces; the end board of a 5-player game photographed
under each simulated vision deficiency (test-artifacts/browser/board-vision-*.png).

The tap tests mount the board alone in a page (`createBoard` from board.js, over the map the server serves), so that
they hold whatever the game page does with the board's callbacks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.test_board import DESKTOP, PHONE, drawn, finished_game
from tests.browser.test_edges import register, signed_in

REACH, TIE = 24, 6  # boardtap.js: a tap reaches this far (CSS px); nearer ones within TIE px of each other are asked
VISIONS = ["none", "deuteranopia", "protanopia", "tritanopia", "achromatopsia"]

# The board alone in a page as wide as a phone's fitted board; what its callbacks hear is kept in window.harness.
HARNESS = """async ([mapName, width]) => {
  await (await import('/static/i18n.js')).loadLanguage();
  const { createBoard } = await import('/static/board.js');
  const map = await (await fetch(`/maps/${mapName}.json`)).json();
  const board = createBoard(map);
  const holder = document.createElement('div');
  holder.style.width = `${width}px`;
  holder.style.margin = '8px';
  document.body.replaceChildren(holder);
  holder.append(board.element);
  const heard = { acted: [], refused: [] };
  const offer = (routes, cities = []) => board.setActive(new Set(routes), (id) => heard.acted.push(id),
    new Set(cities), (id) => heard.acted.push(`city:${id}`), (id) => heard.refused.push(id));
  // Where a route's space i lies on screen, moved `off` CSS px across the route (its normal).
  const spot = (id, i, off = 0) => {
    const g = board.geometry(id), car = g.cars[i], svg = board.svg;
    const p = new DOMPoint(car.x, car.y).matrixTransform(svg.getScreenCTM());
    const turn = (g.angle * Math.PI) / 180;
    return { x: p.x - Math.sin(turn) * off, y: p.y + Math.cos(turn) * off };
  };
  // The routes with a space within `px` CSS px of a screen point.
  const near = (at, px) => Object.keys(board.routes).filter((id) =>
    board.geometry(id).cars.some((_, i) => { const s = spot(id, i); return Math.hypot(s.x - at.x, s.y - at.y) < px; }));
  window.harness = { board, heard, offer, spot, near };
  return Object.values(map.routes).map((r) => ({ id: r.id, a: r.a, b: r.b, length: r.length }));
}"""


def harness(
    contexts: Any, base_url: str, size: dict[str, Any], map_name: str = "europe"
) -> tuple[Page, list[dict[str, Any]]]:
    page = contexts(**size).new_page()
    page.goto(f"{base_url}/signin")
    routes = page.evaluate(HARNESS, [map_name, size["viewport"]["width"] - 16])
    page.wait_for_function("() => getComputedStyle(window.harness.board.svg).getPropertyValue('--unit') !== ''")
    return page, routes


def heard(page: Page) -> dict[str, list[str]]:
    return page.evaluate("() => window.harness.heard")


def test_a_tap_off_the_route_claims_the_offered_one_nearest_the_finger_even_over_another_route(contexts, base_url):
    page, routes = harness(contexts, base_url, PHONE)
    # A route whose middle, 15 px aside, lands on another route's space and lies beyond reach of every other space
    # of the offered one: the finger is off the route, over a route not offered.
    found = page.evaluate(
        """(routes) => {
          const { spot, near } = window.harness;
          for (const r of routes.filter((r) => r.length >= 3)) {
            const middle = Math.floor(r.length / 2);
            for (const off of [15, -15]) {
              const at = spot(r.id, middle, off);
              const under = near(at, 5).filter((id) => id !== r.id);
              if (under.length) return { route: r.id, at, under };
            }
          }
          return null;
        }""",
        routes,
    )
    assert found, "no route lies 15 px beside another on the fitted phone board"
    page.evaluate("(id) => window.harness.offer([id])", found["route"])
    page.touchscreen.tap(found["at"]["x"], found["at"]["y"])
    page.wait_for_function("() => window.harness.heard.acted.length > 0")
    assert heard(page) == {"acted": [found["route"]], "refused": []}, found

    # Beyond reach of every offered space, a tap acts on nothing (and, over no route, refuses nothing).
    page.evaluate("() => { window.harness.heard.acted.length = 0; }")
    far = page.evaluate(
        """(id) => { const { spot, near, board } = window.harness;
          const box = board.svg.getBoundingClientRect();
          for (let x = box.left + 6; x < box.right; x += 9) for (let y = box.top + 6; y < box.bottom; y += 9) {
            const at = { x, y };
            if (!near(at, 14).length && !board.geometry(id).cars.some((_, i) => {
              const s = spot(id, i); return Math.hypot(s.x - x, s.y - y) < 2 * 24; })) return at;
          }
          return null; }""",
        found["route"],
    )
    assert far, "no empty spot on the board"
    page.touchscreen.tap(far["x"], far["y"])
    page.touchscreen.tap(found["at"]["x"], found["at"]["y"])  # then one that lands: the first was heard before it
    page.wait_for_function("() => window.harness.heard.acted.length > 0")
    assert heard(page) == {"acted": [found["route"]], "refused": []}


def test_two_offered_routes_about_as_near_ask_which_and_the_chooser_is_keyboard_reachable(contexts, base_url):
    page, routes = harness(contexts, base_url, PHONE)
    pairs: dict[tuple[str, str], list[str]] = {}
    for r in routes:
        pairs.setdefault(tuple(sorted((r["a"], r["b"]))), []).append(r["id"])
    one, two = next(ids for ids in pairs.values() if len(ids) == 2)
    page.evaluate("(ids) => window.harness.offer(ids)", [one, two])
    middle = page.evaluate(
        """([one, two]) => { const { spot, board } = window.harness;
          const i = Math.floor(board.routes[one].length / 2), a = spot(one, i), b = spot(two, i);
          return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }; }""",
        [one, two],
    )
    chooser = page.locator(".board-chooser")
    page.touchscreen.tap(middle["x"], middle["y"])
    expect(chooser).to_be_visible()
    expect(chooser.get_by_text("Which route?")).to_be_visible()
    expect(chooser.locator("button[data-choice]")).to_have_count(2)
    names = chooser.locator("button[data-choice]").all_text_contents()
    assert all(name.startswith("Claim ") for name in names), names  # each named for what it does
    expect(chooser.locator("button[data-choice]").first).to_be_focused()
    page.keyboard.press("Escape")
    expect(chooser).to_have_count(0)
    assert heard(page) == {"acted": [], "refused": []}

    page.touchscreen.tap(middle["x"], middle["y"])
    expect(chooser).to_be_visible()
    page.keyboard.press("Tab")
    second = chooser.locator("button[data-choice]").nth(1)
    expect(second).to_be_focused()
    chosen = second.get_attribute("data-choice")
    page.keyboard.press("Enter")
    expect(chooser).to_have_count(0)
    assert heard(page) == {"acted": [chosen], "refused": []}

    # A chooser left open closes when the moves offered change.
    page.touchscreen.tap(middle["x"], middle["y"])
    expect(chooser).to_be_visible()
    page.evaluate("(ids) => window.harness.offer(ids)", [one])
    expect(chooser).to_have_count(0)


def test_a_tap_or_a_click_on_a_route_not_offered_is_refused_and_a_drag_still_pans(contexts, base_url):
    page, routes = harness(contexts, base_url, PHONE)
    # One route offered; a tap right on the middle of another, far from it, is that other route refused.
    pick = page.evaluate(
        """(routes) => { const { spot, near } = window.harness;
          const offered = routes[0].id;
          for (const r of routes.slice(1)) {
            const at = spot(r.id, Math.floor(r.length / 2));
            const others = near(at, 3 * 24);
            if (!others.includes(offered) && near(at, 4).length === 1) return { offered, other: r.id, at };
          }
          return null; }""",
        routes,
    )
    assert pick, routes[:3]
    page.evaluate("(id) => window.harness.offer([id])", pick["offered"])
    page.touchscreen.tap(pick["at"]["x"], pick["at"]["y"])
    page.wait_for_function("() => window.harness.heard.refused.length > 0")
    assert heard(page) == {"acted": [], "refused": [pick["other"]]}

    # A drag across the offered route pans the board and acts on nothing.
    start = page.evaluate("(id) => window.harness.spot(id, 0)", pick["offered"])
    before = page.evaluate("() => window.harness.board.svg.getAttribute('viewBox')")
    touch = page.context.new_cdp_session(page)
    points = [(start["x"] + dx, start["y"] + dx / 2) for dx in range(0, 61, 6)]
    touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": points[0][0], "y": points[0][1]}]})
    for x, y in points[1:]:
        touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait_for_function("(before) => window.harness.board.svg.getAttribute('viewBox') !== before", arg=before)
    assert heard(page) == {"acted": [], "refused": [pick["other"]]}

    # With a mouse: a click on the offered route acts on it, one on a route not offered is refused, as before.
    desk, _ = harness(contexts, base_url, DESKTOP)
    desk.evaluate("(id) => window.harness.offer([id])", pick["offered"])
    desk.locator(f"svg.board [data-route='{pick['offered']}'] .car").first.click()
    desk.locator(f"svg.board [data-route='{pick['other']}'] .car").first.click()
    assert heard(desk) == {"acted": [pick["offered"]], "refused": [pick["other"]]}


def test_a_tap_between_a_city_offered_for_a_station_and_a_route_asks_which(contexts, base_url):
    page, routes = harness(contexts, base_url, PHONE)
    route = next(r for r in routes if r["length"] == 1)  # its one space lies near both its cities
    page.evaluate("([id, city]) => window.harness.offer([id], [city])", [route["id"], route["a"]])
    at = page.evaluate(
        """([id, city]) => { const { spot, board } = window.harness;
          const c = board.cities[city], p = new DOMPoint(c.x, c.y).matrixTransform(board.svg.getScreenCTM());
          const s = spot(id, 0);
          return { x: (p.x + s.x) / 2, y: (p.y + s.y) / 2 }; }""",
        [route["id"], route["a"]],
    )
    page.touchscreen.tap(at["x"], at["y"])
    chooser = page.locator(".board-chooser")
    expect(chooser.get_by_text("Which one?")).to_be_visible()
    expect(chooser.locator(f"button[data-choice='{route['a']}']")).to_contain_text("Build a station in")
    chooser.locator(f"button[data-choice='{route['a']}']").tap()
    expect(chooser).to_have_count(0)
    assert heard(page) == {"acted": [f"city:{route['a']}"], "refused": []}


def test_the_end_board_of_a_five_player_game_under_each_vision_deficiency(contexts, base_url, artifacts: Path):
    """Claimed routes are shaded, raised pieces with their seat's mark; free ones are paper spaces outlined in their
    colour. The end board is photographed as seen with each simulated vision deficiency (Chromium's emulation)."""
    name, token = register(base_url)
    game = finished_game(base_url, token, players=5, seconds=240)
    page = contexts(**DESKTOP).new_page()
    signed_in(page, base_url, name, token)
    page.goto(f"{base_url}/games/{game}")
    drawn(page)
    expect(page.locator("section.final table.score")).to_be_visible()
    looks = page.evaluate(
        """async () => {
          const { SEAT_FILL } = await import('/static/colours.js');
          const rgb = (hex) => { const d = document.createElement('div'); d.style.color = hex; document.body.append(d);
            const c = getComputedStyle(d).color; d.remove(); return c; };
          const owned = [...document.querySelectorAll('svg.board .route[data-owner]')];
          const free = [...document.querySelectorAll('svg.board .route:not([data-owner])')];
          const style = (g, part) => getComputedStyle(g.querySelector(part));
          return {
            owners: [...new Set(owned.map((g) => g.dataset.owner))].sort(),
            wrongFill: owned.filter((g) => style(g, '.car').fill !== rgb(SEAT_FILL[g.dataset.owner])).length,
            unlit: owned.filter((g) => style(g, '.shine').display === 'none').length,
            unmarked: owned.filter((g) => !g.querySelector('.owner-mark').getAttribute('d')).length,
            flat: owned.filter((g) => getComputedStyle(g).filter === 'none').length,
            freeLit: free.filter((g) => style(g, '.shine').display !== 'none').length,
            freeSolid: free.filter((g) => Number(style(g, '.car').fillOpacity) > 0.5).length,
            slot: free.length && style(free[0], '.slot').fill,
            freeCount: free.length,
          };
        }"""
    )
    assert len(looks["owners"]) >= 4, looks  # a 5-player game's end: (nearly) every seat's pieces on the board
    assert looks["wrongFill"] == 0 and looks["unlit"] == 0 and looks["unmarked"] == 0 and looks["flat"] == 0, looks
    assert looks["freeCount"] > 0 and looks["freeLit"] == 0 and looks["freeSolid"] == 0, looks
    assert looks["slot"] == "rgb(253, 249, 239)", looks  # paper inside an empty space
    emulate = page.context.new_cdp_session(page)
    for vision in VISIONS:
        emulate.send("Emulation.setEmulatedVisionDeficiency", {"type": vision})
        page.locator("svg.board").screenshot(path=artifacts / f"board-vision-{vision}-desktop.png")
    emulate.send("Emulation.setEmulatedVisionDeficiency", {"type": "none"})
    phone = contexts(storage_state=page.context.storage_state(), **PHONE).new_page()
    phone.goto(f"{base_url}/games/{game}")
    drawn(phone)
    phone.locator("svg.board .route[data-owner]").first.wait_for(state="attached")
    phone.locator("svg.board").screenshot(path=artifacts / "board-vision-none-phone.png")
