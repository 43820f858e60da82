"""Two people in one game, each in a browser of their own, see each other's moves live; a spectator sees the
public board and neither hand; a dropped connection says so and recovers by itself; the seats are no longer
polled once the game has started; a player resigns after saying yes to the question."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.conftest import page_errors
from tests.browser.test_play import play_one, sign_up

PHONE = {"width": 390, "height": 844}


def whose_page(pages: list[Page]) -> Page:
    """The page whose player decides now (waits until one of them offers a move)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for page in pages:
            if page.locator("section.actions[aria-busy=false] button:enabled, section.market button:enabled").count():
                return page
        pages[0].wait_for_timeout(100)
    raise AssertionError("neither player was offered a move")


def seen_by_both(mover: Page, other: Page, before: str | None) -> None:
    """The mover's move reached the other player's page: once the mover's page has drawn the state after its
    move, the other page draws the same seq and the same newest log line. (Counting log lines is no test: a
    second blind draw grows the first one's line into "drew two cards", so the count stays the same.)"""
    expect(mover.locator("div.game")).not_to_have_attribute("data-seq", before or "")
    seq = mover.locator("div.game").get_attribute("data-seq") or ""
    newest = mover.locator("ol.log li").first.get_attribute("data-seq") or ""
    expect(other.locator("div.game")).to_have_attribute("data-seq", seq)
    expect(other.locator("ol.log li").first).to_have_attribute("data-seq", newest)


def claim_or_draw(page: Page) -> str | None:
    """Claims the first route the page offers that is no tunnel (its id), or takes a card from the deck ("");
    None when the page has redrawn meanwhile and offers neither."""
    claim = page.locator("section.actions select[data-action=claim-select]")
    offered = [option.get_attribute("value") for option in claim.locator("option").all()[1:]] if claim.count() else []
    sure = [route for route in offered if not page.locator(f"svg.board .tunnel[data-route='{route}']").count()]
    if sure:
        claim.select_option(sure[0])
        # One way to pay: the question comes at once; several: the first way, then the question.
        confirm = page.locator("dialog.confirm-move[open] [data-action=confirm-move]")
        pay = page.locator("section.actions [data-pay]").first
        expect(confirm.or_(pay).first).to_be_visible()
        if not confirm.count():
            pay.click()
        expect(page.locator("dialog.confirm-move[open]")).to_contain_text("Claim ")
        confirm.click()
        return sure[0]
    deck = page.locator("section.market [data-deck]")
    if deck.is_disabled():
        return None
    deck.click()
    return ""


