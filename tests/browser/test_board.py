"""The board and the table read at a glance (issue #23, "At the table"), on a desktop (1400x900) and a phone
(390x844): a claimed route is its owner's trains in a seat colour no card uses, a free one is pale and outlined;
the routes one may claim wear a halo no route colour hides; city names keep a readable size and no zoom button
covers a city; no page is wider than the phone; the turn is told by a banner, the tab's title and a chime one may
turn off; skip links lead past the board, which is a single stop of the Tab key; after the game the players'
table shows the final totals, the market and hand are gone, and two bots of one level are told apart.
Screenshots of every page at both sizes go to test-artifacts/browser/glance-*.png."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.conftest import page_errors
from tests.browser.test_edges import HTTP_SECONDS, WORDS, call, register, signed_in

DESKTOP = {"viewport": {"width": 1400, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "has_touch": True, "is_mobile": True}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
YOUR_TURN = "● Your turn — Ticket to Ride"
READY = {  # what each page shows once it is drawn (the rest: their heading)
    "lobby": "section.my-games[aria-busy=false]",
    "game": "section.actions",
    "final-score": "section.final table.score",
    "replay": "svg.board .route",  # the board first, the final score after it (issue #33)
}


def moves_of(base_url: str, token: str, game: str, seconds: float = 30) -> dict[str, Any] | None:
    """The moves offered to this token's seat, once there are some (None when the game is over first)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        moves = call(base_url, token, "GET", f"/games/{game}/legal-moves")
        if moves["moves"]:
            return moves
        if call(base_url, token, "GET", f"/games/{game}")["status"] == "finished":
            return None
        time.sleep(0.15)
    raise AssertionError("no move was offered")


def play(base_url: str, token: str, game: str, prefer: tuple[str, ...] = ("keep_tickets", "claim_route")) -> bool:
    """One move of this seat by the API: the first offered of the preferred kinds, else a card from the deck."""
    moves = moves_of(base_url, token, game)
    if moves is None:
        return False
    offered = moves["moves"]
    kinds = [m for kind in prefer for m in offered if m["type"] == kind]
    deck = [m for m in offered if m["type"] == "draw_card" and m.get("source") == "deck"]
    move = (kinds or deck or [m for m in offered if m["type"] != "draw_tickets"] or offered)[0]
    answer = call_raw(base_url, token, "POST", f"/games/{game}/moves", {"expected_seq": moves["seq"], "move": move})
    return answer < 300 or answer == 409  # a bot moved first (stale seq): look again


def call_raw(base_url: str, token: str, method: str, path: str, body: Any = None) -> int:
    headers = {"Authorization": f"Token {token}"}
    return httpx.request(method, f"{base_url}/api{path}", json=body, headers=headers, timeout=HTTP_SECONDS).status_code


def game_against_bots(base_url: str, token: str, players: int = 3, map_name: str = "europe", **options: Any) -> str:
    game = call(
        base_url,
        token,
        "POST",
        "/games",
        {"map": map_name, "players": players, "ranked": False, "turn_seconds": None, **options},
    )
    call(base_url, token, "POST", f"/games/{game['id']}/start", {"fill_with_bots": "greedy"})
    return game["id"]


def state(base_url: str, token: str, game: str) -> dict[str, Any]:
    return call(base_url, token, "GET", f"/games/{game}/state")


def played_until(base_url: str, token: str, game: str, claimed: int, moves: int = 60) -> None:
    """Plays this seat's moves until at least `claimed` routes are claimed on the board."""
    for _ in range(moves):
        if len(state(base_url, token, game)["view"]["routes"]) >= claimed:
            return
        play(base_url, token, game)
    raise AssertionError(f"fewer than {claimed} routes claimed after {moves} moves")


def claimable(base_url: str, token: str, game: str, moves: int = 40) -> None:
    """Draws from the deck until this seat's turn offers a route to claim."""
    for _ in range(moves):
        offered = moves_of(base_url, token, game)
        assert offered is not None, "the game ended first"
        if any(m["type"] == "claim_route" for m in offered["moves"]):
            return
        play(base_url, token, game, prefer=("keep_tickets",))
    raise AssertionError(f"no route to claim after {moves} moves")


