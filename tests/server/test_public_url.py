"""`make run`'s public URL follows its port: the links the embedded server writes into its mails (var/mail/) point
at the server that wrote them, and following one opens the page it names."""

from __future__ import annotations

import email
import email.policy
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from bench.live.api_client import client
from bench.live.embedded import embedded_server
from bench.live.processes import LINUX

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not LINUX, reason="the live-server helpers read /proc")]

MAIL_SECONDS = 60  # the worker sends the confirmation: on a busy machine it can take a while
SEPARATOR = "-" * 79  # between the messages of one file (Django's file-based mail backend)


def mails_to(folder: Path, address: str) -> list[str]:
    """The plain-text bodies of the messages written to `folder` for `address`."""
    bodies = []
    for path in sorted(folder.glob("*")) if folder.is_dir() else []:
        for chunk in path.read_text(errors="replace").split(f"\n{SEPARATOR}\n"):
            if not chunk.strip():
                continue
            message = email.message_from_string(chunk.strip("\n"), policy=email.policy.default)
            if address in str(message["To"] or ""):
                part = message.get_body(preferencelist=("plain",))
                bodies.append(str(part.get_content()) if part is not None else "")
    return bodies


def confirmation_link(folder: Path, address: str) -> str:
    deadline = time.monotonic() + MAIL_SECONDS
    while time.monotonic() < deadline:
        for text in mails_to(folder, address):
            if found := re.search(r"\S+/confirm-email\?\S+", text):
                return found.group(0)
        time.sleep(0.2)
    raise AssertionError(f"no confirmation mail to {address} in {folder} after {MAIL_SECONDS} s")


def test_a_mailed_link_of_the_embedded_server_opens_its_page_on_the_port_it_serves() -> None:
    """Finding 13 of #30: with `PORT=19537 make run` every link in var/mail/ pointed at localhost:8000. Now a
    confirmation mail written by a server on a free port links to that port, the link opens the web client's
    page, and the token it carries confirms the address."""
    with embedded_server() as server:
        ada = client(server, "ada_public_url")
        assert ada.patch("/me", json={"email": "ada@example.org"}).status_code == 200
        link = confirmation_link(server.var_dir / "mail", "ada@example.org")

        assert urlsplit(link).port == server.port, link
        page = httpx.get(link, timeout=30)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html"), (link, page.text[:300])
        # What the page does with it: the token in the link confirms the address.
        token = parse_qs(urlsplit(link).query)["token"][0]
        confirmed = httpx.post(f"{server.api}/me/email/confirm", json={"token": token}, timeout=30)
        assert confirmed.status_code == 200 and confirmed.json() == {"email": "ada@example.org"}, confirmed.text
