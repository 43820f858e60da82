"""A person plays a whole Europe game in the browser against three bots, by clicking what the page offers."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.browser.conftest import page_errors

GAME_SECONDS = 600


def sign_up(page: Page, base_url: str) -> str:
    name = f"ann{uuid.uuid4().hex[:6]}"
    page.goto(f"{base_url}/signin")
    form = page.locator("form.register")
    form.get_by_label("Username").fill(name)
    form.get_by_label("Password").fill("correct-horse-9")
    form.get_by_role("button", name="Sign up").click()
    expect(page.locator("#who")).to_contain_text(name)
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


def test_a_person_plays_a_europe_game_against_three_bots_to_the_final_score(browser, base_url, artifacts: Path):
    context = browser.new_context(viewport={"width": 1400, "height": 950})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors = page_errors(page)
    sign_up(page, base_url)
    expect(page.locator("form.create")).to_be_visible()
    page.screenshot(path=artifacts / "lobby.png", full_page=True)

    game_id = create_game_with_bots(page, "europe", 4)
    expect(page.locator("svg.board [data-city=paris]")).to_be_visible()
    expect(page.locator("svg.board [data-route]")).to_have_count(101)

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
            page.screenshot(path=artifacts / "board-desktop.png")
            page.set_viewport_size({"width": 390, "height": 844})
            page.wait_for_timeout(300)
            page.screenshot(path=artifacts / "board-phone.png")
            page.set_viewport_size({"width": 1400, "height": 950})
            shot = True

    final = page.locator("section.final")
    expect(final.locator("tbody tr")).to_have_count(4)
    expect(final).to_contain_text("Longest path")
    assert page.locator("svg.board [data-owner]").count() > 10
    assert page.locator("ol.log li").count() > 50
    final.scroll_into_view_if_needed()
    page.screenshot(path=artifacts / "final-score.png", full_page=True)
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
    expect(page.locator("section.seat-hand")).to_have_count(4)  # every hand, once the game is over
    page.screenshot(path=artifacts / "replay.png", full_page=True)

    page.goto(base_url)
    expect(page.locator(".games-finished tbody tr")).to_have_count(1)
    page.screenshot(path=artifacts / "lobby-after.png", full_page=True)
    assert not errors, errors
    context.close()
