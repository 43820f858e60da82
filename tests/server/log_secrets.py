"""Every kind of secret a session holds, handed to a live server the ways clients hand it over, and the search for
them in what the server wrote (finding 2 of #30): tests/server/test_log_secrets.py (`make run`) and
tests/faults/test_log_secrets.py (the production stack) drive a server with `drive(base, var_dir)` and read its
files with `leaks(...)`.

The secrets: a password (registration, login, a wrong login), three API tokens (the registration's and a login's;
a second person's), a private game's invitation token, an e-mail confirmation token (read from the mail the worker
wrote to `var_dir/mail/`), an unsubscribe token and a bad token (secrets too: someone's guess at one). They travel in
a socket's `?token=` (older clients), as the `token.<TOKEN>` subprotocol, in the links' query strings and in bodies.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

MAIL_SECONDS = 90  # the worker sends the confirmation mail; on a busy machine it may take a while
CONFIRMATION = re.compile(r"/confirm-email\?token=([^\s\"'<>&]+)")
REDACTED_SOCKET = "?token=[redacted]"  # how the line of the `?token=` socket reads now


def drive(base: str, var_dir: Path, prefix: str) -> list[str]:
    """Use every secret against the server at `base` (http://host:port); the secrets, for `leaks`."""
    password = f"pw-{secrets.token_hex(8)}"
    http = httpx.Client(base_url=f"{base}/api", timeout=60)
    first = _registered(http, f"{prefix}a", password)
    login = http.post("/auth/token", json={"username": f"{prefix}a", "password": password})
    assert login.status_code == 200, login.text
    second = str(login.json()["token"])
    assert http.post("/auth/token", json={"username": f"{prefix}a", "password": f"{password}x"}).status_code == 400
    guest = _registered(http, f"{prefix}b", password)
    bad = secrets.token_hex(20)
    unsubscribe = secrets.token_urlsafe(24)

    mine = {"Authorization": f"Token {first}"}
    created = http.post("/games", json={"map": "europe", "players": 2, "private": True}, headers=mine)
    assert created.status_code == 201, created.text
    game, invite = created.json()["id"], str(created.json()["invite"])
    assert httpx.get(f"{base}/games/{game}?invite={invite}", timeout=60).status_code == 200  # the link's page
    joined = http.post(f"/games/{game}/join", json={"invite": invite}, headers={"Authorization": f"Token {guest}"})
    assert joined.status_code == 200, joined.text
    assert http.get("/games", params={"token": first}).status_code == 200  # a token where none belongs

    ws = base.replace("http://", "ws://", 1)
    _hello(connect(f"{ws}/ws/games/{game}/?token={first}", open_timeout=30), seat=0)
    _hello(connect(f"{ws}/ws/games/{game}/", subprotocols=["ttr.v1", f"token.{second}"], open_timeout=30), seat=0)
    _hello(connect(f"{ws}/ws/me/?token={guest}", open_timeout=30))
    _hello(connect(f"{ws}/ws/me/", subprotocols=["ttr.v1", f"token.{second}"], open_timeout=30))
    _refused(connect(f"{ws}/ws/games/{game}/?token={bad}", open_timeout=30))
    _refused(connect(f"{ws}/ws/me/", subprotocols=["ttr.v1", f"token.{bad}"], open_timeout=30))

    confirmation = _confirmed(http, base, var_dir, mine)
    assert httpx.get(f"{base}/unsubscribe?token={unsubscribe}", timeout=60).status_code == 200
    assert http.post("/me/unsubscribe", json={"token": unsubscribe}).status_code < 500  # refused: a made-up token
    signature = confirmation.rsplit(":", 1)[1]  # the token's secret part, however the line quotes the rest
    return [password, first, second, guest, bad, invite, confirmation, quote(confirmation), signature, unsubscribe]


def _registered(http: httpx.Client, username: str, password: str) -> str:
    answer = http.post("/auth/register", json={"username": username, "password": password})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["token"])


def _hello(socket: ClientConnection, seat: int | None = None) -> None:
    """The socket is signed in (a game's: in `seat`), speaking `ttr.v1` when it offered it."""
    with socket:
        offered = socket.request.headers.get("Sec-WebSocket-Protocol") if socket.request else None
        assert socket.subprotocol == ("ttr.v1" if offered else None), (offered, socket.subprotocol)
        hello = json.loads(socket.recv(timeout=30))
        assert hello["type"] == "hello", hello
        if seat is not None:
            assert hello["state"]["your_seat"] == seat, hello


def _refused(socket: ClientConnection) -> None:
    with socket:
        try:
            while True:
                socket.recv(timeout=30)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 4401, closed


def _confirmed(http: httpx.Client, base: str, var_dir: Path, headers: dict[str, str]) -> str:
    """Ask for an address, wait for the worker's mail, open its link's page and confirm: the mail's token."""
    address = f"{urlsplit(base).port}-{secrets.token_hex(4)}@example.org"
    assert http.patch("/me", json={"email": address}, headers=headers).status_code == 200
    deadline = time.monotonic() + MAIL_SECONDS
    while time.monotonic() < deadline:
        for mail in (var_dir / "mail").glob("*"):
            text = mail.read_text(errors="replace")
            if address in text and (found := CONFIRMATION.search(text)):
                assert httpx.get(f"{base}/confirm-email?token={found[1]}", timeout=60).status_code == 200
                token = unquote(found[1])
                answer = http.post("/me/email/confirm", json={"token": token})
                assert answer.status_code == 200, (answer.text, text)
                return token
        time.sleep(0.2)
    raise AssertionError(f"no confirmation mail to {address} in {MAIL_SECONDS} s")


def written(paths: Iterable[Path]) -> dict[str, str]:
    """The text of every file (a log, a captured stream) under these paths, by path: not the mails (the links
    are meant to be in them), the database files or the broker's messages."""
    found = {}
    for root in paths:
        for path in [root] if root.is_file() else sorted(root.rglob("*")):
            if path.is_file() and not ({"mail", "broker", "metrics"} & set(path.parts)) and "sqlite" not in path.name:
                found[str(path)] = path.read_text(errors="replace")
    return found


def leaks(texts: dict[str, str], secret_values: list[str]) -> list[str]:
    """Where a secret shows: `path: the line` for each."""
    return [
        f"{path}: {line[:300]}"
        for path, text in texts.items()
        for line in text.splitlines()
        if any(value in line for value in secret_values)
    ]


def wait_for(marker: str, paths: Iterable[Path], seconds: float = 30) -> None:
    """Wait until a file under `paths` holds `marker` (the line a server writes a moment after the event)."""
    deadline = time.monotonic() + seconds
    while not any(marker in text for text in written(paths).values()):
        assert time.monotonic() < deadline, f"no line with {marker!r} in {seconds} s"
        time.sleep(0.2)


def not_json(text: str) -> list[str]:
    """The lines of `text` that are not one JSON object."""
    return [line for line in text.splitlines() if line.strip() and not _object(line)]


def _object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False
