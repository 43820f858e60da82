"""Health, readiness, metrics, request ids and structured logs (docs/API.md, Operations), in process.

What only a running stack can show (a dependency killed for real, several processes adding up their metrics,
SIGTERM) is in tests/faults/."""

from __future__ import annotations

import io
import json
import logging
import random
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import path

from bench.traffic.people import choose
from games.table import presence
from tests.server.helpers import assert_error, body, seated_game, url
from ttr_server import health, json_logs, unavailable
from ttr_server import urls as project_urls

pytestmark = pytest.mark.django_db
DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1



@pytest.fixture
def redis_down(settings: Any) -> Iterator[None]:
    """Redis is unreachable: presence and /readyz must cope (its clients are made anew for the dead address)."""
    settings.REDIS_URL = DEAD_REDIS
    presence._redis.cache_clear()
    yield
    presence._redis.cache_clear()


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    """Every log line written meanwhile, rendered as production renders them (JSON)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.getLogger().handlers[0].formatter)
    root = logging.getLogger()
    root.addHandler(handler)
    yield stream
    root.removeHandler(handler)


def parsed(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.startswith("{")]


def test_healthz_answers_while_the_process_serves() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200 and body(response) == {"ok": True}


def test_health_endpoints_take_only_get() -> None:
    assert_error(Client().post("/readyz"), 405, "method_not_allowed")


def test_health_answers_whatever_host_the_probe_uses() -> None:
    # a container probes 127.0.0.1 or its own name, which ALLOWED_HOSTS does not list
    assert Client(HTTP_HOST="10.1.2.3:8000").get("/healthz").status_code == 200
    assert Client(HTTP_HOST="10.1.2.3:8000").get("/api/games").status_code == 400


def test_readyz_is_this_processs_readiness_and_asks_no_worker() -> None:
    """Finding 10 of #30: with no worker heartbeat at all, a web process whose database and Redis answer is ready
    (a balancer probing /readyz must not drop every web process because one worker died)."""
    from games.store.models import Heartbeat

    Heartbeat.objects.all().delete()
    answer = Client().get("/readyz")
    assert answer.status_code == 200, body(answer)
    checks = body(answer)["checks"]
    assert body(answer)["ok"] is True and checks["database"] == "ok" and set(checks) == {"database", "redis"}
    assert checks["redis"] in ("ok", "not used")


def test_the_workers_heartbeats_are_in_healthzs_detail_and_the_metrics() -> None:
    """Finding 10 of #30: the workers' and beat's heartbeats are reported (to alert on), by node name, no host."""
    from datetime import timedelta

    from django.utils import timezone

    from games.store.models import Heartbeat

    Heartbeat.objects.all().delete()
    assert body(Client().get("/healthz")) == {"ok": True}  # the plain probe asks nothing
    assert body(Client().get("/healthz?detail=1")) == {"ok": True, "heartbeats": {}}
    health.beat("worker:default@db-host-7")
    Heartbeat.objects.create(name="worker:strong@db-host-7", at=timezone.now() - timedelta(seconds=95))
    health.beat("sweep")
    answer = Client().get("/healthz?detail=1")
    beats = body(answer)["heartbeats"]
    assert beats["worker:default"]["state"] == "ok" and beats["beat"]["state"] == "ok"
    assert beats["worker:strong"]["state"] == "stale" and beats["worker:strong"]["age_seconds"] >= 95
    assert b"db-host-7" not in answer.content
    text = Client().get("/metrics").content.decode()
    assert 'ttr_heartbeat_age_seconds{process="worker:strong"} 9' in text
    assert 'ttr_heartbeat_age_seconds{process="beat"}' in text


def test_readyz_says_redis_is_down_and_names_no_host(redis_down: None, lines: io.StringIO) -> None:
    """Finding 10 of #30: the anonymous answer says "down", the log says why (once a minute), and the probe's
    503 is no error line."""
    health._complained.clear()
    answer = Client().get("/readyz")
    assert answer.status_code == 503 and answer["Retry-After"]
    assert body(answer)["checks"] == {"database": "ok", "redis": "down"}
    assert b"127.0.0.1" not in answer.content and b":1" not in answer.content
    assert Client().get("/readyz").status_code == 503
    said = [line for line in parsed(lines) if "readiness" in line["event"]]
    assert len(said) == 1 and said[0]["level"] == "warning" and "redis down: ConnectionError" in said[0]["event"]
    assert [line for line in parsed(lines) if line["level"] == "error"] == []


def test_presence_degrades_while_redis_is_down(redis_down: None, lines: io.StringIO) -> None:
    table = seated_game("pr")
    response = table.clients[0].get(url(table.game_id, "state"), HTTP_X_REQUEST_ID="probe-1")
    assert response.status_code == 200
    assert body(response)["presence"] == []
    assert response["X-Request-ID"] == "probe-1"
    warnings = [line for line in parsed(lines) if line["logger"] == "games.table.presence"]
    assert warnings, lines.getvalue()
    # the line about the game carries the request, the user and the game
    assert warnings[0]["request_id"] == "probe-1"
    assert warnings[0]["game"] == table.game_id
    assert warnings[0]["user"] == "pr0"


def test_a_request_id_is_made_when_the_client_sends_none_or_a_bad_one() -> None:
    first, second = Client().get("/api/games"), Client().get("/api/games", HTTP_X_REQUEST_ID="x" * 200)
    assert len(first["X-Request-ID"]) == 32 and len(second["X-Request-ID"]) == 32
    assert first["X-Request-ID"] != second["X-Request-ID"]


