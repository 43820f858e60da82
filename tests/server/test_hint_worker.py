"""A hint's search runs on a search worker, not on the web process, in the production layout (Redis): the web
process waits for its answer; with no worker answering in time it says 503 `unavailable` and records nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from games.review import hints
from games.store.models import Event, Seat
from tests.server.helpers import assert_error, body, create_game, register, url
from tests.server.worker import celery_worker, needs_real_services

pytestmark = [pytest.mark.django_db(transaction=True), needs_real_services()]


def against_bots(prefix: str) -> tuple[Any, str]:
    client = register(prefix)
    game = create_game(client, "usa", 2)
    assert client.post(url(game["id"], "start"), {"fill_with_bots": "greedy"}, format="json").status_code == 200
    return client, game["id"]


def never_here(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the hint's search ran in the web process")


def test_the_hints_search_runs_on_a_search_worker_and_its_answer_comes_back(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(hints, "advise", never_here)  # in this (the web) process only: the worker has its own
    log = tmp_path / "worker.log"
    client, game_id = against_bots("hint-worker")
    legal = body(client.get(url(game_id, "legal-moves")))
    with celery_worker(log, queues=settings.TTR_STRONG_QUEUE, TTR_HINT_SECONDS="0.2"):
        answer = client.post(url(game_id, "hint"))
    assert answer.status_code == 200, answer.content
    given = body(answer)
    assert given["move"] in legal["moves"] and given["reason"] and given["hints"] == 1
    assert "games.review.hints.search_hint" in log.read_text()
    assert list(Event.objects.filter(game_id=game_id, type="hint_used").values_list("seat", flat=True)) == [0]


def test_with_no_search_worker_answering_a_hint_is_503_and_records_nothing(
    tmp_path: Path, monkeypatch: Any, settings: Any
) -> None:
    settings.TTR_HINT_SECONDS = 0.1
    monkeypatch.setattr(hints, "QUEUE_SECONDS", 0.5)
    log = tmp_path / "worker.log"
    client, game_id = against_bots("hint-no-worker")
    # A worker of the default queue alone: nothing reads the search queue.
    with celery_worker(log, queues=settings.CELERY_TASK_DEFAULT_QUEUE):
        seq = body(client.get(url(game_id, "legal-moves")))["seq"]
        answer = client.post(url(game_id, "hint"))
        data = assert_error(answer, 503, "unavailable")
        assert data.get("service") == "search worker" and answer["Retry-After"] == "2"
    assert not Event.objects.filter(game_id=game_id, type="hint_used").exists()
    assert Seat.objects.get(game_id=game_id, number=0).hints == 0
    assert body(client.get(url(game_id, "legal-moves")))["seq"] == seq
