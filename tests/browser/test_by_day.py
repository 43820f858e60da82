"""Playing by day in the browser: two people find each other through the queue and play; a player with three
daily games sees which await their move (the lobby's "My games" and the header's badge) and hears an invitation
arrive in the inbox, each game's speed, bank and clock in plain words, and another player's vacation with its end;
an invitation link seats the person who opens it, once, and refuses the next one in words; the settings page and
the pages the e-mails link to.

The matchmaker is a worker task run by beat every TTR_MATCH_SECONDS (`manage.py runall` starts both), and the
user socket (/ws/me/) carries the notifications to the page."""

from __future__ import annotations

import email
import re
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from bench.live.embedded import LiveServer
from tests.browser.conftest import page_errors
from tests.browser.test_board import PHONE
from tests.browser.test_edges import HTTP_SECONDS, PASSWORD, call, register, signed_in
from tests.browser.test_live import claim_or_draw, seen_by_both, whose_page
from tests.browser.test_play import play_one, sign_up

WIDE = {"viewport": {"width": 1300, "height": 900}}
DAILY = {"speed": "daily", "days_per_move": 1, "bank_days": 3, "turn_seconds": None}


def person(contexts: Any, base_url: str, **options: Any) -> tuple[Page, str, str, list[str]]:
    """A browser of a newly registered person, signed in: its page, the name, the token, its page errors."""
    name, token = register(base_url)
    page = contexts(**{**WIDE, **options}).new_page()
    page.set_default_timeout(15_000)
    errors = page_errors(page)
    signed_in(page, base_url, name, token)
    return page, name, token, errors


def queue_for_two(page: Page, base_url: str) -> None:
    """From the lobby: the queue for a two-player live game on Europe, no bots."""
    page.goto(base_url)
    form = page.locator("section.queue form")
    form.get_by_label("Map").select_option("europe")
    for count in ("2", "3", "4", "5"):
        form.locator(f"input[name=players][value='{count}']").set_checked(count == "2")
    form.get_by_label("Speed").select_option("live")
    form.get_by_role("button", name="Find a game").click()


def test_two_people_find_each_other_in_the_queue_land_in_one_game_and_play(contexts, base_url, artifacts: Path):
    ann = contexts(**WIDE).new_page()
    bob = contexts(**WIDE).new_page()
    errors = {"ann": page_errors(ann), "bob": page_errors(bob)}
    ann_name, bob_name = sign_up(ann, base_url), sign_up(bob, base_url)

    queue_for_two(ann, base_url)
    waiting = ann.locator("section.queue [data-status=waiting]")
    expect(waiting).to_contain_text("Europe · 2 players · unranked · live · no bots")
    expect(ann.locator("[data-action=leave-queue]")).to_be_visible()
    ann.screenshot(path=artifacts / "queue-waiting.png", full_page=True)
    # Leaving and joining again: the form comes back, then the wait.
    ann.locator("[data-action=leave-queue]").click()
    expect(ann.locator("section.queue form")).to_be_visible()
    queue_for_two(ann, base_url)
    expect(waiting).to_be_visible()

    queue_for_two(bob, base_url)
    # The matchmaker forms the table; both pages open its game by themselves.
    for page in (ann, bob):
        page.wait_for_url("**/games/*", timeout=30_000)
    game_id = ann.url.rsplit("/", 1)[1]
    assert bob.url.rsplit("/", 1)[1] == game_id
    for page in (ann, bob):
        expect(page.locator("section.players")).to_contain_text(ann_name)
        expect(page.locator("section.players")).to_contain_text(bob_name)
        expect(page.locator(".status-bar .time-control")).to_contain_text("live ·")

    for page in (ann, bob):  # each keeps the tickets dealt at the start
        expect(page.locator("[data-action=keep]")).to_be_visible(timeout=30_000)
        assert play_one(page)
    for page in (ann, bob):
        expect(page.locator("[data-action=keep]")).to_have_count(0)
    made = 0
    for _ in range(20):  # a few turns: claim a route when one is offered, else a card from the deck
        page = whose_page([ann, bob])
        other = bob if page is ann else ann
        before = page.locator("div.game").get_attribute("data-seq")
        if claim_or_draw(page) is None:
            continue
        seen_by_both(page, other, before)  # the other player sees it at once
        made += 1
        if made == 6:
            break
    assert made == 6
    assert ann.locator("ol.log li").count() > 5
    ann.screenshot(path=artifacts / "queue-game.png")
    assert not errors["ann"] and not errors["bob"], errors