def finished_game(base_url: str, token: str, players: int = 3, seconds: float = 120) -> str:
    """A game of this person and greedy bots played to its end: the person keeps the tickets dealt and resigns,
    and the random bot that takes the seat over plays on (its moves are sure to be marked by an analysis)."""
    game = game_against_bots(base_url, token, players=players, fallback_bot="random")
    play(base_url, token, game)  # keep the tickets dealt
    call(base_url, token, "POST", f"/games/{game}/resign")
    deadline = time.monotonic() + seconds
    while call(base_url, token, "GET", f"/games/{game}")["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.5)
    return game


def lab(css: str) -> tuple[float, float, float]:
    """CIELAB of a computed CSS colour ("rgb(112, 32, 16)")."""
    channels = [int(c) / 255 for c in css[css.index("(") + 1 : css.index(")")].split(",")[:3]]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def distance(one: str, other: str) -> float:
    """How far apart two colours look (CIE76 delta E: about 2 is just noticeable)."""
    return sum((p - q) ** 2 for p, q in zip(lab(one), lab(other), strict=True)) ** 0.5


def person(contexts: Any, base_url: str, size: str = "desktop") -> tuple[Page, str, str, list[str]]:
    name, token = register(base_url)
    page = contexts(**SIZES[size]).new_page()
    page.set_default_timeout(15_000)
    errors = page_errors(page)
    signed_in(page, base_url, name, token)
    return page, name, token, errors


def drawn(page: Page) -> None:
    """The game page has drawn a state (and its log)."""
    expect(page.locator("div.game[data-seq]")).to_have_count(1)
    expect(page.locator("section.players")).to_be_visible()


def test_a_claimed_route_differs_in_fill_from_a_free_one_of_its_colour_and_claimable_ones_wear_a_halo(contexts, base_url):
    page, _, token, errors = person(contexts, base_url)
    game = game_against_bots(base_url, token, players=2)
    played_until(base_url, token, game, claimed=2)
    claimable(base_url, token, game)  # the person's turn, and some routes are theirs to claim
    page.goto(f"{base_url}/games/{game}")
    drawn(page)
    expect(page.locator("svg.board .route[data-owner]").first).to_be_attached()
    looks = page.evaluate(
        """async () => {
          const { FILL, SEAT_FILL } = await import('/static/colours.js');
          const rgb = (hex) => { const d = document.createElement('div'); d.style.color = hex; document.body.append(d);
            const c = getComputedStyle(d).color; d.remove(); return c; };
          const claimed = document.querySelector('svg.board .route[data-owner]');
          const colour = claimed.dataset.color;
          const free = document.querySelector(`svg.board .route[data-color="${colour}"]:not([data-owner])`);
          const car = (g) => getComputedStyle(g.querySelector('.car'));
          const ring = (g, part) => {
            const el = document.querySelector(`[data-halo="${g.dataset.route}"] .${part}`);
            return el ? getComputedStyle(el) : { display: 'none', stroke: 'none' };
          };
          const active = document.querySelector('svg.board .route.active:not([data-owner])');
          const idle = document.querySelector('svg.board .route:not(.active)');
          return {
            colour, owner: Number(claimed.dataset.owner),
            claimedFill: car(claimed).fill, freeFill: free && car(free).fill,
            claimedOpacity: car(claimed).fillOpacity, freeOpacity: free && car(free).fillOpacity,
            mark: claimed.querySelector('.owner-mark').getAttribute('d'),
            seatFills: SEAT_FILL.map(rgb), cardFills: Object.values(FILL).map(rgb),
            activeHalo: active
              && [ring(active, 'outer').display, ring(active, 'outer').stroke, ring(active, 'inner').stroke],
            idleHalo: ring(idle, 'outer').display,
            tabStops: document.querySelectorAll('svg.board [tabindex="0"]').length,
          };
        }"""
    )
    assert looks["freeFill"], f"no free {looks['colour']} route left to compare"
    assert looks["claimedFill"] != looks["freeFill"], looks
    assert looks["freeFill"].startswith("url("), looks  # the free one keeps its colour's pattern
    assert looks["claimedFill"] == looks["seatFills"][looks["owner"]], looks  # the owner's seat colour ...
    nearest = min(distance(seat, card) for seat in looks["seatFills"] for card in looks["cardFills"])
    assert nearest > 15, (nearest, looks)  # ... far from every card colour (the old red seat was 4 from the red card)
    assert float(looks["claimedOpacity"]) == 1 and float(looks["freeOpacity"]) < 1, looks  # solid trains, pale spaces
    assert looks["mark"], looks  # each train wears its seat's mark
    assert looks["activeHalo"] and looks["activeHalo"][0] != "none", looks
    assert looks["activeHalo"][1:] == ["rgb(0, 0, 0)", "rgb(255, 255, 255)"], looks  # black outside white
    assert looks["idleHalo"] == "none", looks
    assert looks["tabStops"] == 1, looks  # the board is one stop of the Tab key
    # A card's name fits on it (it was clipped: "purple", "orange").
    clipped = page.evaluate(
        """async () => {
          await (await import('/static/i18n.js')).loadLanguage();  // the words of this copy of the modules
          const { cardFace } = await import('/static/panels.js');
          const { CARD_COLOURS } = await import('/static/colours.js');
          const row = document.createElement('div');
          row.className = 'cards';
          document.querySelector('section.players').append(row);
          row.append(...CARD_COLOURS.map((c) => cardFace(c, 3)));
          const out = [...row.children].filter((card) => {
            const a = card.getBoundingClientRect(), b = card.querySelector('.label').getBoundingClientRect();
            return b.left < a.left + 1 || b.right > a.right - 1;
          }).map((card) => card.dataset.colour);
          row.remove();
          return out;
        }"""
    )
    assert not clipped, clipped
    assert not errors, errors


# Every city name shown: its box (in CSS px), whether it lies inside the board's frame, and any two shown that overlap.
NAMES = """() => {
  const svg = document.querySelector('svg.board'), box = svg.getBoundingClientRect();
  const shown = [...svg.querySelectorAll('.city .name')].map((t) => [t.textContent, t.getBoundingClientRect()])
    .filter(([, r]) => r.height > 0);
  const overlap = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  return {
    cities: svg.querySelectorAll('.city').length, shown: shown.length,
    shortest: Math.min(...shown.map(([, r]) => r.height)),
    outside: shown.filter(([, r]) => r.left < box.left || r.right > box.right || r.top < box.top
      || r.bottom > box.bottom).map(([name]) => name),
    overlapping: shown.flatMap(([n, a], i) => shown.slice(i + 1).filter(([, b]) => overlap(a, b)).map(([m]) => [n, m])),
  };
}"""


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_city_names_read_at_a_glance_no_zoom_button_covers_a_city_and_a_phone_starts_fitted(contexts, base_url, map_name):
    name, token = register(base_url)
    game = game_against_bots(base_url, token, players=2, map_name=map_name)
    for size in ("desktop", "phone"):
        page = contexts(**SIZES[size]).new_page()
        errors = page_errors(page)
        signed_in(page, base_url, name, token)
        page.goto(f"{base_url}/games/{game}")
        drawn(page)
        page.wait_for_timeout(200)
        seen = page.evaluate(
            """() => {
              const svg = document.querySelector('svg.board'), box = svg.getBoundingClientRect();
              const dots = [...svg.querySelectorAll('.city .dot')].map((d) => d.getBoundingClientRect());
              const buttons = [...document.querySelectorAll('.board-wrap .zoom button')]
                .map((b) => b.getBoundingClientRect());
              const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
              const names = [...svg.querySelectorAll('.city .name')].map((t) => t.getBoundingClientRect().height);
              return {
                covered: dots.filter((d) => buttons.some((b) => overlap(b, d))).length,
                outside: dots.filter((d) => d.left < box.left || d.right > box.right
                  || d.top < box.top || d.bottom > box.bottom).length,
                nameHeight: names.sort((a, b) => a - b)[Math.floor(names.length / 2)],
                boardWidth: box.width, pageWidth: document.documentElement.clientWidth,
                handTop: document.querySelector('section.hand').getBoundingClientRect().top + scrollY,
                ticketsTop: document.querySelector('section.tickets').getBoundingClientRect().top + scrollY,
              };
            }"""
        )
        assert seen["covered"] == 0, seen  # the zoom buttons sit beside the board, over no city
        assert seen["outside"] == 0, seen  # the whole board shows at first: fitted to the width on a phone
        # Issue #33: at the fitted view every name shown is at least 11 px tall (it was 8 on a phone), lies inside
        # the board's frame (San Francisco's was cut at the USA board's edge) and overlaps no other; on a phone the
        # minor ones may wait for a zoom, the rest show.
        names = page.evaluate(NAMES)
        assert names["shortest"] >= 11, names
        assert not names["outside"] and not names["overlapping"], names
        assert names["shown"] >= (names["cities"] if size == "desktop" else 0.85 * names["cities"]), names
        if size == "phone":
            zoom_in = page.get_by_role("button", name="Zoom in")
            zoom_in.click()
            zoom_in.click()  # twice: the view a third of the board's width
            page.wait_for_function("() => document.querySelectorAll('svg.board .city .name.hidden').length === 0")
        if size == "desktop":
            assert seen["nameHeight"] >= 13, seen  # a name's line box: about 12 px type (it was about 10)
        else:
            assert seen["boardWidth"] > seen["pageWidth"] - 40, seen
            assert seen["ticketsTop"] < 844, seen  # the hand and tickets on the first screen with the board
            assert seen["handTop"] < 844, seen
        assert not errors, errors


def test_no_page_is_wider_than_a_phone_and_the_finished_table_reads_right(contexts, base_url, artifacts: Path):
    """Every page at 390x844, each photographed there and on a desktop; after the game, the players' table shows the
    final totals, the market and the hand are gone, the two greedy bots are told apart, the score has no sideways
    scroll."""
    name, token = register(base_url)
    done = finished_game(base_url, token)
    live = game_against_bots(base_url, token, players=4, turn_seconds=600)
    played_until(base_url, token, live, claimed=4)
    moves_of(base_url, token, live)  # the person's turn
    pages = {
        "lobby": "/",
        "game": f"/games/{live}",
        "final-score": f"/games/{done}",
        "replay": f"/games/{done}/replay",
        "leaderboard": "/leaderboard",
        "user": f"/users/{name}",
        "settings": "/me",
    }
    for size in ("phone", "desktop"):
        page = contexts(**SIZES[size]).new_page()
        errors = page_errors(page)
        signed_in(page, base_url, name, token)
        for key, path in pages.items():
            page.goto(base_url + path)
            expect(page.locator(READY.get(key, "h1")).first).to_be_visible()
            page.wait_for_timeout(300)
            page.screenshot(path=artifacts / f"glance-{key}-{size}.png", full_page=True)
            if size == "phone":
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 390, f"{path} is {width} px wide on a 390 px phone"
        assert not errors, errors

    page = contexts(**DESKTOP).new_page()
    signed_in(page, base_url, name, token)
    page.goto(f"{base_url}/games/{done}")
    expect(page.locator("section.final table.score")).to_be_visible()
    expect(page.locator("section.market")).to_have_count(0)
    expect(page.locator("section.hand")).to_have_count(0)
    score = call(base_url, token, "GET", f"/games/{done}/score")
    for row in score["scores"]:
        expect(page.locator(f"section.players tr[data-seat='{row['seat']}'] [data-total]")).to_have_text(str(row["total"]))
    expect(page.locator("section.players th").nth(1)).to_have_text("Total")
    names = page.locator("section.players tbody td:first-child").all_text_contents()
    bots = [n for n in names if "greedy bot" in n]
    assert len(bots) == 2 and bots[0] != bots[1] and "seat 2" in bots[0] and "seat 3" in bots[1], names
    expect(page.locator(".turn-banner.over")).to_contain_text("Game over")


def test_the_turn_is_told_by_a_banner_the_title_and_a_chime_which_can_be_turned_off(contexts, base_url, artifacts: Path):
    ann, _, ann_token, ann_errors = person(contexts, base_url)
    bob, _, bob_token, bob_errors = person(contexts, base_url)
    game = call(
        base_url, ann_token, "POST", "/games", {"map": "europe", "players": 2, "ranked": False, "turn_seconds": 600}
    )["id"]
    call(base_url, bob_token, "POST", f"/games/{game}/join", {})
    call(base_url, ann_token, "POST", f"/games/{game}/start", {})
    first = state(base_url, ann_token, game)["view"]["first_seat"]
    seats = {s["username"]: s["seat"] for s in call(base_url, ann_token, "GET", f"/games/{game}")["seats"]}
    # The waiter moves second: its page waits for the turn to come (the other, the mover, moves by the API).
    assert sorted(seats.values()) == [0, 1]
    waiter, mover_token, errors = (bob, ann_token, bob_errors) if first == 0 else (ann, bob_token, ann_errors)
    waiter_seat = 1 - first
    waiter.goto(f"{base_url}/games/{game}")
    expect(waiter.locator(".turn-banner.mine")).to_contain_text("choose the destination tickets")
    expect(waiter).to_have_title(YOUR_TURN)  # the tickets dealt at the start: every seat decides
    boxes = waiter.locator("input[data-ticket]")
    keep = waiter.locator("[data-action=keep]")
    for i in range(boxes.count()):
        if keep.is_enabled():
            break
        boxes.nth(i).check()  # a press on the page: the browser lets it sound from now on
    keep.click()
    expect(waiter).not_to_have_title(YOUR_TURN)
    play(base_url, mover_token, game)  # the other keeps their tickets: their turn begins
    expect(waiter.locator(".turn-banner")).to_contain_text("to play (turn)")
    expect(waiter.locator(".turn-banner.mine")).to_have_count(0)
    expect(waiter.locator(f"section.players tr[data-seat='{first}'] .seat-clock")).to_be_visible()  # their clock runs
    waiter.screenshot(path=artifacts / "glance-their-turn-desktop.png")

    play(base_url, mover_token, game, prefer=())  # two cards from the deck
    play(base_url, mover_token, game, prefer=())
    expect(waiter).to_have_title(YOUR_TURN)
    expect(waiter.locator(".turn-banner.mine")).to_contain_text("Your move")
    expect(waiter.locator(".status-bar .clock")).to_contain_text("left to decide")
    expect(waiter.locator(f"section.players tr[data-seat='{waiter_seat}'] .seat-clock")).to_be_visible()
    expect(waiter.locator("div.game")).to_have_attribute("data-chimes", "1")  # the chime sounded once
    waiter.screenshot(path=artifacts / "glance-your-turn-desktop.png")
    phone = contexts(storage_state=waiter.context.storage_state(), **PHONE).new_page()
    phone.goto(f"{base_url}/games/{game}")
    expect(phone.locator(".turn-banner.mine")).to_be_visible()
    phone.wait_for_timeout(300)
    phone.screenshot(path=artifacts / "glance-your-turn-phone.png")
    phone.close()

    # Sound off: the next turn comes silently (and the choice is remembered).
    toggle = waiter.locator("button.sound-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    waiter.locator("section.market [data-deck]").click()
    # The first card is in the hand (the page shows the state after it) before the second is asked for: a click
    # while the first draw is still on its way is not a second draw.
    expect(waiter.locator(".turn-banner.mine")).to_contain_text("take a second card")
    waiter.locator("section.market [data-deck]").click()
    expect(waiter).not_to_have_title(YOUR_TURN)
    play(base_url, mover_token, game, prefer=())
    play(base_url, mover_token, game, prefer=())
    expect(waiter).to_have_title(YOUR_TURN)
    expect(waiter.locator("div.game")).to_have_attribute("data-chimes", "1")  # no second chime
    waiter.reload()
    expect(waiter.locator("button.sound-toggle")).to_have_attribute("aria-pressed", "false")
    assert waiter.evaluate("localStorage.getItem('ttr.turnSound')") == "off"
    assert not errors, errors


def test_skip_links_lead_past_the_board_which_is_one_stop_of_the_tab_key(contexts, base_url):
    page, _, token, errors = person(contexts, base_url)
    game = game_against_bots(base_url, token, players=2)
    # Keep the tickets dealt (again when the bot's own choice made the first try stale), until the person's turn:
    # stations and routes to act on.
    while not any(m["type"] == "draw_card" for m in (moves_of(base_url, token, game) or {"moves": []})["moves"]):
        assert play(base_url, token, game)
    page.goto(f"{base_url}/games/{game}")
    expect(page.locator("section.market [data-deck]")).to_be_enabled()
    assert page.locator("svg.board .city.active").count() > 20  # a station may be built in most cities ...
    assert page.locator("svg.board [tabindex='0']").count() == 1  # ... yet the board is one Tab stop

    skip = page.get_by_role("link", name="Skip to the market")
    for _ in range(20):
        page.keyboard.press("Tab")
        if skip.evaluate("el => el === document.activeElement"):
            break
    expect(skip).to_be_focused()  # among the first stops, and shown once focused
    expect(skip).to_be_visible()
    page.keyboard.press("Enter")
    expect(page.locator("section.market h2")).to_be_focused()
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.closest('section')?.id")
    assert focused == "market", focused  # the next stop is a card of the market
    hand = page.get_by_role("link", name="Skip to your hand")
    hand.focus()
    page.keyboard.press("Enter")
    expect(page.locator("section.hand h2")).to_be_focused()

    # In the board, the arrow keys move among the routes and cities one may act on.
    stop = page.locator("svg.board [tabindex='0']")
    stop.focus()
    before = page.evaluate("document.activeElement.getAttribute('aria-label')")
    for key in ("ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"):
        page.keyboard.press(key)
        after = page.evaluate("document.activeElement.getAttribute('aria-label')")
        if after != before:
            break
    assert after != before and page.evaluate("document.activeElement.classList.contains('active')"), (before, after)
    assert page.locator("svg.board [tabindex='0']").count() == 1
    assert not errors, errors


def test_the_log_says_an_before_a_vowel_folds_the_market_into_the_draw_and_tells_two_bots_apart(contexts, base_url):
    page = contexts().new_page()
    page.goto(f"{base_url}/signin")
    lines = page.evaluate(
        """async () => {
          """ + WORDS + """
          const ctx = { seats: [{ seat: 0, username: 'ann', bot: null }, { seat: 1, username: null, bot: 'greedy' },
                                { seat: 2, username: null, bot: 'greedy' }],
            board: { cities: {}, routes: {} } };
          const take = (seq, seat, card) => ({ seq, type: 'card_drawn', seat, data: { seat, source: 'market', card } });
          const turned = (seq, card) => ({ seq, type: 'market_revealed', seat: null, data: { slots: [1], cards: [card] } });
          const end = (seq, seat) => ({ seq, type: 'turn_ended', seat, data: { seat } });
          return logLines([
            { seq: 1, type: 'market_revealed', seat: null,
              data: { slots: [0, 1, 2, 3, 4], cards: ['red', 'blue', 'green', 'black', 'white'] } },
            take(2, 0, 'orange'), turned(3, 'purple'), take(4, 0, 'red'), turned(5, 'locomotive'), end(6, 0),
            { seq: 7, type: 'card_drawn', seat: 1, data: { seat: 1, source: 'deck' } },
            { seq: 8, type: 'card_drawn', seat: 1, data: { seat: 1, source: 'deck' } }, end(9, 1),
            take(10, 2, 'locomotive'), turned(11, 'orange'), end(12, 2),
          ], ctx).map((l) => [l.seq, l.text]);
        }"""
    )
    assert lines == [
        [1, "Face up in the market: red, blue, green, black, white."],
        [5, "ann took an orange and a red from the market; turned up: purple, locomotive."],
        [8, "greedy bot (seat 2, emerald) drew two cards from the deck."],
        [11, "greedy bot (seat 3, ruby) took a locomotive from the market; turned up: orange."],
    ]
