"""What one socket, and one person's sockets, may make the server do (finding 5 of #30; games/realtime/limits.py).

Against two real web processes (uvicorn, PostgreSQL, Redis as the channel layer): a flood of resyncs on one
socket of a long game ends in a handful of full-log answers, `rate_limited` errors and a close with 4029, with no
traceback in the log; a client that vanishes while the server sends to it is let go quietly; a person's sockets
beyond the cap (3 here, over /ws/games/ and /ws/me/ and both processes) close their oldest with 4008. Without a
server: the token bucket, the outbox that drops a client that does not read, and the per-person registry in Redis
and in memory.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from bench.random_moves import random_engine_move
from games.play import bot_turns
from games.realtime import people
from games.realtime.limits import Budget, Outbox
from games.store import states
from games.store.models import Game
from tests.server.helpers import Table, run_coroutine, seated_game
from tests.server.sockets import Socket, Web, token, web_servers
from tests.server.worker import needs_real_services

CAP, BURST = 3, 20  # the cap the module's web processes get; the burst as production has it (settings.TTR_WS_BURST)


def live(test: Any) -> Any:
    """On the module's web processes: committed rows, PostgreSQL and Redis."""
    return pytest.mark.django_db(transaction=True)(needs_real_services()(test))


@pytest.fixture(scope="module")
def limited(django_db_setup: Any) -> Iterator[tuple[Web, Web]]:
    """Two web processes with a cap of 3 sockets a person (the other limits as production has them)."""
    with web_servers(2, TTR_WS_PER_USER=str(CAP)) as (a, b):
        yield a, b


def played(table: Table, moves: int) -> int:
    """The game moved on by `moves` random moves (through the services, in this process); its seq."""
    rng = random.Random(5)
    for _ in range(moves):
        game = Game.objects.get(pk=table.game_id)
        if game.status != Game.Status.ACTIVE:
            break
        seat, move = random_engine_move(states.state_at(game.pk, game.seq), rng)
        bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=move)
    return int(Game.objects.get(pk=table.game_id).seq)


def close_code(socket: Socket, timeout: float = 30) -> int | None:
    """Read until the server closes the socket; its close code."""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            socket.receive(deadline - time.monotonic())
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None
    except TimeoutError:
        pass
    raise AssertionError(f"{socket.name}: still open after {timeout} s")


def tracebacks(web: Web) -> list[str]:
    return [
        line[:300] for line in web.log().splitlines()
        if any(mark in line for mark in ("Traceback", "Exception in ASGI", "unexpected error on a game socket"))
    ]


@live
def test_two_thousand_resyncs_on_one_socket_end_in_a_few_full_logs_errors_and_4029(limited: tuple[Web, Web]) -> None:
    """Finding 5 of #30: 2,000 resyncs on one socket of a long game made 631-802 full-log answers (40-75 MB, about
    19 s of server CPU) and a traceback. Now the first burst's resyncs are answered together, the rest refused
    `rate_limited`, and the socket is closed with 4029."""
    web = limited[0]
    table = seated_game("lim-flood", "europe", 2)
    seq = played(table, 120)
    socket = Socket.open(web.ws(table.game_id, token(table, 0)), "flooder")
    assert socket.hello["seq"] == seq
    resync = json.dumps({"type": "resync", "after": 0})
    for _ in range(5):  # within the burst: answered, those asked while the first is worked out together with it
        socket.send(resync)
    first = socket.next(lambda m: m["type"] == "events" and bool(m.get("resync")), timeout=60)
    assert first["seq"] == seq and len(first["events"]) == seq
    for _ in range(2000):
        try:
            socket.send(resync)
        except ConnectionClosed:
            break  # closed under the flood already
    assert close_code(socket) == 4029
    answers = [m for m in socket.received if m["type"] == "events" and m.get("resync")]
    errors = [m for m in socket.received if m["type"] == "error"]
    # The first, and at most a burst's worth more: a resync still being worked out when the socket is closed for
    # abuse may go unanswered (on a loaded machine the close can come first).
    assert 1 <= len(answers) <= BURST, len(answers)
    assert all(a["seq"] == seq and len(a["events"]) == seq for a in answers)  # each the whole log
    assert errors and all(e["status"] == 429 and e["error"]["code"] == "rate_limited" for e in errors), errors[:3]
    assert len(errors) <= 2 * BURST, len(errors)
    assert not tracebacks(web), tracebacks(web)


