"""Table talk in the browser (frontend/chat.js): two players and a spectator, each in a browser of their own. A line
written at the table reaches both players and the spectator; the spectator's own channel stays among spectators;
a line holding markup shows as the text it is and runs no script; a quick phrase is sent in the reader's words; a
muted player's lines leave the muter's page; Report asks why (a reason and words of one's own), thanks once the server
took it, and the server keeps the reason. Screenshots: chat-desktop.png, chat-phone.png, chat-report-phone.png."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.conftest import page_errors
from tests.browser.test_edges import call, register, signed_in

XSS = '<img src=x onerror="window.__xss = 1"><script>window.__xss = 2</script>'
SOCKET_MS = 30_000  # a line through the server and every socket: far under a second when quiet, not on a busy machine
GAME_SECONDS = 300  # the bots play a whole 2-player game on the worker: seconds when quiet


def a_started_game(base_url: str) -> tuple[str, list[tuple[str, str]]]:
    """A 2-player Europe game, started; (name, token) of its two players then a spectator."""
    people = [register(base_url) for _ in range(3)]
    game = call(base_url, people[0][1], "POST", "/games", {"map": "europe", "players": 2})["id"]
    call(base_url, people[1][1], "POST", f"/games/{game}/join", {"seat": 1})
    call(base_url, people[0][1], "POST", f"/games/{game}/start", {})
    return game, people


def open_game(contexts: Any, base_url: str, game: str, who: tuple[str, str], live: bool = True, **options: Any) -> Page:
    page = contexts(**options).new_page()
    signed_in(page, base_url, *who)
    page.goto(f"{base_url}/games/{game}")
    expect(page.locator("section.chat")).to_be_visible(timeout=SOCKET_MS)
    if live:  # the socket said hello: it listens to the game (and its chat) from now on, so a line sent next reaches it
        expect(page.locator(".conn[data-online=true]")).to_be_visible(timeout=SOCKET_MS)
    return page


def say(page: Page, text: str) -> None:
    page.locator("section.chat input.chat-input").fill(text)
    page.locator("section.chat form.chat-form button[type=submit]").click()


def lines(page: Page) -> list[str]:
    return page.locator("section.chat .chat-line .chat-text").all_inner_texts()


def reported_as(page: Page, live: Any, author: str, artifacts: Path) -> None:
    """Reports the author's first line: the reason asked (none chosen: the form will not go), then given with
    words of one's own; the thanks said once the server took it, and the reason kept in the server's database."""
    line = page.locator(f"section.chat .chat-line[data-user='{author}']").first
    line_id = int(line.get_attribute("data-id"))
    line.locator(".chat-report").click()
    form = page.locator("form.chat-report-form")
    expect(form.locator("legend")).to_have_text(f"Report {author}'s line: why?")
    expect(form.locator("input[value=spam]")).to_be_focused()
    form.get_by_role("button", name="Send the report").click()  # no reason chosen: the browser asks for one
    assert page.evaluate("document.querySelector('form.chat-report-form input[value=spam]').validity.valueMissing")
    form.get_by_label("Insults or harassment").check()
    form.get_by_label("Anything to add? (optional)").fill("rude, twice")
    form.locator("fieldset").screenshot(path=artifacts / "chat-report-phone.png")
    with page.expect_response(f"**/api/chat/{line_id}/report") as answer:
        form.get_by_role("button", name="Send the report").click()
    assert answer.value.status == 200 and answer.value.request.post_data_json == {"reason": "abuse: rude, twice"}
    expect(page.locator("section.chat .chat-status")).to_have_text("Reported: thank you, a moderator will look.")
    expect(form).to_have_count(0)
    expect(line.locator(".chat-reported")).to_have_text("Reported")
    expect(line.locator(".chat-reported")).to_be_focused()
    with sqlite3.connect(live.var_dir / "db.sqlite3") as db:
        kept = db.execute("SELECT reason FROM games_chatreport WHERE message_id = ?", (line_id,)).fetchall()
    assert kept == [("abuse: rude, twice",)]


def test_players_and_a_spectator_talk_and_markup_stays_text(contexts, base_url, live, artifacts: Path):
    """Finding 14 of #30: on a busy machine the spectator's page did not show the first line within 5 s. Each page
    now waits for its socket's hello (joined to the game) before anyone writes, and each line gets SOCKET_MS."""
    game, (ann, bob, eve) = a_started_game(base_url)
    ann_page = open_game(contexts, base_url, game, ann, viewport={"width": 1400, "height": 900})
    bob_page = open_game(contexts, base_url, game, bob, viewport={"width": 390, "height": 844}, has_touch=True)
    eve_page = open_game(contexts, base_url, game, eve)
    errors = [page_errors(page) for page in (ann_page, bob_page, eve_page)]

    say(ann_page, "good luck, both")
    for page in (ann_page, bob_page, eve_page):
        expect(page.locator("section.chat .chat-line").last).to_contain_text("good luck, both", timeout=SOCKET_MS)
        expect(page.locator("section.chat ol.chat-lines")).to_have_attribute("aria-live", "polite")
    expect(eve_page.locator("section.chat .chat-note")).to_be_visible()  # spectators have their own channel here
    say(eve_page, "from the rail")
    expect(eve_page.locator("section.chat .chat-spectators")).to_contain_text("from the rail", timeout=SOCKET_MS)
    bob_page.locator("section.chat button[data-phrase=well_played]").click()
    expect(ann_page.locator("section.chat .chat-line").last).to_contain_text("Well played", timeout=SOCKET_MS)
    assert "from the rail" not in lines(ann_page) + lines(bob_page)  # players never see the spectators' channel

    say(bob_page, XSS)
    expect(ann_page.locator("section.chat .chat-line").last).to_contain_text("<img src=x", timeout=SOCKET_MS)
    assert lines(ann_page)[-1] == XSS  # shown as the text it is
    assert ann_page.locator("section.chat img, section.chat script").count() == 0
    assert ann_page.evaluate("window.__xss") is None and bob_page.evaluate("window.__xss") is None

    say(ann_page, f"the rules: {base_url}/games/{game}/replay and https://example.org/x")
    newest = bob_page.locator("section.chat .chat-line").last
    expect(newest).to_contain_text("example.org", timeout=SOCKET_MS)
    assert newest.locator("a").count() == 1 and newest.locator("a").get_attribute("href").startswith(base_url)

    ann_page.screenshot(path=str(artifacts / "chat-desktop.png"))
    bob_page.locator("section.chat").scroll_into_view_if_needed()
    bob_page.screenshot(path=str(artifacts / "chat-phone.png"))
    assert bob_page.evaluate("document.documentElement.scrollWidth") <= 390

    reported_as(bob_page, live, ann[0], artifacts)
    # Eve thinks again: Escape closes the question, the focus back on the Report button, nothing sent
    eve_report = eve_page.locator(f"section.chat .chat-line[data-user='{ann[0]}'] .chat-report").first
    eve_report.click()
    expect(eve_page.locator("form.chat-report-form input[value=spam]")).to_be_focused()
    eve_page.keyboard.press("Escape")
    expect(eve_page.locator("form.chat-report-form")).to_have_count(0)
    expect(eve_report).to_be_focused()

    bob_page.locator(f"section.chat .chat-line[data-user='{ann[0]}'] .chat-mute").first.click()
    expect(bob_page.locator(f"section.chat .chat-line[data-user='{ann[0]}']")).to_have_count(0, timeout=SOCKET_MS)
    expect(bob_page.locator("section.chat .chat-unmute")).to_have_count(1, timeout=SOCKET_MS)
    say(ann_page, "can you hear me")
    expect(eve_page.locator("section.chat .chat-line").last).to_contain_text("can you hear me", timeout=SOCKET_MS)
    # Lines reach a socket in the order they were written: once Bob's own later line is on his page, Ann's would
    # have been before it, had it not been muted (no fixed wait for something that must not come).
    say(bob_page, "still here")
    expect(bob_page.locator("section.chat .chat-line").last).to_contain_text("still here", timeout=SOCKET_MS)
    assert "can you hear me" not in lines(bob_page)
    for found in errors:
        assert not found, found


def test_after_the_game_a_player_still_says_gg(contexts, base_url):
    """A finished game's page opens no socket of the game's; the chat opens its own when the player first writes."""
    game, (ann, bob, _) = a_started_game(base_url)
    # Both leave the game: its fallback bot plays their seats to the end on the server's worker (a few seconds),
    # not hundreds of moves over HTTP from here; they keep their seats, and so their say at the table.
    for _, token in (ann, bob):
        call(base_url, token, "POST", f"/games/{game}/resign", {})
    deadline = time.monotonic() + GAME_SECONDS
    while call(base_url, ann[1], "GET", f"/games/{game}")["status"] != "finished":
        assert time.monotonic() < deadline, f"the bots did not end the game in {GAME_SECONDS} s"
        time.sleep(0.2)
    page = open_game(contexts, base_url, game, ann, live=False)  # a finished game's page opens no socket of the game's
    say(page, "gg")
    expect(page.locator("section.chat .chat-line").last).to_contain_text("gg", timeout=SOCKET_MS)  # the chat's own socket
    other = open_game(contexts, base_url, game, bob, live=False)
    expect(other.locator("section.chat .chat-line").last).to_contain_text("gg", timeout=SOCKET_MS)
