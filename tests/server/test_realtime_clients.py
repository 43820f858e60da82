"""What a client of the live stream can do and cannot: authenticate, be present, come back, be refused.

Everything runs against real web processes (uvicorn, PostgreSQL, Redis) with `websockets` clients: presence is
shared by two processes, a dropped client resyncs exactly what it missed, refused moves carry exactly the HTTP
error bodies, and a hypothesis fuzz of client messages neither crashes a socket nor changes the game.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from websockets.exceptions import ConnectionClosed

from games.store.models import Game
from tests.server import sockets
from tests.server.helpers import PASSWORD, body, create_game, register, seated_game, url
from tests.server.sockets import Socket, Web, keep_all_tickets, socket_move, token
from tests.server.worker import needs_real_services
from ttr_server import limits

pytestmark = [pytest.mark.django_db(transaction=True), needs_real_services()]
web = sockets.web


@pytest.fixture(scope="module")
def webs(django_db_setup: Any) -> Iterator[tuple[Web, Web]]:
    """The module's two web processes, without the per-socket message rate (10 a second, then 4029): the fuzz
    sends each message as soon as the last is answered. The limit has its own tests (test_realtime_limits.py)."""
    with sockets.web_servers(2, TTR_WS_MESSAGES_PER_SECOND="100000", TTR_WS_BURST="100000") as (a, b):
        yield a, b



def closed_with(socket: Socket) -> int | None:
    try:
        socket.connection.recv(timeout=5)
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None
    raise AssertionError("the socket stayed open")


def test_a_bad_expired_or_revoked_token_is_refused_and_an_anonymous_socket_watches_but_never_moves(web: Web) -> None:
    table = seated_game("rc-a", "europe", 2)
    bad = Socket.open(web.ws(table.game_id, "0" * 40), "bad token")
    assert bad.hello == {"type": "error", "error": {"code": "authentication_failed", "detail": "Invalid token."}}
    assert closed_with(bad) == 4401
    issued = Token.objects.get(key=token(table, 1)).created
    Token.objects.filter(key=token(table, 1)).update(created=issued - timedelta(days=31))
    expired = Socket.open(web.ws(table.game_id, token(table, 1)), "expired token")
    assert expired.hello["error"]["code"] == "authentication_failed" and closed_with(expired) == 4401
    anonymous = Socket.open(web.ws(table.game_id), "anonymous")
    assert anonymous.hello["type"] == "hello" and anonymous.hello["state"]["your_seat"] is None
    seq = table.seq()
    offered = table.state(0)["view"]["offered_tickets"]
    result = socket_move(anonymous, seq, {"type": "keep_tickets", "tickets": offered})
    assert result["ok"] is False and result["status"] == 401 and result["error"]["code"] == "not_authenticated"
    assert table.seq() == seq
    nowhere = Socket.open(web.ws("00000000-0000-4000-8000-000000000000", token(table, 0)), "no such game")
    assert nowhere.hello["error"]["code"] == "not_found" and closed_with(nowhere) == 4404
    elsewhere = Socket.open(f"ws://127.0.0.1:{web.port}/ws/elsewhere/", "no such path")
    assert elsewhere.hello["error"]["code"] == "not_found" and closed_with(elsewhere) == 4404


def test_the_session_cookie_works_from_our_own_origin_and_a_foreign_page_only_watches(web: Web) -> None:
    game = create_game(register("rc-b-creator"), "europe", 2)["id"]
    me = {"username": "rc-b-cookie", "password": PASSWORD}  # registered by the live server, which hashes for real
    registered = httpx.post(f"{web.http}/api/auth/register", json=me, timeout=10)
    assert registered.status_code == 201, registered.text
    joined = httpx.post(
        f"{web.http}/api/games/{game}/join", json={}, timeout=10,
        headers={"Authorization": f"Token {registered.json()['token']}"},
    )
    assert joined.status_code == 200, joined.text
    login = httpx.post(f"{web.http}/api/auth/login", json=me, timeout=10)
    assert login.status_code == 200, login.text
    cookie = "; ".join(f"{name}={value}" for name, value in login.cookies.items())
    for origin, seat in ((None, 1), (f"http://127.0.0.1:{web.port}", 1), ("https://evil.example", None)):
        headers = {"Cookie": cookie, **({"Origin": origin} if origin else {})}
        socket = Socket.open(web.ws(game), f"cookie from {origin}", additional_headers=headers)
        assert socket.hello["state"]["your_seat"] == seat, origin
        socket.close()


def test_presence_is_shared_by_two_web_processes_and_told_when_it_changes(webs: tuple[Web, Web]) -> None:
    a, b = webs
    table = seated_game("rc-c", "europe", 3)
    first = Socket.open(a.ws(table.game_id, token(table, 0)), "seat 0 on A")
    assert first.hello["presence"] == [0]
    second = Socket.open(b.ws(table.game_id, token(table, 1)), "seat 1 on B")
    assert second.hello["presence"] == [0, 1]
    assert first.next(lambda m: m["type"] == "presence") == {"type": "presence", "seats": [0, 1]}
    spectator = Socket.open(b.ws(table.game_id, register("rc-c-spectator").token), "spectator on B")
    assert spectator.hello["presence"] == [0, 1]  # spectators are not seats
    again = Socket.open(b.ws(table.game_id, token(table, 0)), "seat 0 again, on B")
    assert body(table.clients[2].get(url(table.game_id, "state")))["presence"] == [0, 1]
    again.close()  # seat 0 is still there through its socket on A: no change, no message
    second.close()
    assert first.next(lambda m: m["type"] == "presence") == {"type": "presence", "seats": [0]}
    assert spectator.next(lambda m: m["type"] == "presence") == {"type": "presence", "seats": [0]}
    assert [m for m in first.received if m["type"] == "presence"] == [
        {"type": "presence", "seats": [0, 1]}, {"type": "presence", "seats": [0]}
    ]
    assert httpx.get(f"{b.http}/api/games/{table.game_id}/state", timeout=10).json()["presence"] == [0]
    first.close()
    spectator.close()


def test_a_client_that_drops_and_comes_back_gets_exactly_what_it_missed(web: Web) -> None:
    table = seated_game("rc-d", "usa", 2)
    watcher = Socket.open(web.ws(table.game_id, token(table, 1)), "seat 1")
    had = watcher.seq
    watcher.close()
    keep_all_tickets(table)
    for _ in range(3):
        table.play(table.state()["view"]["current_seat"], {"type": "draw_card", "source": "deck"})
    back = Socket.open(web.ws(table.game_id, token(table, 1)), "seat 1, back")
    assert back.hello["seq"] == table.seq() > had
    back.send({"type": "resync", "after": had})
    missed = back.next(lambda m: m["type"] == "events")
    assert missed["resync"] is True and missed["seq"] == table.seq()
    assert missed["events"] == body(table.clients[1].get(url(table.game_id, "events"), {"after": had}))["events"]
    table.play(table.state()["view"]["current_seat"], {"type": "draw_card", "source": "deck"})
    pushed = back.next(lambda m: m["type"] == "events")  # and the stream goes on from the resync, no duplicate
    assert [e["seq"] for e in pushed["events"]] == list(range(missed["seq"] + 1, table.seq() + 1))
    back.close()


def test_a_refused_move_over_the_socket_has_exactly_the_http_error_body(web: Web) -> None:
    table = seated_game("rc-e", "europe", 2)
    keep_all_tickets(table)
    seq, current = table.seq(), table.state()["view"]["current_seat"]
    other = 1 - current
    outsider = register("rc-e-outsider")
    players = {s: Socket.open(web.ws(table.game_id, token(table, s)), f"seat {s}") for s in (0, 1)}
    nobody = Socket.open(web.ws(table.game_id, outsider.token), "outsider")
    cases = [
        (current, seq - 1, {"type": "draw_card", "source": "deck"}, "stale_seq"),
        (current, seq, {"type": "claim_route", "route": "no-such-route", "cards": {"red": 1}}, None),
        (current, seq, {"type": "draw_card", "source": "market", "index": 9}, None),
        (current, seq, {"type": "keep_tickets", "tickets": []}, "illegal_move"),
        (other, seq, {"type": "draw_card", "source": "deck"}, "not_your_turn"),
        (None, seq, {"type": "draw_card", "source": "deck"}, "not_a_player"),
        (current, "12", {"type": "draw_card", "source": "deck"}, "invalid"),
        (current, seq, {"type": "fly"}, "invalid"),
        (current, seq, None, "invalid"),
    ]
    for seat, expected_seq, move, code in cases:
        socket, client = (players[seat], table.clients[seat]) if seat is not None else (nobody, outsider)
        result = socket_move(socket, expected_seq, move)
        http = client.post(url(table.game_id, "moves"), {"expected_seq": expected_seq, "move": move}, format="json")
        status, error = http.status_code, body(http)
        assert result == {"type": "move_result", "ok": False, "status": status, "error": error}, (move, result)
        assert code is None or error["code"] == code, error
        if code == "illegal_move":
            assert error["rule"]
    assert table.seq() == seq


def fuzz_messages() -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4))
    move_types = st.sampled_from(
        ["keep_tickets", "draw_card", "claim_route", "pay_tunnel", "decline_tunnel", "draw_tickets", "build_station", "x"]
    )
    moves = st.fixed_dictionaries(
        {"type": move_types},
        optional={
            "source": st.sampled_from(["deck", "market", "sky"]) | values,
            "index": st.integers(-3, 8) | values,
            "route": st.text(max_size=30) | values,
            "cards": st.dictionaries(st.sampled_from(["red", "locomotive", "mauve"]), st.integers(-2, 9)) | values,
            "tickets": st.lists(st.text(max_size=30)) | values,
            "city": st.text(max_size=20) | values,
        },
    )
    messages = st.fixed_dictionaries(
        {"type": st.sampled_from(["move", "resync", "hello", "events", ""]) | values},
        optional={
            "expected_seq": st.integers(-2, 10**12) | values,
            "move": moves | values,
            "after": st.integers(-5, 10**9) | values,
        },
    )
    as_json = (messages | values).map(json.dumps)
    broken = st.text(max_size=200) | st.binary(max_size=200) | st.just("{" * 5000 + "}" * 5000) | st.just(" " * 40_000)
    return as_json | broken


def test_a_fuzz_of_client_messages_never_crashes_a_socket_or_changes_the_game(web: Web) -> None:
    table = seated_game("rc-f", "europe", 2)
    keep_all_tickets(table)
    seq, current = table.seq(), table.state()["view"]["current_seat"]
    waiting = Socket.open(web.ws(table.game_id, token(table, 1 - current)), "waiting seat")
    deciding = Socket.open(web.ws(table.game_id, token(table, current)), "deciding seat")
    anonymous = Socket.open(web.ws(table.game_id), "anonymous")

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(message=fuzz_messages(), who=st.sampled_from(["waiting", "deciding", "anonymous"]))
    def send_one(message: Any, who: str) -> None:
        socket = {"waiting": waiting, "deciding": deciding, "anonymous": anonymous}[who]
        if who == "deciding" and _could_be_a_move_at(message, seq):
            message = message.replace(f'"expected_seq": {seq}', f'"expected_seq": {seq + 1}')  # only stale moves
        socket.send(message)
        answer = socket.next(lambda m: m["type"] != "presence")  # (the others' arrivals may come first)
        assert answer["type"] in ("error", "move_result", "events"), answer
        assert answer["type"] != "move_result" or answer["ok"] is False, answer
        assert answer["type"] != "events" or answer.get("resync") is True, answer

    send_one()
    assert Game.objects.get(pk=table.game_id).seq == seq
    for socket in (waiting, deciding, anonymous):  # every socket still answers
        socket.send({"type": "resync", "after": seq})
        assert socket.next(lambda m: m["type"] == "events") == {"type": "events", "seq": seq, "events": [], "resync": True}
        socket.close()
    assert "Exception in ASGI application" not in web.log()


def _could_be_a_move_at(message: Any, seq: int) -> bool:
    return isinstance(message, str) and f'"expected_seq": {seq}' in message


def test_too_large_and_binary_messages_get_the_http_errors(web: Web) -> None:
    table = seated_game("rc-g", "europe", 2)
    socket = Socket.open(web.ws(table.game_id, token(table, 0)), "seat 0")
    socket.send(json.dumps({"type": "resync", "after": 0, "pad": "x" * 40_000}))
    assert socket.receive() == {
        "type": "error", "status": 413,
        "error": json.loads(limits.too_large().content),
    }
    socket.send(b"\x00\x01")
    assert socket.receive()["error"]["code"] == "invalid"
    socket.send("not json")
    assert socket.receive()["error"] == {"code": "invalid", "detail": "the body is not valid JSON"}
    socket.send(json.dumps({"type": "resync", "after": "3"}))
    answer = socket.receive()
    assert answer["error"]["code"] == "invalid" and answer["error"]["field"] == "after"
    socket.close()


def test_with_a_clock_every_push_carries_the_deadline_of_the_decision_now_open(web: Web) -> None:
    table = seated_game("rc-clock", "europe", 2, turn_seconds=120)
    watcher = Socket.open(web.ws(table.game_id, token(table, 1)), "seat 1")
    assert watcher.hello["state"]["deadline"] == table.state(1)["view"]["deadline"]
    keep_all_tickets(table)  # the setup decision closes; seat `current_seat`'s first turn opens
    watcher.reach(table.seq())
    pushed = [m for m in watcher.received if m["type"] == "events"]
    opened = table.state(1)["view"]["deadline"]
    assert pushed[-1]["deadline"] == opened != watcher.hello["state"]["deadline"]  # the new decision's clock
    table.play(table.state()["view"]["current_seat"], {"type": "draw_card", "source": "deck"})
    watcher.reach(table.seq())
    assert watcher.received[-1]["deadline"] == table.state(1)["view"]["deadline"]
    unclocked = seated_game("rc-noclock", "europe", 2)
    other = Socket.open(web.ws(unclocked.game_id, token(unclocked, 1)), "no clock")
    keep_all_tickets(unclocked)
    other.reach(unclocked.seq())
    assert all("deadline" not in m for m in other.received if m["type"] == "events")
    watcher.close()
    other.close()


def test_a_watcher_who_takes_a_seat_is_present_from_the_games_next_event(web: Web) -> None:
    creator = register("rc-seat0")
    game = create_game(creator, "europe", 2)
    joiner = register("rc-seat1")
    first = Socket.open(web.ws(game["id"], creator.token), "seat 0")  # type: ignore[attr-defined]
    watcher = Socket.open(web.ws(game["id"], joiner.token), "not seated yet")  # type: ignore[attr-defined]
    assert watcher.hello["presence"] == [0] and watcher.hello["state"]["your_seat"] is None
    assert body(joiner.post(url(game["id"], "join"), {"seat": 1}, format="json"))["seats"][1]["username"] == "rc-seat1"
    assert body(creator.post(url(game["id"], "start"), {}, format="json"))["status"] == "active"
    assert first.next(lambda m: m["type"] == "presence") == {"type": "presence", "seats": [0, 1]}
    pushed = watcher.next(lambda m: m["type"] == "events")  # projected for its seat now, as /events is
    assert pushed["events"] == body(joiner.get(url(game["id"], "events"), {"after": 0}))["events"][: len(pushed["events"])]
    public = httpx.get(f"{web.http}/api/games/{game['id']}/events", timeout=10).json()["events"]
    assert pushed["events"] != public[: len(pushed["events"])]  # seat 1's dealt cards are in it, not in the public log
    watcher.close()
    assert first.next(lambda m: m["type"] == "presence") == {"type": "presence", "seats": [0]}
    first.close()


def test_a_socket_move_at_a_seq_its_process_has_seen_pass_by_gets_stale_seq_with_the_databases_seq(web: Web) -> None:
    table = seated_game("rc-s", "europe", 2)
    keep_all_tickets(table)
    seq, current = table.seq(), table.state()["view"]["current_seat"]
    mover = Socket.open(web.ws(table.game_id, token(table, current)), "mover")
    first = socket_move(mover, seq, {"type": "draw_card", "source": "deck"})  # the process keeps the row it appended
    assert first["ok"] is True
    table.play(current, {"type": "draw_card", "source": "deck"})  # the turn's second card, over HTTP
    now = table.seq()
    result = socket_move(mover, first["seq"], {"type": "draw_card", "source": "deck"})
    assert result["ok"] is False and result["status"] == 409 and result["error"]["code"] == "stale_seq"
    assert result["error"]["seq"] == now == table.seq()
