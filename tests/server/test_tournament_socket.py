"""A tournament's socket (`/ws/tournaments/{id}/`, games/realtime/tournament.py) on real web processes (uvicorn,
PostgreSQL, Redis): anyone watching gets the status, the standings and the tables on connect, as GET
/api/tournaments/{id} and its /tables give them, and again, those that changed, when people join and withdraw over
HTTP on another process, when the tournament starts, and when a change's notice is lost (the poll). A bad token,
an unknown tournament and a malformed id are refused as on a game's socket; the token subprotocol is spoken.
Under `make run`'s own settings (SQLite, the in-memory layer) the poll brings what changed.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from django.utils import timezone
from rest_framework.test import APIClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from bench.live.api_client import client
from bench.live.embedded import embedded_server
from bench.live.processes import LINUX
from games.tournaments import services
from games.tournaments.models import Tournament
from tests.server import sockets
from tests.server.helpers import body, create_tournament, register
from tests.server.sockets import Socket, Web
from tests.server.worker import needs_real_services

pytestmark = [pytest.mark.django_db(transaction=True), needs_real_services()]
webs, web = sockets.webs, sockets.web  # the module's two web processes, and the first of them
KINDS = ["status", "standings", "tables"]


def url(web: Web, tournament_id: str) -> str:
    return f"ws://127.0.0.1:{web.port}/ws/tournaments/{tournament_id}/"


def watch(address: str, name: str, **options: Any) -> Socket:
    """An open socket (Socket.open waits for a game's hello; this one's first messages are the three)."""
    return Socket(connect(address, open_timeout=10, **options).__enter__(), name)


SOCKET_SWISS: dict[str, Any] = {
    "name": "Socket Swiss", "bots_fill": False, "starts_at": (timezone.now() + timedelta(hours=1)).isoformat(),
}


def first_three(socket: Socket) -> dict[str, dict[str, Any]]:
    got = [socket.receive() for _ in KINDS]
    assert [m["type"] for m in got] == KINDS, got
    return {m["type"]: m for m in got}


def over_http(web: Web, method: str, path: str, client: APIClient) -> httpx.Response:
    headers = {"Authorization": f"Token {client.token}"}  # type: ignore[attr-defined]
    return httpx.request(method, f"{web.http}/api{path}", json={} if method == "POST" else None, headers=headers, timeout=10)


def standings_with(name: str, **row: Any) -> Any:
    return lambda m: m["type"] == "standings" and any(
        r["username"] == name and all(r[k] == v for k, v in row.items()) for r in m["standings"]
    )


def closed_with(socket: Socket) -> int | None:
    try:
        socket.connection.recv(timeout=5)
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None
    raise AssertionError("the socket stayed open")


def test_anyone_watching_gets_the_three_as_http_gives_them_and_then_what_changed_as_people_join_and_withdraw(
    webs: tuple[Web, Web],
) -> None:
    a, b = webs
    organiser = register("ts-organiser")
    tournament_id = create_tournament(organiser, **SOCKET_SWISS)["id"]
    watcher = watch(url(b, tournament_id), "anonymous on B")
    hello = first_three(watcher)
    detail = body(organiser.get(f"/api/tournaments/{tournament_id}"))
    assert hello["status"] == {
        "type": "status", "status": "upcoming", "round": None, "players": 0, "next_round_at": None,
    }
    assert hello["standings"] == {"type": "standings", "standings": detail["standings"]} and detail["standings"] == []
    assert hello["tables"] == {"type": "tables", "round": None, "tables": []}

    ann, bob = register("ts-ann"), register("ts-bob")
    for person in (ann, bob):  # over HTTP on the other process: its notice reaches B through Redis
        assert over_http(a, "POST", f"/tournaments/{tournament_id}/join", person).status_code == 200
        watcher.next(standings_with(person.username, withdrawn=False))  # type: ignore[attr-defined]
    assert watcher.quiet(0.3) == []
    since_hello = watcher.received[3:]
    assert "tables" not in [m["type"] for m in since_hello]  # only what changed: the tables did not
    assert [m["players"] for m in since_hello if m["type"] == "status"][-1] == 2

    Tournament.objects.filter(pk=tournament_id).update(starts_at=timezone.now())
    services.advance(tournament_id)  # the worker's part, here
    running = watcher.next(lambda m: m["type"] == "tables" and bool(m["tables"]))
    status = [m for m in watcher.received if m["type"] == "status"][-1]
    assert status["status"] == "running" and status["round"] == 1 and running["round"] == 1
    tables = body(organiser.get(f"/api/tournaments/{tournament_id}/tables"))["results"]
    assert running["tables"] == tables and sorted(tables[0]["seats"]) == ["ts-ann", "ts-bob"]

    assert over_http(a, "DELETE", f"/tournaments/{tournament_id}/join", bob).status_code == 204
    withdrawn = watcher.next(standings_with("ts-bob", withdrawn=True))
    assert withdrawn["standings"] == body(organiser.get(f"/api/tournaments/{tournament_id}"))["standings"]
    watcher.close()
    assert [line for w in webs for line in w.log().splitlines() if "Traceback" in line] == []


def test_a_change_whose_notice_is_lost_reaches_the_socket_by_the_poll(web: Web) -> None:
    daily = {"speed": "daily", "turn_seconds": None, "days_per_move": 1}
    tournament_id = create_tournament(register("ts-lost"), **daily, **SOCKET_SWISS)["id"]
    watcher = watch(url(web, tournament_id), "anonymous")
    first_three(watcher)
    due = timezone.now() + timedelta(days=1)
    Tournament.objects.filter(pk=tournament_id).update(next_round_at=due)  # no log event, no notice
    status = watcher.next(lambda m: m["type"] == "status" and m["next_round_at"] is not None)
    assert status["next_round_at"] == due.isoformat()
    watcher.close()


def test_the_token_subprotocol_is_spoken_a_bad_token_and_an_unknown_tournament_are_refused(web: Web) -> None:
    carol = register("ts-carol")
    tournament_id = create_tournament(carol, **SOCKET_SWISS)["id"]
    offered = ["ttr.v1", f"token.{carol.token}"]  # type: ignore[attr-defined]
    signed_in = watch(url(web, tournament_id), "carol", subprotocols=offered)
    assert signed_in.connection.subprotocol == "ttr.v1"
    first_three(signed_in)
    signed_in.send({"type": "resync", "after": 0})  # it only speaks
    assert signed_in.receive()["error"]["code"] == "invalid"
    bad = watch(url(web, tournament_id), "bad token", subprotocols=["ttr.v1", "token." + "0" * 40])
    assert bad.receive() == {"type": "error", "error": {"code": "authentication_failed", "detail": "Invalid token."}}
    assert closed_with(bad) == 4401
    nowhere = watch(url(web, "00000000-0000-4000-8000-000000000000"), "no such tournament")
    assert nowhere.receive() == {"type": "error", "error": {"code": "not_found", "detail": "no such tournament"}}
    assert closed_with(nowhere) == 4404
    malformed = watch(url(web, "not-a-tournament"), "malformed id")
    assert malformed.receive()["error"]["code"] == "not_found" and closed_with(malformed) == 4404
    signed_in.close()


@pytest.mark.skipif(not LINUX, reason="the live server helpers read /proc")
def test_under_make_run_a_join_reaches_the_socket() -> None:
    with embedded_server() as server:
        dan = client(server, "ts-dan")
        starts_at = (timezone.now() + timedelta(hours=1)).isoformat()
        made = dan.post("/tournaments", json={
            "name": "Embedded arena", "format": "arena", "map": "usa", "table_size": 2, "smaller_tables": False,
            "speed": "live", "turn_seconds": 60, "minutes": 30, "starts_at": starts_at, "ranked": False,
            "bots_fill": False,
        })
        assert made.status_code == 201, made.text
        watcher = watch(f"ws://127.0.0.1:{server.port}/ws/tournaments/{made.json()['id']}/", "anonymous")
        first_three(watcher)
        assert dan.post(f"/tournaments/{made.json()['id']}/join", json={}).status_code == 200
        watcher.next(standings_with("ts-dan"))
        watcher.close()
