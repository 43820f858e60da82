"""Tournaments in the browser: a person organises a live Swiss with bots filling the tables from the form (a refusal
is said under the field it names), joins it, a second person in a browser of their own finds it in the list and
joins too; the server's periodic task starts it, and both pages, without a reload, say so and show the standings;
the first person's inbox links their table's game, which they open from "Your next game"; when the second person
withdraws (after saying yes to the question), the first person's page marks them withdrawn, live over the
tournament's socket. Screenshots at a phone's width (390 px, the second person's) and a desktop's (1400 px, the
first's) go to test-artifacts/browser/tournament-*.png, and neither page is wider than its window."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.test_board import DESKTOP, PHONE
from tests.browser.test_edges import register, signed_in

START_MS = 150_000  # the start: the next whole minute at least 20 s away (up to 80 s), then the beat's next tick
LIVE_MS = 30_000  # a change reaching the other page over the socket, on a machine whose two cores are busy

# The form's start, as <input type=datetime-local> takes it in the browser's own time zone: the next whole minute at
# least 20 s from now (the input holds minutes).
NEXT_MINUTE = """() => {
  const at = new Date(Date.now() + 20000);
  at.setSeconds(0, 0);
  at.setMinutes(at.getMinutes() + 1);
  const pad = (n) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}"""
FAR = """() => {
  const at = new Date(Date.now() + 40 * 86400000);
  const pad = (n) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T12:00`;
}"""
NO_SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


def person(contexts, base_url: str, size: dict) -> tuple[Page, str]:
    name, token = register(base_url)
    page = contexts(**size).new_page()
    signed_in(page, base_url, name, token)
    return page, name


def organise(page: Page, base_url: str, name: str) -> str:
    """The form of /tournaments: a live Swiss of two rounds, tables of three, bots filling them. First a start more
    than 30 days ahead, which the server refuses under the field; then the next whole minute. The tournament's id."""
    page.goto(f"{base_url}/tournaments")
    form = page.locator("form.tour-form")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Format").select_option("swiss")
    form.get_by_label("Rounds").fill("2")
    form.get_by_label("Players at a table").select_option("3")
    expect(form.get_by_label("Smaller tables may form")).to_be_checked()
    expect(form.get_by_label("Bots fill the tables")).to_be_checked()
    form.get_by_label("Speed").select_option("live")
    expect(form.get_by_label("Length in minutes")).to_be_hidden()  # an arena's only
    starts = form.get_by_label("Starts at")
    starts.fill(page.evaluate(FAR))
    form.get_by_role("button", name="Create tournament").click()
    refusal = form.locator(".field-error[data-field=starts_at]")
    expect(refusal).to_contain_text("30 days")
    expect(starts).to_have_attribute("aria-invalid", "true")
    expect(starts).to_be_focused()
    starts.fill(page.evaluate(NEXT_MINUTE))
    form.get_by_role("button", name="Create tournament").click()
    page.wait_for_url(re.compile(r"/tournaments/[0-9a-f-]{36}$"))
    return page.url.rsplit("/", 1)[1]


def standings_of(page: Page, *names: str) -> None:
    for name in names:
        expect(page.locator(f"table.tour-standings-table tr[data-username='{name}']")).to_be_visible(timeout=LIVE_MS)


def test_a_swiss_is_organised_joined_started_played_and_its_standings_follow_a_withdrawal_live(
    contexts, base_url, expected_errors, artifacts: Path
):
    expected_errors(r"^400 POST /api/tournaments$")  # the start 40 days ahead, refused under its field
    ann, ann_name = person(contexts, base_url, DESKTOP)
    bob, bob_name = person(contexts, base_url, PHONE)
    title = f"Cup {uuid.uuid4().hex[:6]}"
    tournament = organise(ann, base_url, title)

    expect(ann.locator("#page h1")).to_have_text(title)
    expect(ann.locator(".tour-status h2")).to_have_text("Upcoming")
    expect(ann.locator(".tour-status .countdown")).to_contain_text("starts in")
    ann.get_by_role("button", name="Join").click()
    expect(ann.locator(".tour-me")).to_contain_text("You are in this tournament.")
    expect(ann.locator(".tour-registered li.me")).to_have_text(ann_name)

    # The second person finds it among the upcoming ones, its countdown ticking, and joins from its page.
    bob.goto(f"{base_url}/tournaments")
    row = bob.locator(f"section.tournaments-upcoming li[data-tournament='{tournament}']")
    expect(row).to_contain_text(title)
    expect(row.locator(".countdown")).to_contain_text("starts in")
    row.get_by_role("link", name=title).click()
    bob.wait_for_url(f"**/tournaments/{tournament}")
    bob.get_by_role("button", name="Join").click()
    expect(bob.locator(".tour-me")).to_contain_text("You are in this tournament.")
    expect(ann.locator(".tour-players")).to_have_text("2 players", timeout=LIVE_MS)  # the socket's status, no reload
    ann.evaluate("() => { window.notReloaded = true; }")
    bob.evaluate("() => { window.notReloaded = true; }")

    # The server's periodic task starts it: both pages say so and show the standings, drawn again, not reloaded.
    for page in (ann, bob):
        expect(page.locator(".tour-status h2")).to_have_text("Running", timeout=START_MS)
        standings_of(page, ann_name, bob_name)
        expect(page.locator(".tour-status .tour-line")).to_contain_text("Round 1 of 2")
        assert page.evaluate("() => window.notReloaded === true")
    expect(ann.locator(".tour-tables li[data-game]").first).to_be_visible(timeout=LIVE_MS)
    ann.screenshot(path=artifacts / "tournament-running-1400.png", full_page=True)
    bob.screenshot(path=artifacts / "tournament-running-390.png", full_page=True)
    assert bob.evaluate(NO_SIDEWAYS) <= 1 and ann.evaluate(NO_SIDEWAYS) <= 1

    # The first person opens their game from the link, then comes back to the tournament.
    game_link = ann.get_by_role("link", name="Your next game")
    expect(game_link).to_be_visible(timeout=LIVE_MS)
    game = game_link.get_attribute("data-game")
    assert ann.locator(f".tour-tables li[data-game='{game}']").count() == 1  # among the round's tables, as a link
    # The inbox tells of the table too, its line a link to the game.
    ann.get_by_role("button", name=re.compile("^Inbox")).click()
    told = ann.locator(f"#inbox-panel li[data-kind=tournament_table] a[href='/games/{game}']")
    expect(told).to_be_visible(timeout=LIVE_MS)
    ann.keyboard.press("Escape")
    game_link.click()
    ann.wait_for_url(f"**/games/{game}")
    expect(ann.locator("div.game[data-seq]")).to_have_count(1)
    ann.go_back()
    ann.wait_for_url(f"**/tournaments/{tournament}")
    standings_of(ann, ann_name, bob_name)
    ann.evaluate("() => { window.notReloaded = true; }")

    # The second person withdraws after the question; the first person's standings say so without a reload.
    bob.get_by_role("button", name="Withdraw").click()
    dialog = bob.locator("dialog.confirm[open]")
    expect(dialog).to_contain_text(f"Withdraw from {title}?")
    dialog.get_by_role("button", name="Withdraw").click()
    expect(bob.locator(".tour-me")).to_contain_text("You withdrew from this tournament.")
    withdrawn = ann.locator(f"table.tour-standings-table tr[data-username='{bob_name}']")
    expect(withdrawn).to_have_attribute("data-withdrawn", "true", timeout=LIVE_MS)
    expect(withdrawn).to_contain_text("withdrawn")
    assert ann.evaluate("() => window.notReloaded === true")
    ann.screenshot(path=artifacts / "tournament-withdrawn-1400.png", full_page=True)
    bob.screenshot(path=artifacts / "tournament-withdrawn-390.png", full_page=True)

    # The list: the running tournament with its leaders, on the phone, no wider than it.
    bob.goto(f"{base_url}/tournaments")
    running = bob.locator(f"section.tournaments-running li[data-tournament='{tournament}']")
    expect(running).to_contain_text("Leading:")
    bob.screenshot(path=artifacts / "tournament-list-390.png", full_page=True)
    assert bob.evaluate(NO_SIDEWAYS) <= 1
