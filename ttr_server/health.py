"""Health, readiness and metrics (docs/API.md, Operations), answered by the first middleware: before the host check and
the session, so a container's probe on 127.0.0.1 works whatever ALLOWED_HOSTS says, and a probe costs nothing else.

- `GET /healthz`: the process serves (no dependency is asked). `GET /healthz?detail=1` adds the other processes'
  heartbeats: the newest age of each kind of worker (by node name: default, strong, analysis) and of beat's sweep.
- `GET /readyz`: this process's own readiness: its database and its Redis (when the stack uses it) answer; 503 with
  `Retry-After` otherwise. Workers are not asked: a load balancer probes /readyz, and one dead worker must not take
  every web process out of it (a bot outage would become a total outage). Their heartbeats go to /healthz's detail
  and to /metrics (`ttr_heartbeat_age_seconds`), where an operator alerts on them. The answer, read by anyone,
  says only "ok" or "down": why (which host, which error) goes to the log, at most once a minute per check.
- `GET /metrics`: every process's figures added up (ttr_server/metrics.py), the number of games by status and the
  heartbeats' ages.

Workers beat every `BEAT_SECONDS` from a thread of their own (`start_heartbeat`, started by ttr_server/celery.py when
a worker is ready), a row `worker:<hostname>` in `games.Heartbeat`; the sweep writes `sweep` each time it runs, so
beat's health is seen too. A warm shutdown removes the worker's row.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import close_old_connections, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from ttr_server import draining, metrics, redis_config, unavailable

if TYPE_CHECKING:
    from prometheus_client.metrics_core import Metric

logger = logging.getLogger(__name__)
BEAT_SECONDS = 2.0
STALE_SECONDS = 10.0
SWEEP_STALE_SECONDS = 30.0  # beat sends the sweep every TTR_SWEEP_SECONDS (1 s); a busy worker may run it late


COMPLAIN_SECONDS = 60.0
_complained: dict[str, float] = {}


def healthz(request: HttpRequest) -> HttpResponse:
    if request.GET.get("detail") != "1":
        return JsonResponse({"ok": True})
    try:
        beats = heartbeat_ages()
    except Exception as error:  # the database is down: the process still serves
        _complain("heartbeats", error)
        return JsonResponse({"ok": True, "heartbeats": None})
    return JsonResponse({"ok": True, "heartbeats": {name: _heartbeat_state(name, age) for name, age in beats.items()}})


def readyz(request: HttpRequest) -> HttpResponse:
    if draining.draining():  # SIGTERM: the balancer takes this process out before it stops (ttr_server/draining.py)
        answer = JsonResponse({"ok": False, "draining": True}, status=503)
        answer["Retry-After"] = str(unavailable.RETRY_AFTER_SECONDS)
        return answer
    checks = {"database": _check("database", _database), "redis": _check("redis", _redis)}
    ok = all(value in ("ok", "not used") for value in checks.values())
    answer = JsonResponse({"ok": ok, "checks": checks}, status=200 if ok else 503)
    if not ok:
        answer["Retry-After"] = str(unavailable.RETRY_AFTER_SECONDS)
    return answer


def _check(name: str, probe: Callable[[], str]) -> str:
    try:
        return probe()
    except Exception as error:
        _complain(name, error)
        return "down"


def _complain(name: str, error: Exception) -> None:
    """Why a check failed, for the operator's log (never for the anonymous answer), once a minute per check."""
    now = time.monotonic()
    if now - _complained.get(name, -COMPLAIN_SECONDS) >= COMPLAIN_SECONDS:
        _complained[name] = now
        logger.warning("readiness: %s down: %s: %s", name, type(error).__name__, str(error).strip()[:200])


