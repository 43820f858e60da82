"""Scoring moved to the workers: the last move appends `game_ended`, `score_game` appends `game_scored` once;
games stored before (the score inside `game_ended`, version 1) still replay, verify and score.
Leaving a game (`/resign`) and the clock's deadline in the state. The real worker runs in test_workers.py."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine import score_ended
from games.engine.codec import event_to_dict
from games.engine.events import GameScored
from games.play import scoring
from games.store import states
from games.store.event_log import row_hash
from games.store.models import Event, Game, Snapshot
from tests.server.helpers import (
    assert_error,
    body,
    check_score,
    check_verified,
    finish_by_services,
    register,
    seated_game,
    tamper,
    url,
)

pytestmark = pytest.mark.django_db



def test_an_ended_game_is_not_scored_until_the_worker_scores_it_and_then_only_once() -> None:
    table = seated_game("s", "usa", 2)
    finish_by_services(table.game_id, random.Random(4), score=False)
    assert Event.objects.filter(game_id=table.game_id).latest("seq").type == "game_ended"
    assert_error(APIClient().get(url(table.game_id, "score")), 409, "not_scored")
    assert scoring.game_score_and_rate(table.game_id) is True
    seq = table.seq()
    assert scoring.game_score_and_rate(table.game_id) is False and table.seq() == seq
    assert Event.objects.filter(game_id=table.game_id, type="game_scored").count() == 1
    check_score(APIClient(), table.game_id)
    check_verified(APIClient(), table.game_id, seq)


def test_a_game_stored_with_its_score_in_game_ended_still_replays_verifies_and_scores(settings: Any) -> None:
    """Before scoring moved to the workers, `game_ended` (v1) held the score: such logs stay readable."""
    settings.GAME_SNAPSHOT_EVERY = 1  # a snapshot at every move, so at the last one too (it was 1 run in ~20)
    table = seated_game("s", "europe", 2)
    finish_by_services(table.game_id, random.Random(6), score=False)
    last = Event.objects.filter(game_id=table.game_id).latest("seq")
    score = score_ended(states.state_at(table.game_id, last.seq))
    old_shape = {**last.data, "v": 1, **{k: v for k, v in event_to_dict(score).items() if k not in ("type", "v")}}
    digest = row_hash(last.prev_hash, last.seq, last.type, last.seat, old_shape, last.commitment, last.salt,
                      last.created_at)
    tamper(table.game_id, last.seq, data=old_shape, hash=digest)
    Game.objects.filter(pk=table.game_id).update(head_hash=digest)
    # A snapshot that the last move happened to take (when its seq crossed GAME_SNAPSHOT_EVERY) holds the state
    # the v2 event gave, not the old log's: gone with the rewrite, as the states this process remembers.
    Snapshot.objects.filter(game_id=table.game_id, seq__gte=last.seq).delete()
    states.forget_all()
    check_verified(APIClient(), table.game_id, last.seq)
    scored = check_score(APIClient(), table.game_id)
    assert [s["total"] for s in scored["scores"]] == [s.total for s in score.scores]
    assert scoring.game_score_and_rate(table.game_id) is False  # it is scored already: nothing is appended
    assert table.seq() == last.seq


def test_players_who_resigned_are_placed_after_everyone_else_for_the_ratings() -> None:
    seats = [SimpleNamespace(number=n, stand_in="greedy" if n in (0, 2) else None) for n in range(4)]
    game = SimpleNamespace(seat_list=seats)
    places = {0: 1, 1: 2, 2: 2, 3: 4}
    scored = GameScored(scores=tuple(SimpleNamespace(seat=s, place=p) for s, p in places.items()), winner_seats=(0,))  # type: ignore[arg-type]
    assert scoring.rated_places(game, scored=scored) == {1: 1, 3: 2, 0: 3, 2: 3}  # type: ignore[arg-type]


def test_a_player_resigns_and_the_fallback_bot_takes_the_seat(django_capture_on_commit_callbacks: Any) -> None:
    table = seated_game("r", "europe", 2, fallback_bot="random")
    seq = table.seq()
    with django_capture_on_commit_callbacks(execute=True):
        summary = body(table.clients[1].post(url(table.game_id, "resign"), {}, format="json"))
    assert summary["seats"][1] == {"seat": 1, "username": "r1", "bot": None, "resigned": True, "hints": 0}
    kinds = list(Event.objects.filter(game_id=table.game_id, seq__gt=seq).values_list("type", "seat"))
    assert kinds[:2] == [("seat_resigned", 1), ("tickets_kept", 1)]  # the bot chose r1's tickets at once
    assert Event.objects.get(game_id=table.game_id, seq=seq + 1).data == {
        "type": "seat_resigned", "v": 1, "seat": 1, "bot": "random"
    }
    assert_error(table.clients[1].post(url(table.game_id, "resign"), {}, format="json"), 409, "already_resigned")
    seq = table.seq()  # the one who left can no longer move for the seat the bot plays, nor see moves offered
    move = {"expected_seq": seq, "move": {"type": "draw_card", "source": "deck"}}
    assert_error(table.clients[1].post(url(table.game_id, "moves"), move, format="json"), 403, "resigned")
    assert body(table.clients[1].get(url(table.game_id, "legal-moves")))["moves"] == []
    assert body(table.clients[0].get(url(table.game_id, "legal-moves")))["moves"] != [] and table.seq() == seq
    assert_error(register("xavier").post(url(table.game_id, "resign"), {}, format="json"), 403, "not_a_player")
    assert_error(APIClient().post(url(table.game_id, "resign"), {}, format="json"), 401, "not_authenticated")


def test_only_an_active_game_can_be_left() -> None:
    table = seated_game("r", "usa", 2, start=False)
    assert_error(table.clients[1].post(url(table.game_id, "resign"), {}, format="json"), 409, "not_active")


def test_the_state_shows_the_deadline_only_when_the_game_has_a_clock() -> None:
    untimed = seated_game("u", "usa", 2)
    assert "deadline" not in untimed.state(0)["view"]
    timed = seated_game("t", "usa", 2, turn_seconds=90)
    deadline = datetime.fromisoformat(timed.state(0)["view"]["deadline"])
    started = Event.objects.get(game_id=timed.game_id, seq=1).created_at
    assert deadline == started + timedelta(seconds=90)  # setup: every seat chooses from the start (X-TIME-1)
    timed.play(0, timed.get(0, "legal-moves")["moves"][0])
    assert datetime.fromisoformat(timed.state(1)["view"]["deadline"]) == deadline  # seat 1 still from the start


def test_the_sweep_scores_an_ended_game_whose_scoring_task_was_lost(settings: Any) -> None:
    from bots.tasks import sweep

    settings.TTR_LOST_TASK_SECONDS = 0
    table = seated_game("w", "usa", 2)
    finish_by_services(table.game_id, random.Random(9), score=False)  # and the score_game task never came
    assert sweep()["scoring_requeued"] == 1  # eager here: the task ran inside the sweep
    assert Event.objects.filter(game_id=table.game_id, type="game_scored").count() == 1
    assert Game.objects.get(pk=table.game_id).scored_at is not None
    assert sweep()["scoring_requeued"] == 0  # a scored game is never looked at again
