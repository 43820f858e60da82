"""Whole games through the HTTP API: scripted clients for every seat, and a game against bots that Celery
(eager in tests) plays after each commit. Each game finishes, is scored in the docs/API.md shape and verifies."""

from __future__ import annotations

import random
from typing import Any

import pytest
from rest_framework.test import APIClient

from bench.traffic.people import choose
from games.play import scoring
from games.store.models import Event
from tests.server.helpers import (
    Table,
    assert_error,
    audit_lines,
    body,
    check_score,
    check_verified,
    create_game,
    play_to_end,
    register,
    seated_game,
    url,
)


def check_finished(table: Table) -> dict[str, Any]:
    """The ended game is scored (here, as the score_game task does, when no worker ran it: it scores once),
    public, verified, and its score matches the log's."""
    scoring.game_score_and_rate(table.game_id)
    seq = table.seq()
    lines = audit_lines(APIClient(), table.game_id)
    assert len(lines) == seq == Event.objects.filter(game_id=table.game_id).count()
    assert lines[0]["type"] == "game_started" and lines[1]["type"] == "seeds_committed"
    assert [line["type"] for line in lines[-3:]] == ["game_ended", "seeds_revealed", "game_scored"]
    assert not scoring.game_score_and_rate(table.game_id) and table.seq() == seq  # never twice
    report = check_verified(APIClient(), table.game_id, seq)
    assert report["fair"] is True  # X-RNG-2: every shuffle and the first seat are the revealed seeds' draws
    assert report["head_hash"] == lines[-1]["hash"]
    score = check_score(table.clients[0], table.game_id)
    assert score["winner_seats"] == lines[-1]["data"]["winner_seats"]
    for seat, client in enumerate(table.clients):
        state = body(client.get(url(table.game_id, "state")))
        assert state["status"] == "finished" and state["view"]["phase"] == "finished"
        assert state["view"]["your_seat"] == seat and state["view"]["deciding_seats"] == []
        assert [p["score"] for p in state["view"]["players"]] == [s["route_points"] for s in score["scores"]]
        assert body(client.get(url(table.game_id, "legal-moves")))["moves"] == []
        assert_error(table.post_move(seat, seq, {"type": "draw_tickets"}), 409, "not_active")
    summary = body(APIClient().get(url(table.game_id)))
    assert summary["status"] == "finished" and summary["seq"] == seq
    finished = body(APIClient().get("/api/games", {"status": "finished"}))["results"]
    assert table.game_id in {g["id"] for g in finished}
    return score


@pytest.mark.django_db
@pytest.mark.parametrize(("map_name", "players", "seed"), [("europe", 2, 21), ("usa", 3, 22)])
def test_scripted_clients_play_a_whole_game(map_name: str, players: int, seed: int) -> None:
    table = seated_game(f"{map_name}-", map_name, players)
    log = play_to_end(table, random.Random(seed))
    assert log.types.get("keep_tickets", 0) >= players
    assert log.types.get("claim_route", 0) > 0 and log.types.get("draw_card", 0) > 0
    assert {"route_claimed", "card_drawn", "turn_ended", "game_ended"} <= log.event_types
    score = check_finished(table)
    assert [s["username"] for s in score["scores"]] == [f"{map_name}-{n}" for n in range(players)]
    assert all(s["bot"] is None for s in score["scores"])


@pytest.mark.django_db(transaction=True)
def test_a_game_against_bots_finishes() -> None:
    """Seat 0 is a scripted human; the other seats are random bots, played by the Celery task after each commit."""
    human = register("human")
    game = create_game(human, "usa", 3)
    response = human.post(url(game["id"], "start"), {"fill_with_bots": "random"}, format="json")
    assert response.status_code == 200
    assert [s["bot"] for s in body(response)["seats"]] == [None, "random", "random"]
    table = Table(game["id"], [human], "usa")
    rng = random.Random(31)
    moves = 0
    while True:
        state = table.state(0)
        if state["status"] == "finished":
            break
        # the bots have always played by the time a request returns: only the human can be waited for
        assert state["view"]["deciding_seats"] == [0], state["view"]
        legal = table.get(0, "legal-moves")
        response = table.post_move(0, legal["seq"], choose(legal["moves"], rng))
        assert response.status_code == 201, response.content[:300]
        moves += 1
        assert moves < 2000
    seats = {line["seat"] for line in audit_lines(APIClient(), table.game_id) if line["type"] == "turn_ended"}
    assert seats == {0, 1, 2}, "every seat, bots included, took turns"
    lines = audit_lines(APIClient(), table.game_id)
    assert len(lines) == table.seq()
    check_verified(APIClient(), table.game_id, table.seq())
    score = check_score(human, table.game_id)
    assert [(s["username"], s["bot"]) for s in score["scores"]] == [("human", None), (None, "random"), (None, "random")]