def test_two_players_see_each_others_moves_live_and_a_spectator_sees_no_hand(contexts, base_url, expected_errors):
    expected_errors(r"^400 POST /api/games/[0-9a-f-]{36}/moves$")  # the move the rules refuse, at the end
    ann_context = contexts(viewport={"width": 1300, "height": 900})
    bob_context = contexts(viewport=PHONE, has_touch=True)
    ann, bob = ann_context.new_page(), bob_context.new_page()
    errors = {"ann": page_errors(ann), "bob": page_errors(bob)}
    ann_name = sign_up(ann, base_url)
    sign_up(bob, base_url)

    ann.goto(base_url)
    form = ann.locator("form.create")
    form.get_by_label("Players").select_option("2")
    form.get_by_role("button", name="Create game").click()
    ann.wait_for_url("**/games/*")
    bob.goto(ann.url)
    bob.get_by_role("button", name="Sit here").click()
    expect(ann.locator("section.open li[data-seat='1']")).not_to_contain_text("empty", timeout=30_000)
    game_id = ann.url.rsplit("/", 1)[1]
    summaries: list[str] = []  # the seats' reads (GET /api/games/{id}) ann's page makes
    ann.on("request", lambda r: summaries.append(r.url) if r.url.endswith(f"/api/games/{game_id}") else None)
    ann.locator("[data-action=start]").click()

    for page in (ann, bob):  # each keeps the tickets dealt at the start, both deciding at once
        expect(page.locator("[data-action=keep]")).to_be_visible(timeout=30_000)
        assert play_one(page)
    for page in (ann, bob):  # a keep that lost the race to the other's (stale_seq) was sent again by the page
        expect(page.locator("[data-action=keep]")).to_have_count(0)
        expect(page.locator("section.actions .error")).to_have_count(0)

    ticket = ann.locator("section.tickets li[data-ticket]").first
    ticket.hover()  # a ticket pointed at lights up its two cities on the board
    expect(ann.locator("svg.board .city.highlight")).to_have_count(2)
    a, b = (ticket.get_attribute("data-ticket") or "").split("--")
    expect(ann.locator(f"svg.board [data-city='{a}'].highlight, svg.board [data-city='{b}'].highlight")).to_have_count(2)

    spectator = contexts().new_page()
    spectator.goto(ann.url)
    expect(spectator.locator("section.players")).to_be_visible()
    expect(spectator.locator(".status-bar")).to_contain_text("Watching")

    # The seats are no longer polled once the game has started (a join appends no event, a move does).
    expect(ann.locator("section.players")).to_be_visible()
    ann.wait_for_timeout(1600)
    polled = len(summaries)
    # A whole turn of two blind draws: the other player sees each card drawn, the second one too.
    page = whose_page([ann, bob])
    other = bob if page is ann else ann
    for _ in range(2):
        before = page.locator("div.game").get_attribute("data-seq")
        page.locator("section.market [data-deck]").click()
        seen_by_both(page, other, before)
    expect(other.locator("ol.log li").first).to_contain_text("drew two cards from the deck")

    claimed = None
    for _ in range(40):
        page = whose_page([ann, bob])
        other = bob if page is ann else ann
        before = page.locator("div.game").get_attribute("data-seq")
        claimed = claim_or_draw(page)
        if claimed is None:
            continue
        seen_by_both(page, other, before)  # the other player hears of it at once
        if claimed:
            break
    assert claimed, "nobody could claim a route in 40 actions"
    owner = ann.locator(f"svg.board [data-route='{claimed}']").get_attribute("data-owner")
    for page in (bob, spectator):
        expect(page.locator(f"svg.board [data-route='{claimed}']")).to_have_attribute("data-owner", owner)

    # A move the rules refuse (the route is taken) is explained with the server's rule text.
    page = whose_page([ann, bob])
    page.evaluate(f"window.ttrGame.play({{type: 'claim_route', route: '{claimed}', cards: {{locomotive: 1}}}})")
    expect(page.locator("section.actions .error")).to_contain_text("(rule ")

    expect(spectator.locator("section.hand")).to_have_count(0)
    expect(spectator.locator("section.tickets")).to_have_count(0)
    expect(spectator.locator("section.actions")).to_have_count(0)

    # Offline: the page says so, and once the network is back it reconnects and catches up by itself.
    bob_context.set_offline(True)
    expect(bob.locator(".conn")).to_have_text("offline: reconnecting…", timeout=30_000)
    bob_context.set_offline(False)
    expect(bob.locator(".conn")).to_have_text("connected", timeout=30_000)
    seq = ann.locator("ol.log li").first.get_attribute("data-seq")
    expect(bob.locator("ol.log li").first).to_have_attribute("data-seq", seq or "")
    assert len(summaries) == polled, f"the seats were read {len(summaries) - polled} times after the start"

    # Resigning asks first; "Keep playing" changes nothing, "Resign" hands the seat to the game's bot.
    bob.locator("[data-action=resign]").click()
    dialog = bob.locator("dialog.confirm")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("The greedy bot plays your seat")
    expect(dialog.locator("[data-action=keep-playing]")).to_be_focused()
    bob.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    bob.locator("[data-action=resign]").click()
    bob.locator("dialog.confirm [data-action=confirm-resign]").click()
    expect(bob.locator("section.actions h2")).to_have_text("You resigned")
    expect(bob.locator("[data-action=resign]")).to_have_count(0)
    expect(ann.locator("ol.log")).to_contain_text("resigned; the greedy bot plays the seat")
    assert not errors["ann"] and not errors["bob"], errors

    ann.goto(f"{base_url}/leaderboard")
    expect(ann.locator("h1")).to_have_text("Leaderboard: Europe")
    ann.goto(f"{base_url}/users/{ann_name}")
    expect(ann.locator("h1")).to_have_text(ann_name)
    expect(ann.locator("h2")).to_have_text(["Ratings", "Computer analysis", "History", "Recent games"])
