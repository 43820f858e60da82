"""The live stream (docs/API.md, WebSocket) through real web processes on PostgreSQL and Redis.

Two players and a spectator hold `websockets` clients on a uvicorn process; moves are made over HTTP, over a
socket, from another process (this one, through the services) and by a bot in the real Celery worker, and every
socket gets every event once, in order, as its viewer may see it. Presence, resync, authentication and the
refusals of bad messages are checked on the same live servers; a second web process shows that a move made
through one reaches the sockets of the other.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.traffic.people import choose
from games.engine import legal_moves
from games.engine.codec import move_from_dict, move_to_dict
from games.play import bot_turns
from games.store import states
from games.store.models import Event, Game
from tests.server import sockets
from tests.server.helpers import Table, body, create_game, register, seated_game, url
from tests.server.sockets import Socket, Web, keep_all_tickets, socket_move, table_sockets, token
from tests.server.worker import celery_worker, needs_real_services

pytestmark = [pytest.mark.django_db(transaction=True), needs_real_services()]
webs, web = sockets.webs, sockets.web  # the module's two web processes, and the first of them



def http_move(web: Web, table: Table, seat: int, move: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(
        f"{web.http}/api/games/{table.game_id}/moves", json={"expected_seq": table.seq(), "move": move},
        headers={"Authorization": f"Token {token(table, seat)}"}, timeout=10,
    )
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def after(socket: Socket, seq: int) -> list[dict[str, Any]]:
    return [e for e in socket.events() if e["seq"] > seq]


def deck_draw(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e["type"] == "card_drawn" and e["data"]["source"] == "deck")


def test_two_players_and_a_spectator_see_moves_over_http_and_over_a_socket_each_as_they_may(web: Web) -> None:
    table = seated_game("rt-a", "europe", 2)
    viewers = table_sockets(web, table, register("rt-a-spectator"))
    for seat, socket in enumerate(viewers):
        assert socket.hello["type"] == "hello" and socket.hello["seq"] == table.seq()
        assert socket.hello["state"]["your_seat"] == (seat if seat < 2 else None)
        assert socket.hello["state"]["hand"] == ({} if seat == 2 else table.state(seat)["view"]["hand"])
    keep_all_tickets(table)  # in this process, through the API: the sockets hear it through Redis
    for socket in viewers:
        socket.reach(table.seq())
    mover = table.state()["view"]["current_seat"]
    answer = http_move(web, table, mover, {"type": "draw_card", "source": "deck"})  # over HTTP, on the live server
    for seat, socket in enumerate(viewers):
        socket.reach(answer["seq"])
        drawn = deck_draw(socket.events())
        assert (drawn["data"]["card"] is not None) == (seat == mover), (seat, drawn)
    seq = table.seq()
    result = socket_move(viewers[mover], seq, {"type": "draw_card", "source": "deck"})  # over the socket
    assert result["ok"] is True and result["seq"] > seq, result
    # the mover had the move's events before its result
    assert viewers[mover].seq == result["seq"] and deck_draw(after(viewers[mover], seq))["seq"] == seq + 1
    for seat, socket in enumerate(viewers):
        socket.reach(result["seq"])
        assert (deck_draw(after(socket, seq))["data"]["card"] is not None) == (seat == mover)
        # the stream is the log, as /events projects it for the same viewer
        client = table.clients[seat] if seat < 2 else None
        if client is not None:
            assert socket.events() == body(client.get(url(table.game_id, "events"), {"after": socket.hello["seq"]}))[
                "events"
            ]
    for socket in viewers:
        socket.close()


def first_turn_event(game_id: str, seat: int) -> int | None:
    """The seq of the seat's first event after the setup (its first turn), if it has played one."""
    setup = ("cards_dealt", "tickets_dealt", "tickets_kept")
    turns = Event.objects.filter(game_id=game_id, seat=seat).exclude(type__in=setup)
    return turns.order_by("seq").values_list("seq", flat=True).first()


def test_a_bots_move_from_the_celery_worker_reaches_every_socket(web: Web, tmp_path: Path) -> None:
    ann, bob = register("rt-bot-ann"), register("rt-bot-bob")
    game = create_game(ann, "usa", 3)
    assert bob.post(url(game["id"], "join"), {"seat": 1}, format="json").status_code == 200
    assert ann.post(url(game["id"], "bots"), {"seat": 2, "level": "random"}, format="json").status_code == 200
    table = Table(game["id"], [ann, bob], "usa")
    viewers = table_sockets(web, table, register("rt-bot-spectator"))
    with celery_worker(tmp_path / "worker.log"):
        assert ann.post(url(game["id"], "start"), {}, format="json").status_code == 200
        for socket in viewers:  # the bot keeps its tickets through the worker
            socket.next(lambda m: any(e["seat"] == 2 and e["type"] == "tickets_kept" for e in m.get("events", ())), 30)
        keep_all_tickets(table)
        while (bot_move := first_turn_event(game["id"], seat=2)) is None:  # humans draw until the bot has played
            state = table.state()
            if state["view"]["current_seat"] != 2:
                table.play(state["view"]["current_seat"], {"type": "draw_card", "source": "deck"})
        for socket in viewers:  # the bot's turn arrives by itself, from the worker's commit
            socket.reach(bot_move, 30)
            assert next(e for e in socket.events() if e["seq"] == bot_move)["seat"] == 2
    for seat, socket in enumerate(viewers):
        bot_events = [e for e in socket.events() if e["seat"] == 2 and e["type"] == "tickets_kept"]
        assert bot_events and bot_events[0]["data"]["kept"] is None, (seat, bot_events)  # nobody sees the bot's tickets
        socket.close()


def test_two_hundred_random_moves_reach_every_socket_in_order_without_gap_or_duplicate(webs: tuple[Web, Web]) -> None:
    table = seated_game("rt-c", "europe", 3)
    spectator = register("rt-c-spectator")
    a, b = webs
    viewers = [
        Socket.open(a.ws(table.game_id, token(table, 0)), "seat 0 on A"),
        Socket.open(b.ws(table.game_id, token(table, 1)), "seat 1 on B"),
        Socket.open(a.ws(table.game_id, token(table, 2)), "seat 2 on A"),
        Socket.open(b.ws(table.game_id, spectator.token), "spectator on B"),
    ]
    rng = random.Random(5)
    moves = 0
    while moves < 200:
        game = Game.objects.get(pk=table.game_id)
        if game.status == Game.Status.FINISHED:
            break
        state = states.state_at(game.pk, game.seq)
        seat = rng.choice(state.deciders())
        move = choose([move_to_dict(m) for m in legal_moves(state, seat)], rng)
        if rng.random() < 0.5:  # over the seat's socket (on A or B) ...
            assert socket_move(viewers[seat], game.seq, move)["ok"] is True
        else:  # ... or straight through the services in this process, as the HTTP view does
            bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=move_from_dict(move))
        moves += 1
        if rng.random() < 0.2:  # now and then let the sockets catch up, so that pushes interleave with moves
            for socket in viewers:
                socket.reach(Game.objects.get(pk=table.game_id).seq)
    final = Game.objects.get(pk=table.game_id).seq
    for socket in viewers:
        socket.reach(final, timeout=20)
        assert [e["seq"] for e in socket.events()] == list(range(socket.hello["seq"] + 1, final + 1)), socket.name
        socket.close()
