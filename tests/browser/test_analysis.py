"""Post-game analysis and hints in the browser (issue #24, frontend/analysis.js and hints.js; issue #33), on a
desktop (1400x900) and a phone (390x844).

The replay of a finished game offers its player "Analyse this game"; once the worker is done it shows the graph of
each seat's estimated final lead (one line per seat, in the seat's colour), marks on the slider for the marked
decisions, the list of them in words, and a click on one moves the replay to that decision's move, whose words the
replay's line tells (the same seat, the same event), and draws the better move on the board (a ghost route, the
kept tickets' cities ringed, or the card marked in the market). The judge is named for people ("strong bot, 8 games
played out per move"), and the panel's table is whole in the side column and on a phone (no sideways scroll). A
log changed after the analysis is warned of. The player page shows the points lost per decision by map with a
sparkline. In an unranked game against bots the game page's Hint button shows the strong bot's move on the board,
counted beside the player's name and told in the log; with another person at the table there is no such button.
Screenshots: test-artifacts/browser/analysis-*.png and hint-*.png."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.conftest import page_errors
from tests.browser.test_board import DESKTOP, PHONE, finished_game, game_against_bots, moves_of
from tests.browser.test_edges import call, register, signed_in

# colours.js: each seat's colour, read from the client itself (the palette is its to choose)
COLOURS = (Path(__file__).resolve().parents[2] / "frontend" / "colours.js").read_text(encoding="utf-8")
SEAT_FILL = re.findall(r"#[0-9a-f]{6}", re.search(r"SEAT_FILL = \[([^\]]*)\]", COLOURS).group(1))  # type: ignore[union-attr]
ANALYSIS_SECONDS = 300  # the session's server judges with a small budget (conftest.py): seconds
TREND_WORDS = re.compile(r"^Points lost per decision in .*: \d")  # the sparkline's text alternative


def person_page(contexts: Any, base_url: str, name: str, token: str, size: dict[str, Any]) -> tuple[Page, list[str]]:
    page = contexts(**size).new_page()
    page.set_default_timeout(20_000)
    errors = page_errors(page)
    signed_in(page, base_url, name, token)
    return page, errors


def pick(decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """The marked decision to click: a better claim first (a ghost route), then a ticket choice, then any."""
    marked = [d for d in decisions if d["mark"]]
    for kind in ("claim_route", "keep_tickets", "draw_card", "build_station"):
        found = [d for d in marked if d["best"]["type"] == kind]
        if found:
            return found[0]
    return marked[0]


def shows_better_move(page: Page, decision: dict[str, Any]) -> None:
    """The better move of `decision` is on the board (or in the market), and told above the board."""
    best = decision["best"]
    box = page.locator(f".better-move .better-move-box[data-decision='{decision['index']}']")
    expect(box).to_be_visible()
    expect(box).to_contain_text("Better:")
    expect(page.locator(".game.replay")).to_have_attribute("data-at", str(decision["event"]))
    same_words(page, decision)
    if best["type"] == "claim_route":
        ghost = page.locator(f"svg.board .overlay .ghost[data-ghost='{best['route']}']")
        expect(ghost).to_have_count(1)
        expect(ghost).to_have_attribute("data-seat", str(decision["seat"]))
        # The board shows the move played (drawn just after the replay moves): the better route is free still,
        # unless the move played claimed that route (paid otherwise).
        free = page.locator(f"svg.board [data-route='{best['route']}']")
        if decision["played"].get("route") != best["route"]:
            expect(free).not_to_have_attribute("data-owner", re.compile(".*"))
        looks = ghost.evaluate(
            """(g) => ({ dashes: getComputedStyle(g.querySelector('.dash')).strokeDasharray,
                         stroke: getComputedStyle(g.querySelector('.dash')).stroke,
                         spaces: g.querySelectorAll('.ghost-car').length,
                         length: Number(document.querySelector(`[data-route="${g.dataset.ghost}"]`).dataset.length),
                         owned: document.querySelector(`[data-route="${g.dataset.ghost}"]`).hasAttribute('data-owner') })"""
        )
        assert looks["dashes"] not in ("none", ""), looks  # dashed: unlike a claimed route's solid trains
        assert looks["spaces"] == looks["length"], looks  # over every space of the route
        rgb = page.evaluate(
            "(hex) => { const d = document.createElement('div'); d.style.color = hex; document.body.append(d);"
            " const c = getComputedStyle(d).color; d.remove(); return c; }",
            SEAT_FILL[decision["seat"]],
        )
        assert looks["stroke"] == rgb, looks  # in the seat's colour
    elif best["type"] == "keep_tickets":
        expect(box.locator(".suggested-tickets li")).to_have_count(len(best["tickets"]))
        assert page.locator("svg.board .city.suggested").count() >= 2
    elif best["type"] == "draw_card":
        expect(page.locator("section.market .card.suggested")).to_have_count(1)
    elif best["type"] == "build_station":
        expect(page.locator(f"svg.board .city.suggested[data-city='{best['city']}']")).to_have_count(1)


# The words of the replay's line for the event a decision's move names (words.js), by the move's kind.
MOVE_WORDS = {
    "keep_tickets": ("kept",), "draw_card": ("drew", "took"), "claim_route": ("claimed", "tried the tunnel"),
    "build_station": ("built a station",), "draw_tickets": ("drew",), "pay_tunnel": ("claimed",),
    "decline_tunnel": ("gave up",),
}


def same_words(page: Page, decision: dict[str, Any]) -> None:
    """Issue #33: a mark's text and the replay's line at its position tell the same event: the decision's seat
    and move (a mark at the event before the move told one seat's ticket keep beside another seat's deal)."""
    label = page.locator(".replay-at")
    expect(label).to_have_attribute("data-seq", str(decision["event"]))
    expect(label).to_have_attribute("data-seat", str(decision["seat"]))
    expect(label).to_contain_text(f"event {decision['event']} of")
    head = page.locator(f"ol.marked button.decision[data-decision='{decision['index']}'] .decision-head").inner_text()
    who = head.split(", event ")[0].strip("?! \n")
    assert f", event {decision['event']}:" in head, head
    line = label.locator(".replay-line").last.inner_text()
    assert who in line and any(words in line for words in MOVE_WORDS[decision["played"]["type"]]), (head, line)


def fits(page: Page, width: int) -> None:
    """The analysis panel and the page are whole at this width: no sideways scroll."""
    sizes = page.evaluate("""() => { const panel = document.querySelector('section.analysis');
        return { panel: [panel.scrollWidth, panel.clientWidth], page: [document.documentElement.scrollWidth,
                 document.documentElement.clientWidth] }; }""")
    assert sizes["panel"][0] <= sizes["panel"][1] and sizes["page"][0] <= sizes["page"][1] <= width, sizes


def test_a_player_analyses_a_finished_game_and_reads_it_on_the_replay(contexts, base_url, artifacts: Path):
    name, token = register(base_url)
    game = finished_game(base_url, token, players=2, seconds=180)

    anyone = contexts(**DESKTOP).new_page()  # not a player: told it is not analysed, offered nothing
    anyone.goto(f"{base_url}/games/{game}/replay")
    expect(anyone.locator("section.analysis")).to_contain_text("has not been analysed")
    expect(anyone.locator("section.analysis [data-action=analyse]")).to_have_count(0)

    page, errors = person_page(contexts, base_url, name, token, DESKTOP)
    page.goto(f"{base_url}/games/{game}/replay")
    page.locator("section.analysis [data-action=analyse]").click()
    expect(page.locator("section.analysis .analysis-progress, section.analysis .lead-graph").first).to_be_visible()
    expect(page.locator("section.analysis svg.lead-svg")).to_be_visible(timeout=ANALYSIS_SECONDS * 1000)
    analysis = call(base_url, token, "GET", f"/games/{game}/analysis")
    assert analysis["status"] == "done" and analysis["altered"] is False, analysis
    decisions = [{**d, "index": i} for i, d in enumerate(analysis["decisions"])]

    # The graph: one line per seat, each in its seat's colour, a zero line, a cursor, a text summary.
    lines = page.locator(".lead-svg .lead-line")
    expect(lines).to_have_count(2)
    strokes = [lines.nth(i).locator("polyline.over").get_attribute("stroke") for i in range(2)]
    assert strokes == SEAT_FILL[:2], strokes
    expect(page.locator(".lead-svg .grid.zero")).to_have_count(1)
    expect(page.locator(".lead-svg .cursor")).to_have_count(1)
    assert "ends at" in page.locator("#lead-graph-summary").inner_text()
    graph = page.locator(".graph-box[role=slider]")
    expect(graph).to_have_attribute("aria-valuenow", str(analysis["seq"]))
    expect(page.locator("table.analysis-players tbody tr")).to_have_count(2)
    # The judge for people (its internal name kept in the title), the table whole in the 374 px side column.
    by = page.locator(".analysis-by")
    expect(by).to_have_text(f"Judge: strong bot, {analysis['budget']['samples']} games played out per move.")
    expect(by).to_have_attribute("title", analysis["bot"])
    fits(page, 1400)

    # The marks on the slider and the list. The random bot's play is nearly always marked, but not surely (a
    # fixed 8-sample judgement found none once in a day's runs): then nothing is marked, and nothing is to click.
    marked = [d for d in decisions if d["mark"]]
    if not marked:
        expect(page.locator(".slider-marks .slider-mark")).to_have_count(0)
        expect(page.locator("ol.marked button.decision")).to_have_count(0)
        assert not errors, errors
        return
    expect(page.locator(".slider-marks .slider-mark")).to_have_count(len({d["event"] for d in marked}))
    expect(page.locator("ol.marked button.decision")).to_have_count(len(marked))
    for mark in {d["mark"] for d in marked}:
        label = page.locator(f".slider-marks .slider-mark[data-mark='{mark}']").first.get_attribute("aria-label")
        assert label and mark in label, label

    # Each mark: the replay goes to its move, and the line beside it tells that move of that seat.
    by_event = {d["event"]: d for d in sorted(marked, key=lambda d: ["inaccuracy", "mistake", "blunder"].index(d["mark"]))}
    for seq in sorted(by_event)[:6]:
        page.locator(f".slider-marks .slider-mark[data-seq='{seq}']").click()
        same_words(page, by_event[seq])

    chosen = pick(decisions)
    entry = page.locator(f"ol.marked button.decision[data-decision='{chosen['index']}']")
    expect(entry).to_contain_text(f"event {chosen['event']}: {chosen['mark']}")
    expect(entry).to_contain_text("Played:")
    entry.click()
    expect(entry).to_have_attribute("aria-pressed", "true")
    shows_better_move(page, chosen)
    page.wait_for_timeout(300)
    page.screenshot(path=artifacts / "analysis-desktop.png")
    page.locator("section.analysis").screenshot(path=artifacts / "analysis-panel-desktop.png")

    # The next event: the better move belongs to the position it was found for, and goes.
    page.locator("[data-step=event_next]").click()
    expect(page.locator(".better-move .better-move-box")).to_have_count(0)
    expect(page.locator("svg.board .overlay .ghost")).to_have_count(0)
    # A mark on the slider leads to its event; the graph is a slider of its own (arrow keys) and takes a click.
    mark = page.locator(".slider-marks .slider-mark").last
    seq = mark.get_attribute("data-seq")
    mark.click()
    expect(page.locator(".game.replay")).to_have_attribute("data-at", str(seq))
    expect(page.locator(".better-move .better-move-box")).to_be_visible()
    graph.focus()
    page.keyboard.press("Home")
    first = str(min(p["seq"] for p in analysis["leads"]))
    expect(page.locator(".game.replay")).to_have_attribute("data-at", first)
    expect(graph).to_have_attribute("aria-valuenow", first)
    box = graph.bounding_box()
    graph.click(position={"x": box["width"] - 20, "y": box["height"] / 2})
    expect(page.locator(".game.replay")).not_to_have_attribute("data-at", first)

    # A log changed after the analysis: a warning above it all.
    warned = contexts(**DESKTOP).new_page()
    altered = json.dumps({**analysis, "altered": True})
    warned.route(
        f"**/api/games/{game}/analysis",
        lambda route: route.fulfill(status=200, body=altered, content_type="application/json"),
    )
    warned.goto(f"{base_url}/games/{game}/replay")
    expect(warned.locator("section.analysis .analysis-altered")).to_contain_text("changed after it was analysed")
    warned.locator("section.analysis").screenshot(path=artifacts / "analysis-altered-desktop.png")

    # A phone: no sideways scroll, the marks still there, the better move on the board.
    phone, phone_errors = person_page(contexts, base_url, name, token, PHONE)
    phone.goto(f"{base_url}/games/{game}/replay")
    expect(phone.locator("svg.lead-svg")).to_be_visible()
    phone.locator(f"ol.marked button.decision[data-decision='{chosen['index']}']").click()
    shows_better_move(phone, chosen)
    phone.wait_for_timeout(300)
    phone.screenshot(path=artifacts / "analysis-phone.png", full_page=True)
    fits(phone, 390)
    phone.locator("section.analysis").screenshot(path=artifacts / "analysis-panel-phone.png")

    # The player page: points lost per decision on this map, and the trend with words for it.
    for shot, where in (("desktop", page), ("phone", phone)):
        where.goto(f"{base_url}/users/{name}")
        row = where.locator(".user-analysis tr[data-map='europe']")
        expect(row).to_be_visible()
        expect(row.locator("svg.sparkline[role=img]")).to_have_attribute("aria-label", TREND_WORDS)
        where.screenshot(path=artifacts / f"analysis-user-{shot}.png", full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390

    # A longer trend (the server's answer, its one game repeated with other losses), in Czech: a line of 12 points.
    czech = contexts(**DESKTOP).new_page()
    czech_errors = page_errors(czech)
    signed_in(czech, base_url, name, token)
    czech.evaluate("localStorage.setItem('ttr.language', 'cs')")
    user = call(base_url, token, "GET", f"/users/{name}")
    point = user["analysis"]["europe"]["trend"][0]
    trend = [{**point, "mean_loss": round(6 - i * 0.4 + (i % 3) * 0.7, 2)} for i in range(12)]
    longer = json.dumps({**user, "analysis": {"europe": {**user["analysis"]["europe"], "trend": trend}}})
    czech.route(
        f"**/api/users/{name}",
        lambda route: route.fulfill(status=200, body=longer, content_type="application/json"),
    )
    czech.goto(f"{base_url}/users/{name}")
    line = czech.locator(".user-analysis svg.sparkline polyline")
    expect(line).to_be_visible()
    assert len(line.get_attribute("points").split()) == 12
    expect(czech.locator(".user-analysis h2")).to_have_text("Počítačový rozbor")
    czech.screenshot(path=artifacts / "analysis-user-cs-desktop.png")
    czech.goto(f"{base_url}/games/{game}/replay")
    expect(czech.locator("section.analysis svg.lead-svg")).to_be_visible()
    czech.locator("ol.marked button.decision").first.click()
    expect(czech.locator(".better-move .better-move-box")).to_contain_text("Lepší:")
    czech.wait_for_timeout(300)
    czech.screenshot(path=artifacts / "analysis-cs-desktop.png")
    assert not errors, errors
    assert not phone_errors, phone_errors
    assert not czech_errors, czech_errors


def test_a_hint_against_bots_shows_the_strong_bots_move_on_the_board(
    contexts, base_url, artifacts: Path, expected_errors
):
    expected_errors(r"^403 POST /api/games/[0-9a-f-]{36}/hint$")  # the refusal the test routes in, at the end
    name, token = register(base_url)
    game = game_against_bots(base_url, token, players=2)
    page, errors = person_page(contexts, base_url, name, token, DESKTOP)
    page.goto(f"{base_url}/games/{game}")
    hint = page.locator("section.actions [data-action=hint]")
    expect(hint).to_be_enabled()  # the tickets dealt: the person's decision

    hint.click()
    box = page.locator("section.actions .hint-box[data-hint=keep_tickets]")
    expect(box).to_contain_text("Hint: keep")
    suggested = call(base_url, token, "GET", f"/games/{game}")["seats"][0]
    assert suggested["hints"] == 1, suggested
    expect(page.locator("section.actions label.suggested")).not_to_have_count(0)
    cities = page.locator("svg.board .city.suggested").count()
    assert cities >= 3, cities  # two tickets at least (they may share a city): their cities ringed
    expect(page.locator("svg.board .overlay .ghost-ring")).to_have_count(cities)
    expect(hint).to_be_disabled()  # one hint a decision
    expect(page.locator("section.players tr[data-seat='0'] .hints-used")).to_contain_text("1 hint")
    page.screenshot(path=artifacts / "hint-tickets-desktop.png")

    # Keeping the suggested tickets moves the game on: the hint goes.
    for label in page.locator("section.actions label.suggested").all():
        label.locator("input").check()
    page.locator("[data-action=keep]").click()
    expect(page.locator(".hint-box")).to_have_count(0)
    expect(page.locator("svg.board .city.suggested")).to_have_count(0)

    # The person's turn: the hint is a claim (a ghost route), a card (marked in the market) or tickets (in words).
    moves_of(base_url, token, game)
    expect(hint).to_be_enabled()
    hint.click()
    box = page.locator("section.actions .hint-box")
    expect(box).to_contain_text("Hint:")
    kind = box.get_attribute("data-hint")
    if kind == "claim_route":
        expect(page.locator("svg.board .overlay .ghost[data-seat='0']")).to_have_count(1)
    elif kind == "draw_card":
        expect(page.locator("section.market .card.suggested")).to_have_count(1)
    expect(page.locator("section.players tr[data-seat='0'] .hints-used")).to_contain_text("2 hints")
    expect(page.locator("ol.log")).to_contain_text(f"{name} asked for a hint.")
    page.wait_for_timeout(300)
    page.screenshot(path=artifacts / "hint-desktop.png")

    phone, phone_errors = person_page(contexts, base_url, name, token, PHONE)
    phone.goto(f"{base_url}/games/{game}")
    expect(phone.locator("section.players tr[data-seat='0'] .hints-used")).to_contain_text("2 hints")
    phone.locator("section.actions [data-action=hint]").click()  # the same decision: the same hint, not counted again
    expect(phone.locator("section.actions .hint-box")).to_have_attribute("data-hint", kind)
    phone.wait_for_timeout(300)
    phone.screenshot(path=artifacts / "hint-phone.png", full_page=True)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the game page is {width} px wide on a 390 px phone"
    assert call(base_url, token, "GET", f"/games/{game}")["seats"][0]["hints"] == 2

    # Refused (as the server would for a ranked game): the button goes, and the page says why in words.
    refused = json.dumps({"code": "no_hints", "detail": "hints are for unranked games against bots"})
    page.route(
        f"**/api/games/{game}/hint",
        lambda route: route.fulfill(status=403, body=refused, content_type="application/json"),
    )
    page.reload()
    page.locator("section.actions [data-action=hint]").click()
    expect(page.locator("section.actions .hint-error")).to_have_text(
        "Hints are given only in unranked games where every other seat is a bot."
    )
    expect(page.locator("[data-action=hint]")).to_have_count(0)
    assert not errors, errors
    assert not phone_errors, phone_errors


def test_no_hint_with_another_person_at_the_table(contexts, base_url):
    (ann, ann_token), (_, bob_token) = register(base_url), register(base_url)
    game = call(base_url, ann_token, "POST", "/games", {"map": "europe", "players": 2, "ranked": False})["id"]
    call(base_url, bob_token, "POST", f"/games/{game}/join", {"seat": 1})
    call(base_url, ann_token, "POST", f"/games/{game}/start", {})
    page, errors = person_page(contexts, base_url, ann, ann_token, DESKTOP)
    page.goto(f"{base_url}/games/{game}")
    expect(page.locator("section.actions input[data-ticket]").first).to_be_visible()
    expect(page.locator("[data-action=hint]")).to_have_count(0)
    assert not errors, errors