def test_metrics_count_moves_by_type_and_path_and_requests_by_status() -> None:
    from prometheus_client.parser import text_string_to_metric_families

    def sample(name: str, **labels: str) -> float:
        text = Client().get("/metrics").content.decode()
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                    return float(s.value)
        return 0.0

    table = seated_game("mt")
    before = sample("ttr_moves_appended_total", type="keep_tickets", path="http")
    requests_before = sample("ttr_http_requests_total", method="POST", status="201")
    seat = table.state()["view"]["deciding_seats"][0]
    move = choose(table.get(seat, "legal-moves")["moves"], random.Random(1))
    table.play(seat, move)
    assert sample("ttr_moves_appended_total", type=move["type"], path="http") >= 1
    assert sample("ttr_moves_appended_total", type="keep_tickets", path="http") == before + 1
    assert sample("ttr_http_requests_total", method="POST", status="201") == requests_before + 1
    assert sample("ttr_games", status="active") >= 1
    response = Client().get("/metrics")
    assert response["Content-Type"].startswith("text/plain")
    assert "ttr_move_seconds_bucket" in response.content.decode()


def test_a_service_that_is_down_is_named_through_the_causes() -> None:
    import psycopg
    import redis.exceptions
    from django.db.utils import OperationalError

    try:
        try:
            raise psycopg.errors.AdminShutdown("terminating connection due to administrator command")
        except psycopg.Error as error:
            raise OperationalError(str(error)) from error
    except OperationalError as wrapped:
        assert unavailable.which(wrapped) == "database"
    assert unavailable.which(redis.exceptions.ConnectionError("refused")) == "redis"
    assert unavailable.which(ValueError("a bug")) is None


def test_a_read_cut_by_the_database_is_tried_once_more_and_other_failures_are_not() -> None:
    from django.db import OperationalError

    calls: list[int] = []

    def cut_once() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return "read"

    assert unavailable.once_more_if_cut(cut_once) == "read" and len(calls) == 2

    def always_cut() -> str:
        raise OperationalError("the database is gone")

    with pytest.raises(OperationalError):
        unavailable.once_more_if_cut(always_cut)

    def broken() -> str:
        calls.append(1)
        raise ValueError("a bug, not the database")

    calls.clear()
    with pytest.raises(ValueError):
        unavailable.once_more_if_cut(broken)
    assert len(calls) == 1


def test_a_view_failing_for_a_service_answers_503_with_retry_after(rf: Any) -> None:
    import redis.exceptions

    def view(request: Any) -> Any:
        raise redis.exceptions.ConnectionError("Connection refused")

    middleware = unavailable.UnavailableMiddleware(view)
    request = rf.get("/api/games")
    try:
        view(request)
    except redis.exceptions.ConnectionError as error:
        response = middleware.process_exception(request, error)
    assert response is not None
    assert_error(response, 503, "unavailable")
    assert response["Retry-After"] == str(unavailable.RETRY_AFTER_SECONDS)


def test_log_fields_are_bound_and_cleared() -> None:
    from structlog.contextvars import get_contextvars

    json_logs.bind(game="g", seq=4, user=None)
    assert get_contextvars() == {"game": "g", "seq": 4}
    json_logs.clear()
    assert get_contextvars() == {}


def _boom(request: Any, game_id: str) -> Any:
    raise RuntimeError("a bug")


urlpatterns = [path("boom/<uuid:game_id>", _boom)]  # this module is the urlconf of the tests below
handler500 = project_urls.handler500  # the project's 500 handler, as ttr_server/urls.py names it


def test_a_500_logs_its_traceback_once_with_the_request_and_the_game(settings: Any, lines: io.StringIO) -> None:
    settings.ROOT_URLCONF = __name__
    game = "7d3b8a52-8a6b-4a7e-9d7c-2f5d9f0f5b11"
    response = Client(raise_request_exception=False).get(f"/boom/{game}", HTTP_X_REQUEST_ID="req-500")
    assert_error(response, 500, "server_error")
    errors = [line for line in parsed(lines) if line["level"] == "error"]
    assert len(errors) == 1, errors
    assert errors[0]["request_id"] == "req-500" and errors[0]["game"] == game
    assert "RuntimeError: a bug" in errors[0]["exception"] and "Traceback" in errors[0]["exception"]


def test_a_500_caused_by_a_service_that_is_down_is_a_503(settings: Any, lines: io.StringIO) -> None:
    import redis.exceptions

    def down(request: Any, game_id: str) -> Any:
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    settings.ROOT_URLCONF = __name__
    urlpatterns.append(path("down/<uuid:game_id>", down))
    try:
        response = Client(raise_request_exception=False).get("/down/7d3b8a52-8a6b-4a7e-9d7c-2f5d9f0f5b11")
    finally:
        urlpatterns.pop()
    assert_error(response, 503, "unavailable")
    assert response["Retry-After"] and body(response)["service"] == "redis"
    assert not [line for line in parsed(lines) if "Traceback" in str(line.get("exception", ""))]


def test_the_containers_health_checks_read_the_heartbeats() -> None:
    import socket

    from django.core.management import call_command
    from django.core.management.base import CommandError

    for what in ("worker", "sweep"):
        with pytest.raises(CommandError, match="no heartbeat"):
            call_command("alive", what)
    health.beat("worker:default0@another-host")
    with pytest.raises(CommandError):  # a worker of another container does not make this one healthy
        call_command("alive", "worker")
    health.beat(f"worker:default0@{socket.gethostname()}")
    health.beat("sweep")
    call_command("alive", "worker")
    call_command("alive", "sweep")