@live
def test_a_client_that_vanishes_while_answers_are_sent_is_let_go_quietly(limited: tuple[Web, Web]) -> None:
    """Finding 5 of #30: a traceback was logged when the flooding client went away mid-send."""
    web = limited[1]
    table = seated_game("lim-gone", "europe", 2)
    played(table, 120)
    for attempt in range(3):
        socket = Socket.open(web.ws(table.game_id, token(table, 1)), f"vanishing {attempt}")
        for _ in range(BURST // 2):
            socket.send({"type": "resync", "after": 0})
        socket.connection.socket.close()  # gone without a goodbye, its answers unread
    watcher = Socket.open(web.ws(table.game_id, token(table, 1)), "watcher")  # the process still serves
    watcher.send({"type": "resync", "after": 0})
    assert watcher.next(lambda m: m["type"] == "events")["resync"] is True
    watcher.close()
    assert not tracebacks(web), tracebacks(web)


@live
def test_a_persons_sockets_beyond_the_cap_close_their_oldest_with_4008_across_processes(
    limited: tuple[Web, Web],
) -> None:
    """Finding 5 of #30: 200 sockets from one person were all accepted. Now the cap (3 here) holds over both paths
    and both web processes: each new socket past it closes that person's oldest with 4008, the others serve on."""
    a, b = limited
    table = seated_game("lim-cap", "europe", 2)
    key = token(table, 0)
    me = f"ws://127.0.0.1:{b.port}/ws/me/?token={key}"
    opened = [
        Socket.open(a.ws(table.game_id, key), "game on a"),
        Socket.open(me, "me on b"),
        Socket.open(b.ws(table.game_id, key), "game on b"),
    ]
    assert all(s.hello["type"] == "hello" for s in opened)
    other = Socket.open(a.ws(table.game_id, token(table, 1)), "the other player")  # someone else's: not counted
    for n, web in enumerate((a, b)):
        opened.append(Socket.open(web.ws(table.game_id, key), f"one more on {'ab'[n]}"))
        assert opened[-1].hello["type"] == "hello"
        assert close_code(opened[n]) == 4008, opened[n].name
    for socket in (*opened[2:], other):  # the three newest and the other player's still serve
        socket.send({"type": "resync", "after": 0})
        assert socket.next(lambda m: m["type"] == "events")["resync"] is True
        socket.close()


def test_the_bucket_serves_a_burst_then_refuses_then_calls_it_abuse_and_refills_with_time() -> None:
    """Finding 5 of #30: the per-socket budget behind 429 `rate_limited` and close 4029."""
    budget = Budget(rate=10, burst=4)
    assert [budget.take() for _ in range(4)] == ["served"] * 4
    assert {budget.take() for _ in range(4)} == {"refused"}
    assert budget.take() == "abuse"
    budget.tokens, budget.at = -1, time.monotonic() - 0.25  # a client that waited a quarter second
    assert budget.take() == "served"


def test_a_client_that_does_not_read_is_dropped_once_the_bytes_waiting_for_it_pass_the_limit() -> None:
    """Finding 5 of #30: the outbound bound. The server's send blocks (the client reads nothing); the outbox keeps
    at most `limit` bytes waiting, then drops them all, ends the socket and takes nothing more."""

    async def scenario() -> tuple[list[str], list[bool], int]:
        sent: list[str] = []
        reading = asyncio.Event()
        ended: list[bool] = []

        async def server_send(message: dict[str, Any]) -> None:
            sent.append(message.get("text", message["type"]))
            if len(sent) > 1:
                await reading.wait()  # the connection's write buffer is full: the client does not read

        outbox = Outbox(server_send, limit=1000, on_full=lambda: ended.append(True))
        await outbox.send({"type": "websocket.accept"})
        for n in range(20):
            await outbox.send({"type": "websocket.send", "text": f"{n:03d}" + "x" * 197})
            await asyncio.sleep(0)
        waiting = outbox.bytes
        await outbox.send({"type": "websocket.send", "text": "after the end"})
        return sent, ended, waiting

    sent, ended, waiting = run_coroutine(scenario())
    assert ended == [True]
    assert sent == ["websocket.accept", "000" + "x" * 197]  # the rest never reached the server
    assert waiting == 0


@pytest.mark.parametrize("where", ["memory", "redis"])
def test_the_registry_keeps_a_persons_newest_sockets_and_names_the_oldest_beyond_the_cap(
    settings: Any, where: str
) -> None:
    """Finding 5 of #30: the per-person count behind close 4008, in Redis (every web process) and in memory (the
    embedded server). A socket that left frees its place."""
    if where == "redis" and not settings.REDIS_URL:
        pytest.skip("needs Redis (scripts/test-env finds it)")
    if where == "memory":
        settings.REDIS_URL = ""
    settings.TTR_WS_PER_USER = 2
    person = 10**9 + os.getpid()

    async def scenario() -> list[list[str]]:
        over = [await people.arrive(person, f"socket-{n}") for n in range(4)]
        await people.leave(person, "socket-3")
        over.append(await people.arrive(person, "socket-4"))
        for name in ("socket-2", "socket-4"):
            await people.leave(person, name)
        return over

    assert run_coroutine(scenario()) == [[], [], ["socket-0"], ["socket-1"], []]
