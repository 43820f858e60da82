"""Table talk over the game's socket (games/table/chat.py, games/realtime/consumer.py), against two real web processes
behind Redis and PostgreSQL: two players on one process and a spectator on the other. Lines arrive in order to
those who may read them, the spectators' channel stays theirs, a mute holds live, a line staff hide is withdrawn
live, refusals come back as the socket's usual `error`, and no text a client sends breaks its socket."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.table import chat
from tests.server import sockets
from tests.server.helpers import register, seated_game
from tests.server.sockets import Socket, Web, token
from tests.server.worker import needs_real_services

pytestmark = [pytest.mark.django_db(transaction=True), needs_real_services()]
webs, web = sockets.webs, sockets.web


def said(socket: Socket, text: str) -> dict[str, Any]:
    return socket.next(lambda m: m["type"] == "chat" and m["text"] == text)


def chat_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [m["text"] for m in messages if m["type"] == "chat"]


def test_players_and_a_spectator_on_two_processes_talk_in_order_in_their_channels(webs: tuple[Web, Web]) -> None:
    table = seated_game("cl-a", "europe", 2)
    watcher = register("cl-a-watch")
    ann, bob = (Socket.open(webs[0].ws(table.game_id, token(table, s)), f"seat {s}") for s in (0, 1))
    spectator = Socket.open(webs[1].ws(table.game_id, watcher.token), "spectator")  # type: ignore[attr-defined]
    for n in range(3):
        ann.send({"type": "chat", "text": f"table {n}"})
    spectator.send({"type": "chat", "text": "from the rail"})
    for socket in (ann, bob, spectator):
        last = said(socket, "table 2")
        assert last["channel"] == "table" and last["username"] == "cl-a0" and {"id", "at"} <= set(last)
    for socket in (ann, bob, spectator):
        socket.quiet(0.5)  # (the rail's line may have come before "table 2": it was written on the other process)
        lines = chat_texts(socket.received)
        assert [t for t in lines if t.startswith("table")] == ["table 0", "table 1", "table 2"], socket.name  # in order
        assert ("from the rail" in lines) == (socket is spectator), socket.name  # the players never hear the rail
    rail = next(m for m in spectator.received if m["type"] == "chat" and m["text"] == "from the rail")
    assert rail["channel"] == "spectators" and rail["username"] == "cl-a-watch"

    spectator.send({"type": "chat", "text": "let me at the table", "channel": "table"})
    refused = spectator.next(lambda m: m["type"] == "error")
    assert refused["status"] == 403 and refused["error"]["code"] == "spectator"
    anonymous = Socket.open(webs[1].ws(table.game_id), "anonymous")
    anonymous.send({"type": "chat", "text": "hello?"})
    assert anonymous.next(lambda m: m["type"] == "error")["status"] == 401
    bob.send({"type": "chat", "text": "x", "color": "red"})
    assert bob.next(lambda m: m["type"] == "error")["error"]["field"] == "color"
    for socket in (ann, bob, spectator, anonymous):
        socket.close()


def test_a_mute_holds_live_and_a_line_staff_hide_is_withdrawn_from_every_socket(webs: tuple[Web, Web]) -> None:
    table = seated_game("cl-m", "europe", 3)
    ann, bob, cy = (Socket.open(webs[s % 2].ws(table.game_id, token(table, s)), f"seat {s}") for s in range(3))
    assert table.clients[1].post("/api/users/cl-m0/mute").status_code == 200
    ann.send({"type": "chat", "text": "muted words"})
    line = said(cy, "muted words")
    ann.send({"type": "chat", "text": "after"})
    said(cy, "after")
    bob.quiet(0.5)
    assert "muted words" not in chat_texts(bob.received) and "after" not in chat_texts(bob.received)

    staff = get_user_model().objects.create_user("cl-staff", is_staff=True)
    chat.hide([line["id"]], staff=staff)
    for socket in (ann, cy):
        assert socket.next(lambda m: m["type"] == "chat_hidden")["id"] == line["id"]
    for socket in (ann, bob, cy):
        socket.close()


def test_the_rate_limit_answers_on_the_socket_and_the_socket_goes_on(web: Web) -> None:
    table = seated_game("cl-r", "usa", 2)
    ann = Socket.open(web.ws(table.game_id, token(table, 0)), "seat 0")
    for n in range(chat.RATE_MESSAGES + 1):
        ann.send({"type": "chat", "text": f"spam {n}"})
    limited = ann.next(lambda m: m["type"] == "error")
    assert limited["status"] == 429 and limited["error"]["code"] == "rate_limited"
    ann.send({"type": "resync", "after": 0})
    assert ann.next(lambda m: m["type"] == "events")["resync"] is True  # still serving
    ann.close()


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.text(min_size=0, max_size=520))
def test_no_text_breaks_the_socket_and_what_is_stored_comes_back_as_the_same_text(web: Web, text: str) -> None:
    table = fuzz_table()
    socket = Socket.open(web.ws(table.game_id, token(table, 0)), "fuzz")
    socket.send({"type": "chat", "text": text})
    answer = socket.next(lambda m: m["type"] in ("chat", "error"))
    try:
        expected = chat.checked_text(text)
    except Exception:
        assert answer["type"] == "error" and answer["error"]["code"] == "invalid", answer
    else:
        assert answer["type"] == "chat" and answer["text"] == expected
    socket.send({"type": "resync", "after": 0})
    assert socket.next(lambda m: m["type"] == "events")["resync"] is True
    socket.close()


_fuzz: dict[str, Any] = {}


def fuzz_table() -> Any:
    """One table for every example (a new one when the rate limit would be reached)."""
    if _fuzz.get("used", chat.RATE_MESSAGES) >= chat.RATE_MESSAGES:
        _fuzz["table"] = seated_game(f"cl-f{len(_fuzz.get('made', ''))}-", "usa", 2)
        _fuzz["used"], _fuzz["made"] = 0, _fuzz.get("made", "") + "x"
    _fuzz["used"] += 1
    return _fuzz["table"]
