"""A person plays a whole game in the browser against bots, by clicking what the page offers: Europe against
three greedy bots, USA against two; then sees the final score breakdown and steps through the replay."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.browser.conftest import page_errors

GAME_SECONDS = 600
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "has_touch": True, "is_mobile": True}


def sign_up(page: Page, base_url: str) -> str:
    name = f"ann{uuid.uuid4().hex[:6]}"
    page.goto(f"{base_url}/signin")
    form = page.locator("form.register")
    form.get_by_label("Username").fill(name)
    form.get_by_label("Password").fill("correct-horse-9")
    form.get_by_role("button", name="Sign up").click()
    page.wait_for_url(f"{base_url}/")
    expect(page.locator("#who"), page.locator("p.error").all_text_contents()).to_contain_text(name)
    return name


def create_game_with_bots(page: Page, map_name: str, players: int) -> str:
    form = page.locator("form.create")
    form.get_by_label("Map").select_option(map_name)
    form.get_by_label("Players").select_option(str(players))
    form.get_by_role("button", name="Create game").click()
    page.wait_for_url("**/games/*")
    page.locator("section.open").get_by_label("Bot level").select_option("greedy")
    page.locator("[data-action=start]").click()
    expect(page.locator("section.players")).to_be_visible()
    return page.url.rsplit("/", 1)[1]


def play_one(page: Page) -> bool:
    """Makes one choice among those the page offers now; False when there is none (or it went meanwhile)."""
    try:
        return choose(page)
    except PlaywrightError:  # the page redrew between finding a control and clicking it: look again
        return False


def choose(page: Page) -> bool:
    actions = page.locator("section.actions[aria-busy=false]")
    if actions.count() == 0:
        return False
    keep = actions.locator("[data-action=keep]")
    if keep.count():
        boxes = actions.locator("input[data-ticket]")
        for i in range(boxes.count()):
            if keep.is_enabled():
                break
            boxes.nth(i).check()
        if keep.is_enabled():
            keep.click()
            return True
        return False
    for selector in ("[data-move=pay_tunnel]", "[data-move=decline_tunnel]", "[data-pay]"):
        button = actions.locator(selector).first
        if button.count():
            button.click()
            return True
    claim = actions.locator("select[data-action=claim-select]")
    if claim.count():
        options = claim.locator("option").all()
        claim.select_option(options[-1].get_attribute("value"))
        return True
    for selector in ("[data-deck]:enabled", "[data-market]:enabled"):
        button = page.locator(f"section.market {selector}").first
        if button.count():
            button.click()
            return True
    tickets = actions.locator("[data-action=draw-tickets]")
    if tickets.count():
        tickets.click()
        return True
    return False


def phone_screenshots(context, url: str, artifacts: Path, prefix: str) -> None:
    """The same player's game on a phone: the board fills the height and pans; zoom in, then pan by dragging."""
    phone = context.new_page()
    phone.goto(url)
    board = phone.locator("svg.board")
    expect(phone.locator("section.players")).to_be_visible()
    phone.wait_for_timeout(300)
    phone.screenshot(path=artifacts / f"{prefix}board-phone.png")
    before = board.get_attribute("viewBox")
    phone.get_by_role("button", name="Zoom in").click()
    box = board.bounding_box()
    assert box is not None
    phone.mouse.move(box["x"] + 200, box["y"] + 200)
    phone.mouse.down()
    phone.mouse.move(box["x"] + 100, box["y"] + 150, steps=5)
    phone.mouse.up()
    assert board.get_attribute("viewBox") != before
    phone.screenshot(path=artifacts / f"{prefix}board-phone-zoomed.png")
    phone.close()


def finished_page_costs_nothing(context, url: str) -> None:
    """A finished game's page reads the game once: it opens no socket and asks nothing more afterwards."""
    later = context.new_page()
    sockets: list[str] = []
    requests: list[str] = []
    later.on("websocket", lambda socket: sockets.append(socket.url))
    later.goto(url)
    expect(later.locator("section.final table.score")).to_be_visible()
    expect(later.locator(".status-bar .conn")).to_have_count(0)  # no "live" badge: there is nothing to hear
    later.on("request", lambda request: requests.append(request.url))
    later.wait_for_timeout(3000)
    assert not sockets and not requests, (sockets, requests)
    later.close()


@pytest.mark.parametrize(("map_name", "players", "prefix"), [("europe", 4, ""), ("usa", 3, "usa-")])
def test_a_person_plays_a_whole_game_against_bots_to_the_final_score_and_replays_it(
    contexts, base_url, artifacts: Path, map_name: str, players: int, prefix: str
):
    # Between the game's end and the worker's scoring the page waits for game_scored in the log: no GET /score is
    # answered 409 (finding 12 of #30; the page watch of conftest.py fails the test on any).
    context = contexts(viewport={"width": 1400, "height": 950})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors = page_errors(page)
    sign_up(page, base_url)
    expect(page.locator("form.create")).to_be_visible()
    page.screenshot(path=artifacts / f"{prefix}lobby.png", full_page=True)

    game_id = create_game_with_bots(page, map_name, players)
    expect(page.locator("svg.board [data-city]")).to_have_count(47 if map_name == "europe" else 36)
    expect(page.locator("svg.board [data-route]")).to_have_count(101 if map_name == "europe" else 100)

    moves, shot = 0, False
    deadline = time.monotonic() + GAME_SECONDS
    while page.locator("section.final table.score").count() == 0:
        assert time.monotonic() < deadline, f"the game did not end in {GAME_SECONDS} s after {moves} moves"
        if play_one(page):
            moves += 1
            page.wait_for_timeout(60)
        else:
            page.wait_for_timeout(150)
        if moves >= 40 and not shot and page.locator("svg.board [data-owner]").count() >= 8:
            page.screenshot(path=artifacts / f"{prefix}board-desktop.png")
            phone_screenshots(contexts(storage_state=context.storage_state(), **PHONE), page.url, artifacts, prefix)
            shot = True

    final = page.locator("section.final")
    expect(final.locator("tbody > tr")).to_have_count(players)
    expect(final).to_contain_text("Longest path")
    assert page.locator("svg.board [data-owner]").count() > 10
    assert page.locator("ol.log li").count() > 50
    # The bots say why they moved: their reason follows the words for the move.
    assert page.locator("ol.log li", has_text="bot").filter(has_text=" \u2014 ").count() > 10
    page.screenshot(path=artifacts / f"{prefix}final-score.png", full_page=True)
    finished_page_costs_nothing(context, page.url)
    page.goto(f"{base_url}/games/{game_id}/replay")
    label = page.locator(".replay-at")
    expect(page.locator("section.final table.score")).to_be_visible()
    page.get_by_role("button", name="First event").click()
    expect(label).to_contain_text("Event 1 of")
    expect(page.locator("svg.board [data-owner]")).to_have_count(0)
    page.get_by_role("button", name="Next event").click()
    expect(label).to_contain_text("Event 2 of")
    page.get_by_role("button", name="Last event").click()
    expect(page.locator("section.final table.score")).to_be_visible()
    expect(page.locator("section.seat-hand")).to_have_count(players)  # every hand, once the game is over
    page.screenshot(path=artifacts / f"{prefix}replay.png", full_page=True)

    page.goto(base_url)
    expect(page.locator(f".games-finished tr[data-game='{game_id}']")).to_contain_text("Replay")
    page.screenshot(path=artifacts / f"{prefix}lobby-after.png", full_page=True)
    assert not errors, errors