def keep_all_tickets(token: str, base_url: str, game: str) -> None:
    """The player's answer to the tickets dealt at the start: the first keep the server offers."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        moves = call(base_url, token, "GET", f"/games/{game}/legal-moves")
        keeps = [m for m in moves["moves"] if m["type"] == "keep_tickets"]
        if keeps:
            call(base_url, token, "POST", f"/games/{game}/moves", {"expected_seq": moves["seq"], "move": keeps[0]})
            return
        time.sleep(0.1)
    raise AssertionError("no ticket choice was offered")


def test_a_player_with_three_daily_games_sees_which_await_their_move_and_hears_an_invitation(
    contexts, base_url, artifacts: Path
):
    pat, pat_name, pat_token, errors = person(contexts, base_url)
    quinn, quinn_token = register(base_url)
    # Two daily games against a bot: each waits for Pat's tickets. One against Quinn where Pat has chosen and
    # Quinn has not: it waits for Quinn only.
    against_bots = []
    for _ in range(2):
        game = call(base_url, pat_token, "POST", "/games", {"map": "europe", "players": 2, "ranked": False, **DAILY})
        call(base_url, pat_token, "POST", f"/games/{game['id']}/start", {"fill_with_bots": "greedy"})
        against_bots.append(game["id"])
    other = call(
        base_url,
        pat_token,
        "POST",
        "/games",
        {"map": "usa", "players": 2, "ranked": False, "speed": "daily", "days_per_move": 2, "bank_days": 5},
    )
    call(base_url, quinn_token, "POST", f"/games/{other['id']}/join", {})
    call(base_url, pat_token, "POST", f"/games/{other['id']}/start", {})
    keep_all_tickets(pat_token, base_url, other["id"])
    assert call(base_url, pat_token, "GET", "/me/games")["your_turn"] == 2

    pat.goto(base_url)
    rows = pat.locator("section.my-games tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_have_attribute("data-your-move", "true")
    expect(rows.nth(1)).to_have_attribute("data-your-move", "true")
    expect(rows.nth(2)).to_have_attribute("data-your-move", "false")
    assert {rows.nth(i).get_attribute("data-game") for i in range(2)} == set(against_bots)
    expect(rows.nth(2)).to_have_attribute("data-game", other["id"])
    expect(rows.nth(0)).to_contain_text("Your move")
    # The speed in words, the bank on a line of its own, the move's time and the bank apart (issue #33).
    expect(rows.nth(0).locator(".speed")).to_have_text("daily, 1 day a move")
    expect(rows.nth(0).locator(".bank-days")).to_have_text("bank: 3 days")
    expect(rows.nth(2).locator(".speed")).to_have_text("daily, 2 days a move")
    expect(rows.nth(2).locator(".bank-days")).to_have_text("bank: 5 days")
    clock = re.compile(r"^this move: \d+ h( \d+ min)? left · then the bank: 3 days$")  # of a day, and 3 days
    expect(rows.nth(0).locator(".deadline")).to_have_text(clock)
    expect(rows.nth(2)).to_contain_text("others to move")
    badge = pat.locator("#inbox a.your-turn")
    expect(badge).to_have_text("Your turn in 2 games")
    unread = pat.locator("#inbox .badge.unread")
    expect(unread).to_be_visible()  # the games' "choose your tickets" notifications
    before = int(unread.get_attribute("data-count") or "0")
    pat.screenshot(path=artifacts / "my-games.png", full_page=True)

    # Quinn invites Pat to a private game: the inbox hears it at once, over the user socket.
    private = call(
        base_url, quinn_token, "POST", "/games", {"map": "europe", "players": 3, "ranked": False, "private": True, **DAILY}
    )
    call(base_url, quinn_token, "POST", f"/games/{private['id']}/invite", {"username": pat_name})
    expect(unread).to_have_attribute("data-count", str(before + 1), timeout=30_000)
    pat.locator("#inbox .inbox-button").click()
    panel = pat.locator("#inbox-panel")
    expect(panel.locator("li[data-kind=invitation]")).to_contain_text(f"{quinn} invites you")
    expect(panel.locator("li.unread")).to_have_count(before + 1)
    pat.screenshot(path=artifacts / "inbox.png")
    panel.locator("[data-action=read-all]").click()
    expect(unread).to_have_count(0)
    expect(panel.locator("li.unread")).to_have_count(0)
    # The invitation's line is a link that seats Pat (it carries the invitation's token).
    panel.locator("li[data-kind=invitation] a").click()
    pat.wait_for_url(f"**/games/{private['id']}")
    expect(pat.locator("section.open li[data-seat='1']")).to_contain_text(pat_name)

    # A move of Pat's: the badge follows /api/me/games (the bot's game may come back to Pat at once).
    pat.goto(f"{base_url}/games/{against_bots[0]}")
    expect(pat.locator("[data-action=keep]")).to_be_visible()
    expect(pat.locator("section.players th").last).to_have_text("Bank")
    expect(pat.locator("section.players td.bank").first).to_have_text("3 days")
    expect(pat.locator(".status-bar .time-control")).to_have_text("daily, 1 day a move, bank 3 days")
    expect(pat.locator(".status-bar .clock")).to_contain_text("left to decide")
    pat.screenshot(path=artifacts / "daily-game.png")
    assert play_one(pat)
    expect(pat.locator("[data-action=keep]")).to_have_count(0)
    deadline = time.monotonic() + 30
    while True:
        count = call(base_url, pat_token, "GET", "/me/games")["your_turn"]
        shown = int(badge.get_attribute("data-count") or "0") if badge.is_visible() else 0
        if shown == count or time.monotonic() > deadline:
            break
        pat.wait_for_timeout(200)
    assert shown == count, (shown, count)
    assert not errors, errors


def test_the_others_see_a_players_vacation_with_its_end_in_my_games(contexts, base_url, artifacts: Path):
    """Issue #33: a vacation moved a player's deadline by its days and nobody else saw why. My games tells the
    others who is on vacation until when, and by how many days their deadline moves; on a phone too, with no
    sideways scroll."""
    quinn, quinn_name, quinn_token, errors = person(contexts, base_url)
    pat_name, pat_token = register(base_url)
    game = call(base_url, quinn_token, "POST", "/games", {"map": "usa", "players": 2, "ranked": False, **DAILY})
    call(base_url, pat_token, "POST", f"/games/{game['id']}/join", {})
    call(base_url, quinn_token, "POST", f"/games/{game['id']}/start", {})
    until = call(base_url, pat_token, "POST", "/me/vacation", {"days": 7})["until"]
    day = datetime.fromisoformat(until).astimezone()  # the browser's time zone is this machine's
    when = f"{day.strftime('%B')} {day.day}" + (f", {day.year}" if day.year != datetime.now().year else "")

    quinn.goto(base_url)
    row = quinn.locator(f"section.my-games tr[data-game='{game['id']}']")
    expect(row.locator("ul.away li")).to_have_text(f"{pat_name} is on vacation until {when}: their deadline moves by 7 days")
    quinn.locator("section.my-games").screenshot(path=artifacts / "my-games-away.png")
    phone = contexts(**PHONE).new_page()
    phone_errors = page_errors(phone)
    signed_in(phone, base_url, quinn_name, quinn_token)
    phone.goto(base_url)
    expect(phone.locator(f"section.my-games tr[data-game='{game['id']}'] ul.away li")).to_contain_text(pat_name)
    wide = phone.evaluate("() => [...document.querySelectorAll('section.my-games, section.my-games *')]"
                          ".filter((el) => el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 1).length")
    assert wide == 0 and phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.locator("section.my-games").screenshot(path=artifacts / "my-games-away-phone.png")
    assert not errors and not phone_errors, (errors, phone_errors)


def test_an_invitation_link_seats_one_person_and_refuses_the_next_in_words(
    contexts, base_url, artifacts: Path, expected_errors
):
    expected_errors(r"^409 POST /api/games/[0-9a-f-]{36}/join$")  # the used link, refused in words
    ann, _, _, errors = person(contexts, base_url)
    ann.goto(base_url)
    form = ann.locator("form.create")
    form.get_by_label("Players").select_option("3")
    form.get_by_label("Speed").select_option("daily")
    expect(form.get_by_label("Turn time")).to_be_hidden()
    form.get_by_label("Days per move").select_option("2")
    form.get_by_label("Bank days").fill("4")
    form.get_by_label("Private").check()
    form.get_by_role("button", name="Create game").click()
    ann.wait_for_url("**/games/*")
    game_id = ann.url.rsplit("/", 1)[1]
    expect(ann.locator(".status-bar .time-control")).to_have_text("daily, 2 days a move, bank 4 days · private")
    link = ann.locator(".invite .invite-link")
    expect(link).to_have_value(re.compile(rf"^{re.escape(base_url)}/games/{game_id}\?invite=[\w-]+$"))
    url = link.input_value()
    ann.context.grant_permissions(["clipboard-read", "clipboard-write"])
    ann.locator("[data-action=copy-invite]").click()
    expect(ann.locator(".invite")).to_contain_text("Copied.")
    assert ann.evaluate("navigator.clipboard.readText()") == url
    ann.screenshot(path=artifacts / "invite-creator.png")

    # Bob, signed in, opens the link: he is seated, and the address loses the token.
    bob, bob_name, _, bob_errors = person(contexts, base_url)
    bob.goto(url)
    expect(bob.locator("section.open li[data-seat='1']")).to_contain_text(bob_name)
    assert "invite=" not in bob.url
    expect(ann.locator("section.open li[data-seat='1']")).to_contain_text(bob_name, timeout=30_000)
    # A used link is replaced by a new one for the next free seat.
    expect(link).not_to_have_value(url, timeout=30_000)

    # Cat opens the same link signed out: the sign-in page first, then back to the game, which refuses.
    cat = contexts(**WIDE).new_page()
    cat.set_default_timeout(15_000)
    cat_errors = page_errors(cat)
    cat.goto(url)
    cat.wait_for_url("**/signin?next=*")
    cat_name = f"cat{uuid.uuid4().hex[:6]}"
    register_form = cat.locator("form.register")
    register_form.get_by_label("Username").fill(cat_name)
    register_form.get_by_label("Password").fill(PASSWORD)
    register_form.get_by_role("button", name="Sign up").click()
    cat.wait_for_url(f"**/games/{game_id}")
    problem = cat.locator(".invite-problem")
    expect(problem).to_have_text(
        "This invitation has already been used: each link seats one person. Ask the game's creator for a new one."
    )
    expect(cat.locator("section.open li[data-seat='2']")).to_contain_text("empty")
    cat.screenshot(path=artifacts / "invite-used.png")

    # Ann invites Cat by name: Cat's inbox has it, and its link seats her.
    ann.locator(".invite-user").get_by_label("Invite by username").fill(cat_name)
    ann.locator("[data-action=invite-user]").click()
    expect(ann.locator(".invite")).to_contain_text(f"Invitation sent to {cat_name}")
    expect(cat.locator("#inbox .badge.unread")).to_have_attribute("data-count", "1", timeout=30_000)
    cat.locator("#inbox .inbox-button").click()
    cat.locator("#inbox-panel li[data-kind=invitation] a").click()
    expect(cat.locator("section.open li[data-seat='2']")).to_contain_text(cat_name)
    expect(cat.locator(".invite-problem")).to_have_count(0)
    expect(ann.locator("section.open li[data-seat='2']")).to_contain_text(cat_name, timeout=30_000)
    ann.screenshot(path=artifacts / "invite-full.png")
    assert not errors and not bob_errors and not cat_errors, (errors, bob_errors, cat_errors)


def test_a_rematch_is_offered_accepted_and_both_players_land_in_the_new_game(contexts, base_url, artifacts: Path):
    ann, ann_name, ann_token, ann_errors = person(contexts, base_url)
    bob, bob_name, bob_token, bob_errors = person(contexts, base_url)
    # A game both leave at once: the random bots play their seats to the end in a second or two.
    game = call(
        base_url,
        ann_token,
        "POST",
        "/games",
        {"map": "usa", "players": 2, "ranked": False, "fallback_bot": "random", **DAILY},
    )
    call(base_url, bob_token, "POST", f"/games/{game['id']}/join", {})
    call(base_url, ann_token, "POST", f"/games/{game['id']}/start", {})
    for token in (ann_token, bob_token):
        call(base_url, token, "POST", f"/games/{game['id']}/resign")
    deadline = time.monotonic() + 60
    while call(base_url, ann_token, "GET", f"/games/{game['id']}")["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.3)

    for page in (ann, bob):
        page.goto(f"{base_url}/games/{game['id']}")
        expect(page.locator("section.final table.score")).to_be_visible(timeout=30_000)
    ann.locator("section.rematch [data-action=rematch]").click()
    expect(ann.locator("section.rematch")).to_contain_text("You offered a rematch.")
    expect(ann.locator("section.rematch")).to_contain_text(f"Waiting for: {bob_name}.")
    # Bob's page hears the offer through his inbox (his page of a finished game reads nothing by itself).
    rematch = bob.locator("section.rematch")
    expect(rematch).to_contain_text(f"{ann_name} offers a rematch.", timeout=30_000)
    expect(rematch.locator(".accepted")).to_have_text(f"Accepted by: {ann_name}.")
    bob.screenshot(path=artifacts / "rematch-offered.png")
    rematch.get_by_role("button", name="Accept the rematch").click()
    for page in (bob, ann):  # Bob's answer names the new game; Ann's page hears that it formed
        page.wait_for_url(re.compile(r"/games/(?!" + game["id"] + r")[0-9a-f-]{36}$"), timeout=30_000)
    new_id = bob.url.rsplit("/", 1)[1]
    assert ann.url.rsplit("/", 1)[1] == new_id
    summary = call(base_url, ann_token, "GET", f"/games/{new_id}")
    assert summary["rematch_of"] == game["id"] and summary["speed"] == "daily"
    expect(ann.locator("section.players")).to_contain_text(bob_name)
    ann.screenshot(path=artifacts / "rematch-game.png")
    assert not ann_errors and not bob_errors, (ann_errors, bob_errors)


def test_the_tabs_of_one_browser_share_one_user_socket_and_the_counts(contexts, base_url):
    """The tabs elect a leader (a Web Lock): it alone holds /ws/me/ and passes what it hears to the other tabs;
    when it closes, another tab takes over."""
    first, name, token, errors = person(contexts, base_url)
    first.goto("about:blank")  # the sign-up page may still be starting its inbox: only the pages below are counted
    sockets: list[str] = []
    first.context.on("page", lambda page: page.on("websocket", lambda ws: sockets.append(ws.url)))
    first.on("websocket", lambda ws: sockets.append(ws.url))
    game = call(base_url, token, "POST", "/games", {"map": "europe", "players": 2, "ranked": False, **DAILY})
    call(base_url, token, "POST", f"/games/{game['id']}/start", {"fill_with_bots": "greedy"})
    first.goto(base_url)
    expect(first.locator("#inbox a.your-turn")).to_have_text("Your turn in 1 game")
    second = first.context.new_page()
    second_errors = page_errors(second)
    second.goto(f"{base_url}/leaderboard")  # a page that reads nothing of the person: the counts come from the leader
    expect(second.locator("#inbox a.your-turn")).to_have_text("Your turn in 1 game")
    expect(second.locator("#inbox .badge.unread")).to_have_attribute("data-count", "1")
    assert sum("/ws/me/" in url for url in sockets) == 1, sockets

    _, other_token = register(base_url)
    private = call(base_url, other_token, "POST", "/games", {"map": "usa", "players": 2, "ranked": False, "private": True})
    call(base_url, other_token, "POST", f"/games/{private['id']}/invite", {"username": name})
    for page in (first, second):  # heard by the leader, told to the other tab
        expect(page.locator("#inbox .badge.unread")).to_have_attribute("data-count", "2", timeout=30_000)
    first.close()  # the leader goes: the other tab takes the lock and connects
    deadline = time.monotonic() + 30
    while sum("/ws/me/" in url for url in sockets) < 2:
        assert time.monotonic() < deadline, sockets
        second.wait_for_timeout(100)
    second.locator("#inbox .inbox-button").click()
    second.locator("[data-action=read-all]").click()
    expect(second.locator("#inbox .badge.unread")).to_have_count(0)
    assert not errors and not second_errors, (errors, second_errors)


def served(base_url: str, path: str) -> bool:
    return httpx.get(base_url + path, timeout=HTTP_SECONDS).status_code == 200


def test_the_settings_page_sets_the_address_the_emails_and_a_vacation(contexts, base_url, artifacts: Path):
    assert served(base_url, "/me")
    page, name, token, errors = person(contexts, base_url)
    page.goto(base_url)
    page.locator("#who").get_by_role("link", name="Settings", exact=True).click()
    page.wait_for_url("**/me")
    expect(page.locator("h1")).to_have_text(f"Settings: {name}")
    page.get_by_label("E-mail address").fill(f"{name}@example.com")
    page.get_by_role("button", name="Save address").click()
    expect(page.locator("[data-state=pending]")).to_contain_text(f"{name}@example.com waits for confirmation")
    box = page.locator("input[data-kind=game_ended]")
    expect(box).to_be_checked()
    box.uncheck()
    expect(page.locator("section.notify [role=status]")).to_have_text("Saved: no e-mail when a game of mine has ended.")
    assert call(base_url, token, "GET", "/me")["notify"]["game_ended"] is False
    page.get_by_label("Days").fill("3")
    page.get_by_role("button", name="Start vacation").click()
    expect(page.locator(".on-vacation")).to_contain_text("On vacation until")
    expect(page.locator(".days-left")).to_have_text("You have 27 vacation days left.")
    page.screenshot(path=artifacts / "settings.png", full_page=True)
    assert not errors, errors


def mailed_link(live: LiveServer, to: str, path: str, seconds: float = 30) -> str:
    """The address (path and query) of the first link to `path` in a mail to `to` that the server wrote to its
    mail directory (the embedded server's file backend)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for file in sorted((live.var_dir / "mail").glob("*")):
            for text in file.read_text(errors="replace").split("-" * 79):
                mail = email.message_from_string(text.strip())
                if to not in (mail["To"] or ""):
                    continue
                payload = mail.get_payload(decode=True)  # a plain-text mail: its body, with any transfer encoding undone
                body = payload.decode(errors="replace") if isinstance(payload, bytes) else ""
                found = re.search(rf"https?://[^/\s]+({re.escape(path)}\?token=[^\s]+)", body)
                if found:
                    return found.group(1)
        time.sleep(0.2)
    raise AssertionError(f"no mail to {to} with a link to {path} in {seconds} s")


def test_an_address_is_confirmed_by_its_link_and_a_mail_stops_its_kind_by_another(
    contexts, base_url, live: LiveServer, expected_errors
):
    expected_errors(r"^404 POST /api/me/(email/confirm|unsubscribe)$")  # the links that are not ones, at the end
    page, name, token, errors = person(contexts, base_url)
    address = f"{name}@example.com"
    call(base_url, token, "PATCH", "/me", {"email": address})
    page.goto(base_url + mailed_link(live, address, "/confirm-email"))
    expect(page.locator("p.done")).to_have_text(
        f"Your e-mail address {address} is confirmed: the notifications you choose are sent there."
    )
    assert call(base_url, token, "GET", "/me")["email"] == address
    # An invitation is mailed (in the next batch); its mail's link stops the mails of that kind.
    _, other_token = register(base_url)
    game = call(base_url, other_token, "POST", "/games", {"map": "europe", "players": 2, "ranked": False, "private": True})
    call(base_url, other_token, "POST", f"/games/{game['id']}/invite", {"username": name})
    page.goto(base_url + mailed_link(live, address, "/unsubscribe"))
    expect(page.locator("p.done")).to_have_text("You will no longer get an e-mail when someone invites me to a game.")
    assert call(base_url, token, "GET", "/me")["notify"]["invitation"] is False
    # A link that is not one, and one cut short, say so in words.
    for path in ("/confirm-email", "/unsubscribe"):
        page.goto(f"{base_url}{path}?token=not-a-token")
        expect(page.locator("#page .error")).to_contain_text("This link does not work")
        page.goto(f"{base_url}{path}")
        expect(page.locator("#page .error")).to_have_text("This link has no token: open the whole link from the e-mail.")
    assert not errors, errors
