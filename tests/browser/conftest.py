"""Browser tests: Debian's Chromium driven by Playwright for Python against a live embedded server (as `make run`).

Skipped, with the reason, when Playwright or /usr/bin/chromium is missing (`make test` installs both on Debian).
Screenshots go to test-artifacts/browser/ (gitignored).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.live.embedded import LiveServer, embedded_server
from bench.live.processes import LINUX
from tests.browser.watch import CATALOGUE_KEYS, PageWatch

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
STATE_MS = 20_000  # an `expect`'s default deadline (a state reached at once when quiet)

try:
    from playwright.sync_api import Browser, BrowserContext, expect, sync_playwright
except ImportError:  # pragma: no cover - the reason is reported by the skip below
    sync_playwright = None


def _missing() -> str | None:
    if sync_playwright is None:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        return f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)"
    if not LINUX:
        return "the live server helpers need Linux"
    return None


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def live() -> Iterator[LiveServer]:
    if reason := _missing():
        pytest.skip(reason)
    # Notifications are mailed every 2 s rather than every minute: test_by_day opens the links of such a mail.
    # The session signs up dozens of people within a minute, from one address: past the auth throttle (20 a
    # minute, tested in tests/server/test_auth.py), later tests' sign-ups would be refused.
    # A game's analysis on a small budget (its worker judges a short game in seconds).
    extra = {
        "TTR_MAIL_SECONDS": "2", "AUTH_THROTTLE_RATE": "10000/min", "TTR_ANALYSIS_SAMPLES": "8",
        "TTR_ANALYSIS_SINGLE": "1", "TTR_MAX_LIVE_GAMES": "100",  # the lobby's paging test opens 23 games
    }
    saved = {name: os.environ.get(name) for name in extra}
    os.environ.update(extra)
    try:
        with embedded_server() as server:
            yield server
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if reason := _missing():
        pytest.skip(reason)
    assert sync_playwright is not None
    # Finding 14 of #30: Playwright's own 5 s for an `expect` is too short for a state that waits on a socket, a
    # bot or a worker of a machine whose both cores are busy; a test that needs longer says so.
    expect.set_options(timeout=STATE_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def expected_errors() -> Callable[..., None]:
    """A test declares the failed requests and console errors its pages are meant to meet (a wrong password, a
    game that does not exist): each a regular expression searched in the lines `contexts` collects, such as
    `400 POST /api/auth/login`, `console: ...`, `pageerror: ...` or `requestfailed GET /api/... net::...`."""
    patterns: list[str] = []

    def expect(*more: str) -> None:
        patterns.extend(more)

    expect.patterns = patterns  # type: ignore[attr-defined]
    return expect


@pytest.fixture
def contexts(
    browser: Browser, expected_errors: Callable[..., None], base_url: str
) -> Iterator[Callable[..., BrowserContext]]:
    """Makes browser contexts (each a person with their own storage), all closed after the test, failed or not.

    Finding 12 and 14 of #30: a normal session logs no error and shows no message key. Every page of these
    contexts is watched: a console error, an uncaught exception, a request that failed, an answer of 400 or more,
    and any catalogue key (frontend/locales/en.json) written into the page at any moment (the words not loaded
    yet). The test fails at teardown on any of them it did not declare with `expected_errors`."""
    made: list[BrowserContext] = []
    watch = PageWatch(base_url)

    def make(**options: Any) -> BrowserContext:
        made.append(browser.new_context(**options))
        watch.attach(made[-1])
        return made[-1]

    yield make
    for context in made:
        for page in context.pages:
            watch.last_look(page)
    watch.closing = True  # what closing the pages cuts short is not the page's doing
    for context in made:
        context.close()
    allowed = list(expected_errors.patterns)  # type: ignore[attr-defined]
    errors = [line for line in watch.errors if not any(re.search(p, line) for p in allowed)]
    keys = sorted(watch.keys_seen & CATALOGUE_KEYS)
    if errors or keys:
        pytest.fail(
            "the pages logged errors the test did not expect, or showed message keys:\n"
            + "\n".join(errors + [f"message key shown: {key}" for key in keys]),
            pytrace=False,
        )


@pytest.fixture
def base_url(live: LiveServer) -> str:
    return f"http://127.0.0.1:{live.port}"


@pytest.fixture(scope="session")
def person(live: LiveServer) -> Any:
    """A normal session's person with a daily game in play and a finished game (tests/browser/sessions.py), made
    once for the tests that look at every page."""
    from tests.browser.sessions import person_with_games  # Playwright's import: after the skip above

    return person_with_games(f"http://127.0.0.1:{live.port}")


def page_errors(page: Any) -> list[str]:
    """Collects uncaught page errors and console errors into a list the test can assert empty."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))

    def console(message: Any) -> None:
        # A failed load is logged too ("409" while /score waits for the worker): answers the page expects.
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            errors.append(f"console: {message.text}")

    page.on("console", console)
    return errors
