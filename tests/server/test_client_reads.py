"""What the web client reads so that a normal session meets no failed request (docs/API.md, "What the implementation
adds"): `GET /api/me` holds the queue entry (null when not queued), and a finished game's summary holds the status
of its analysis ("none" until a player asks for it). The endpoints themselves answer those normal states with 200
and `{"status": "none"}` (issue #33; they answered 404 before)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from games.lobby import matchmaker
from games.review.models import Analysis
from games.store.models import Game
from tests.server.helpers import API, assert_error, body, register, url
from tests.server.test_analysis import finished

pytestmark = pytest.mark.django_db(transaction=True)  # the analysis request is sent to the worker after its commit


def test_me_holds_the_queue_entry_as_get_queue_answers_it_and_null_when_not_queued() -> None:
    """Finding 12 of #30: the lobby read GET /api/queue, a 404 (and a console error) whenever not queued."""
    ann, bob = register("reads-q-ann"), register("reads-q-bob")
    assert body(ann.get(f"{API}/me"))["queue"] is None
    assert body(ann.get(f"{API}/queue")) == {"status": "none"}  # not queued: a state, not an error (issue #33)

    choice = {"map": "usa", "players": [2, 3], "ranked": False, "speed": "daily"}
    assert ann.post(f"{API}/queue", choice, format="json").status_code == 201
    waiting = body(ann.get(f"{API}/me"))["queue"]
    again = body(ann.get(f"{API}/queue"))
    # The rating gap a waiting player accepts widens with time: the later read may hold a wider one.
    assert waiting.pop("rating_gap") <= again.pop("rating_gap")
    assert waiting == again
    assert waiting["status"] == "waiting" and waiting["players"] == [2, 3] and waiting["game"] is None

    assert bob.post(f"{API}/queue", {**choice, "players": [2]}, format="json").status_code == 201
    matchmaker.run()  # (the run queued by the join may have formed the table already)
    matched = body(ann.get(f"{API}/me"))["queue"]
    assert matched == body(ann.get(f"{API}/queue"))
    assert matched["status"] == "matched" and Game.objects.filter(pk=matched["game"]).exists()
    assert body(ann.patch(f"{API}/me", {}, format="json"))["queue"] == matched  # PATCH answers the same shape

    assert ann.post(f"{API}/queue", choice, format="json").status_code == 201  # the old match is done with
    assert ann.delete(f"{API}/queue").status_code == 204
    assert body(ann.get(f"{API}/me"))["queue"] is None
    assert body(ann.get(f"{API}/queue")) == {"status": "none"}
    assert_error(ann.delete(f"{API}/queue"), 404, "not_queued")  # leaving a queue you are not in is still refused


def summaries(client: Any, game_id: str) -> list[dict[str, Any]]:
    """The game's summary as each endpoint that lists it answers."""
    listed = [g for g in body(client.get(f"{API}/games?status=finished"))["results"] if g["id"] == game_id]
    mine = [g for g in body(client.get(f"{API}/me/games"))["results"] if g["id"] == game_id]
    return [body(client.get(url(game_id))), *listed, *mine]


@override_settings(TTR_ANALYSIS_SAMPLES=6, TTR_ANALYSIS_SINGLE=1)
def test_a_finished_games_summary_tells_the_status_of_its_analysis() -> None:
    """Finding 12 of #30: the replay read GET /analysis, a 404 (and a console error) for every unanalysed game."""
    table = finished("reads-an-")
    ann = table.clients[0]
    assert [s["analysis"] for s in summaries(ann, table.game_id)] == ["none"] * 3
    assert body(ann.get(url(table.game_id, "analysis"))) == {"status": "none"}  # as the summaries say (issue #33)

    Analysis.objects.create(game_id=table.game_id, status=Analysis.Status.FAILED, error="a log that did not replay")
    assert [s["analysis"] for s in summaries(ann, table.game_id)] == ["failed"] * 3
    Analysis.objects.filter(game_id=table.game_id).delete()

    assert ann.post(url(table.game_id, "analysis")).status_code == 200  # the worker ran inline: done at once
    assert [s["analysis"] for s in summaries(ann, table.game_id)] == ["done"] * 3
    assert body(ann.get(url(table.game_id, "analysis")))["status"] == "done"


def test_a_game_not_finished_has_no_analysis_in_its_summary() -> None:
    """Finding 12 of #30: the field is a finished game's, as `rematch` is."""
    ann = register("reads-open-ann")
    game = body(ann.post(f"{API}/games", {"map": "europe", "players": 2, "ranked": False}, format="json"))
    assert game["status"] == Game.Status.OPEN and "analysis" not in game
    assert "analysis" not in body(ann.get(url(game["id"])))
