"""Table talk in the browser (frontend/chat.js): two players and a spectator, each in a browser of their own. A line
written at the table reaches both players and the spectator; the spectator's own channel stays among spectators;
a line holding markup shows as the text it is and runs no script; a quick phrase is sent in the reader's words; a
muted player's lines leave the muter's page. Screenshots: chat-desktop.png, chat-phone.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.conftest import page_errors
from tests.browser.test_edges import call, register, signed_in

XSS = '<img src=x onerror="window.__xss = 1"><script>window.__xss = 2</script>'
SOCKET_MS = 30_000  # a line through the server and every socket: far under a second when quiet, not on a busy machine


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


def test_players_and_a_spectator_talk_and_markup_stays_text(contexts, base_url, artifacts: Path):
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
    tokens = [ann[1], bob[1]]
    for _ in range(2000):  # both players play their first legal move until the game is over
        if call(base_url, ann[1], "GET", f"/games/{game}")["status"] == "finished":
            break
        for token in tokens:
            legal = call(base_url, token, "GET", f"/games/{game}/legal-moves")
            if legal["moves"]:
                move = {"expected_seq": legal["seq"], "move": legal["moves"][0]}
                call(base_url, token, "POST", f"/games/{game}/moves", move)
    else:
        raise AssertionError("the game did not end")
    page = open_game(contexts, base_url, game, ann, live=False)  # a finished game's page opens no socket of the game's
    say(page, "gg")
    expect(page.locator("section.chat .chat-line").last).to_contain_text("gg", timeout=SOCKET_MS)  # the chat's own socket
    other = open_game(contexts, base_url, game, bob, live=False)
    expect(other.locator("section.chat .chat-line").last).to_contain_text("gg", timeout=SOCKET_MS)