class ProbeAnswers(logging.Filter):
    """Drops django.request's error line for a probe's 503 (/readyz while a dependency is down, polled every few
    seconds by a balancer): `_complain` has said why, once a minute, at warning level."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        return getattr(request, "path", None) not in ROUTES


def _heartbeat_state(name: str, age: float) -> dict[str, object]:
    stale = age > (SWEEP_STALE_SECONDS if name == "beat" else STALE_SECONDS)
    return {"state": "stale" if stale else "ok", "age_seconds": round(age, 1)}


def heartbeat_ages() -> dict[str, float]:
    """Seconds since the newest heartbeat of each kind of process: `worker:<node>` for each worker node name
    (`default`, `strong`, `analysis`: the part before `@host`, so no host is named) and `beat` (the sweep's)."""
    from games.store.models import Heartbeat

    now = timezone.now()
    ages: dict[str, float] = {}
    for name, at in Heartbeat.objects.values_list("name", "at"):
        kind = "beat" if name == "sweep" else name.split("@", 1)[0] if name.startswith("worker:") else None
        if kind is not None:
            age = (now - at).total_seconds()
            ages[kind] = min(age, ages.get(kind, age))
    return ages


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def _redis() -> str:
    if not settings.REDIS_URL:
        return "not used"
    client = redis_config.client(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)  # the primary
    try:
        client.ping()
    finally:
        redis_config.close(client)
    return "ok"


def newest_age(prefix: str, *, suffix: str = "") -> float | None:
    """Seconds since the newest heartbeat whose name starts with `prefix` (and ends with `suffix`: a worker's
    node name ends in `@host`), or None when there is none."""
    from games.store.models import Heartbeat

    beats = Heartbeat.objects.filter(name__startswith=prefix, name__endswith=suffix)
    newest = beats.order_by("-at").values_list("at", flat=True).first()
    return None if newest is None else (timezone.now() - newest).total_seconds()


def beat(name: str) -> None:
    from games.store.models import Heartbeat

    Heartbeat.objects.update_or_create(name=name, defaults={"at": timezone.now()})


def forget(name: str) -> None:
    from games.store.models import Heartbeat

    Heartbeat.objects.filter(name=name).delete()


def prune(older_than: timedelta) -> None:
    """Drop the heartbeats of processes long gone (the sweep does, now and then)."""
    from games.store.models import Heartbeat

    Heartbeat.objects.filter(at__lt=timezone.now() - older_than).delete()


class Heartbeats:
    """A worker's heartbeat thread."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="ttr-heartbeat", daemon=True)

    def _run(self) -> None:
        complained = 0.0
        while not self.stopped.is_set():
            try:
                beat(self.name)
            except Exception as error:  # the database is down: say so once a minute, beat again when it is back
                if time.monotonic() - complained > 60:
                    complained = time.monotonic()
                    logger.warning("heartbeat not written: %s: %s", type(error).__name__, error)
            finally:
                close_old_connections()
            self.stopped.wait(BEAT_SECONDS)

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=BEAT_SECONDS * 2)
        try:
            forget(self.name)
        except Exception:  # the database is down: the row simply grows old
            pass
        finally:
            close_old_connections()


def _metrics_text() -> bytes:
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector

    registry = CollectorRegistry()
    if metrics.directory() is not None:
        MultiProcessCollector(registry)
    registry.register(_GamesCollector())
    registry.register(_HeartbeatsCollector())
    return generate_latest(registry)


class _GamesCollector:
    """Games by status, counted when scraped (from the database; nothing when it is down)."""

    def collect(self) -> Iterator[Metric]:
        from django.db.models import Count
        from prometheus_client.core import GaugeMetricFamily

        from games.store.models import Game

        family = GaugeMetricFamily("ttr_games", "Games by status", labels=["status"])
        try:
            counts = dict(Game.objects.values("status").annotate(n=Count("pk")).values_list("status", "n"))
        except Exception as error:
            logger.warning("games by status not counted: %s", type(error).__name__)
            return
        for status in Game.Status.values:
            family.add_metric([status], counts.get(status, 0))
        yield family


class _HeartbeatsCollector:
    """The age of each kind of process's newest heartbeat (alert on it: /readyz does not ask the workers)."""

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.core import GaugeMetricFamily

        family = GaugeMetricFamily(
            "ttr_heartbeat_age_seconds", "Seconds since the newest heartbeat of each kind of process", labels=["process"]
        )
        try:
            ages = heartbeat_ages()
        except Exception as error:
            logger.warning("heartbeats not read: %s", type(error).__name__)
            return
        for name, age in sorted(ages.items()):
            family.add_metric([name], age)
        yield family


def metrics_view(request: HttpRequest) -> HttpResponse:
    from prometheus_client import CONTENT_TYPE_LATEST

    return HttpResponse(_metrics_text(), content_type=CONTENT_TYPE_LATEST)


ROUTES: dict[str, Callable[[HttpRequest], HttpResponse]] = {
    "/healthz": healthz,
    "/readyz": readyz,
    "/metrics": metrics_view,
}


class HealthMiddleware:
    """Answers ROUTES (GET or HEAD) before anything else runs."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        view = ROUTES.get(request.path)
        if view is None:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            answer = JsonResponse({"code": "method_not_allowed", "detail": "use GET"}, status=405)
            answer["Allow"] = "GET, HEAD"
            return answer
        return view(request)
