"""What the browser tests watch on every page (tests/browser/conftest.py `contexts`): the errors a person's console
would show (console errors, uncaught exceptions, failed requests, answers of 400 or more) and any message key of
the catalogue written into the page, at any moment of its life rather than only at the end (a header drawn before
the words were loaded and drawn again after is caught too). Each error is one line, `400 POST /api/auth/login`,
`console: ...`, `pageerror: ...` or `requestfailed GET /path net::...`, for a test to declare the ones it expects.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
CATALOGUE_KEYS = frozenset(json.loads((FRONTEND / "locales" / "en.json").read_text(encoding="utf-8")))
KEY_LIKE = re.compile(r"\b[a-z][a-z0-9_]*(?:\.[A-Za-z0-9_-]+)+")  # as KEY below

# In the page: every text written (text nodes, the attributes a person or a screen reader meets, the title) is
# searched for words shaped like a key (`log.claimed`, `nav.sign_in`); each new one is reported once per page. The
# Python side keeps those that are keys of the catalogue.
KEY_WATCH = """
(() => {
  const KEY = /\\b[a-z][a-z0-9_]*(?:\\.[A-Za-z0-9_-]+)+/g;
  const ATTRIBUTES = ["aria-label", "title", "placeholder", "alt", "value"];
  const seen = new Set();
  const report = (text) => {
    for (const word of String(text || "").match(KEY) || []) {
      if (seen.has(word)) continue;
      seen.add(word);
      window.__ttrKeyLike?.(word);
    }
  };
  const scan = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return report(node.data);
    if (node.nodeType !== Node.ELEMENT_NODE || node.localName === "script" || node.localName === "style") return;
    for (const name of ATTRIBUTES) if (node.hasAttribute(name)) report(node.getAttribute(name));
    for (const child of node.childNodes) scan(child);
  };
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === "characterData") report(record.target.data);
      else if (record.type === "attributes") report(record.target.getAttribute(record.attributeName));
      else record.addedNodes.forEach(scan);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ATTRIBUTES });
})();
"""


class PageWatch:
    """Collects, over every page of the contexts it is attached to, the error lines and the key-shaped words."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.errors: list[str] = []
        self.keys_seen: set[str] = set()
        self.closing = False

    def attach(self, context: Any) -> None:
        context.expose_binding("__ttrKeyLike", lambda source, word: self.keys_seen.add(str(word)))
        context.add_init_script(KEY_WATCH)
        context.on("page", self._page)
        context.on("console", self._console)
        context.on("requestfailed", self._request_failed)
        context.on("response", self._response)

    def last_look(self, page: Any) -> None:
        """The text on the page now (the observer reports as it goes; this also lets pending events arrive)."""
        try:
            text = page.evaluate("() => document.body ? document.body.innerText + ' ' + document.title : ''")
        except Exception:  # a page closed or navigating just then: the observer has seen what it showed
            return
        self.keys_seen.update(KEY_LIKE.findall(str(text)))

    def _path(self, url: str) -> str:
        return url[len(self.base_url):] if url.startswith(self.base_url) else url

    def _add(self, line: str) -> None:
        if not self.closing:
            self.errors.append(line)

    def _page(self, page: Any) -> None:
        page.on("pageerror", lambda error: self._add(f"pageerror: {error} ({self._path(page.url)})"))

    def _console(self, message: Any) -> None:
        # Chromium also logs each answer of 400 or more, and each failed request, as a console error without its
        # address ("Failed to load resource"): those come with their address from the events below.
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            where = self._path(message.page.url) if message.page else "?"
            self._add(f"console: {message.text} ({where})")

    def _request_failed(self, request: Any) -> None:
        failure = request.failure or ""
        # A fetch cut short because its page went elsewhere (a link followed, a game opened) is the browser's
        # doing, not the page's: nobody sees it. Any other failure (refused, reset, timed out) counts.
        if "net::ERR_ABORTED" in failure:
            return
        self._add(f"requestfailed {request.method} {self._path(request.url)} {failure}")

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self._add(f"{response.status} {response.request.method} {self._path(response.url)}")
