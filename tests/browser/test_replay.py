"""The replay starts with the board (issue #33, frontend/replay.js): on a phone (390x844) the first screen shows the
board, the final score folded under it; it steps by turn (each seat's whole turn: two card draws, a tunnel's reveal
and payment are one step), each event still reachable (the event buttons, Shift with an arrow key), and a player of
the game goes to their previous and next move; by touch on a phone, by keyboard on a desktop.
Screenshots: test-artifacts/browser/replay-*.png."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.test_board import DESKTOP, PHONE, finished_game
from tests.browser.test_edges import call, register, signed_in

# The events that end a step (a seat's turn, with the last round's start after the turn that started it; before the
# first turn, each seat's first tickets), and those beside the moves, of any seat, that a turn may hold.
STEP_ENDS = {"turn_ended", "tickets_kept", "last_round_started"}
ASIDE = {"seat_resigned", "seat_replaced", "time_granted", "hint_used"}


def events_of(base_url: str, token: str, game: str) -> dict[int, dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    while True:
        page = call(base_url, token, "GET", f"/games/{game}/events?after={max(found, default=0)}")
        found.update({e["seq"]: e for e in page["events"]})
        if not page["events"] or max(found) >= page["seq"]:
            return found


def at(page: Page) -> tuple[int, int]:
    """The replay's position: (its turn, its event's seq)."""
    root = page.locator(".game.replay")
    return int(root.get_attribute("data-turn") or 0), int(root.get_attribute("data-at") or 0)


def moved(page: Page, before: tuple[int, int]) -> tuple[int, int]:
    page.wait_for_function(
        "(b) => { const r = document.querySelector('.game.replay');"
        " return r && (Number(r.dataset.turn) !== b[0] || Number(r.dataset.at) !== b[1]); }", arg=list(before)
    )
    return at(page)


def test_the_replay_opens_on_the_board_and_steps_by_turn_by_event_and_to_my_moves(contexts, base_url, artifacts: Path):
    name, token = register(base_url)
    game = finished_game(base_url, token, players=3, seconds=180)
    events = events_of(base_url, token, game)
    last = max(events)

    # A phone, by touch: the board is the first screen, the final score folded under it.
    phone = contexts(**PHONE).new_page()
    signed_in(phone, base_url, name, token)
    phone.goto(f"{base_url}/games/{game}/replay")
    board = phone.locator("svg.board")
    expect(board.locator(".route").first).to_be_attached()
    expect(phone.locator(".game.replay")).to_have_attribute("data-at", str(last))
    # The board is fitted to the screen on a later frame (later still on a busy machine): wait for it, not a while.
    phone.wait_for_function(
        "() => { const b = document.querySelector('svg.board'); if (!b) return false;"
        " const r = b.getBoundingClientRect();"
        " return r.height > 150 && Math.min(r.bottom, innerHeight) - Math.max(r.top, 0) >= 0.9 * r.height; }"
    )
    box = board.bounding_box()
    assert box is not None and box["height"] > 150, box
    seen = min(box["y"] + box["height"], 844) - max(box["y"], 0)
    assert seen >= 0.9 * box["height"], f"the first screen shows {seen:.0f} of the board's {box['height']:.0f} px: {box}"
    final = phone.locator("details.final")
    expect(final).not_to_have_attribute("open", "")
    expect(final.locator("summary")).to_contain_text("Final score")
    expect(final.locator("table.score")).not_to_be_visible()
    final_top = final.bounding_box()
    assert final_top is not None and final_top["y"] >= box["y"] + box["height"], "the final score lies under the board"
    phone.screenshot(path=artifacts / "replay-phone.png")
    final.locator("summary").tap()
    expect(final.locator("table.score")).to_be_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=artifacts / "replay-phone-final.png", full_page=True)

    # Back by turn: each step ends a seat's whole turn.
    turns = int(phone.locator("input[data-action=slider]").get_attribute("max") or 0)
    assert turns < last / 2, f"{turns} steps for {last} events: not by turn"
    expect(phone.locator(".game.replay")).to_have_attribute("data-turn", str(turns))
    position = at(phone)
    for _ in range(12):
        phone.locator("[data-step=previous]").tap()
        position = moved(phone, position)
        event = events[position[1]]
        assert event["type"] in STEP_ENDS, event
        expect(phone.locator(".replay-at")).to_contain_text(f"Turn {position[0]} of {turns}, event {position[1]} of {last}")
    # The event buttons reach one event at a time, and the turn stays the one that holds it.
    phone.locator("[data-step=event_previous]").tap()
    inside = moved(phone, position)
    assert inside == (position[0], position[1] - 1), (position, inside)
    phone.locator("[data-step=event_next]").tap()
    assert moved(phone, inside) == position

    # My moves: the person's seat is 0 (a random bot played it on after they resigned: still seat 0's turns).
    phone.locator("[data-step=mine_next]").tap()
    mine = moved(phone, position)
    assert events[mine[1]]["seat"] == 0 and events[mine[1]]["type"] in STEP_ENDS, events[mine[1]]
    phone.locator("[data-step=mine_previous]").tap()
    earlier = moved(phone, mine)
    assert earlier[1] < mine[1] and events[earlier[1]]["seat"] == 0, events[earlier[1]]

    # A desktop, by keyboard: the arrows a turn, Shift with an arrow an event; the first turn is the deal.
    page = contexts(**DESKTOP).new_page()
    signed_in(page, base_url, name, token)
    page.goto(f"{base_url}/games/{game}/replay")
    expect(page.locator(".game.replay")).to_have_attribute("data-at", str(last))
    slider = page.locator("input[data-action=slider]")
    slider.focus()
    page.keyboard.press("Home")
    start = moved(page, (turns, last))
    assert start[0] == 1 and events[start[1] + 1]["type"] == "tickets_kept", (start, events[start[1] + 1])
    expect(page.locator("svg.board [data-owner]")).to_have_count(0)
    # The turns in order: each a seat's whole turn (its card draws, a tunnel's reveal and payment together).
    ends, position = [start[1]], start
    while len(ends) < 40 and position[1] < last:
        page.keyboard.press("ArrowRight")
        position = moved(page, position)
        ends.append(position[1])
    whole = [[events[seq] for seq in range(a + 1, b + 1)] for a, b in itertools.pairwise(ends)]
    for turn in whole:
        seats = {e["seat"] for e in turn if e.get("seat") is not None and e["type"] not in ASIDE}
        assert len(seats) == 1 and turn[-1]["type"] in STEP_ENDS, turn
    assert any(sum(e["type"] == "card_drawn" for e in turn) == 2 for turn in whole), "no turn of two card draws"
    page.keyboard.press("Shift+ArrowLeft")
    assert moved(page, position) == (position[0], position[1] - 1)
    page.locator("body").click(position={"x": 5, "y": 200})  # the focus off the slider: the page's own keys
    page.keyboard.press("ArrowLeft")
    assert moved(page, (position[0], position[1] - 1))[0] == position[0] - 1
    page.screenshot(path=artifacts / "replay-desktop.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400
