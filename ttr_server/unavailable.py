"""A service that is briefly gone (the database, Redis) answers 503 `unavailable` with `Retry-After`, never a 500.

`which(exc)` names the service an exception says is down or reconnecting ("database", "redis", "broker"), looking
through its causes, or None for any other error (a bug stays a 500). Three places at the edge turn it into the
answer (docs/API.md, Operations): the DRF exception handler (games/api/error_responses.py), `UnavailableMiddleware` for plain
Django views, and the 500 handler for what fails outside a view (a session saved after it, say). Nothing is
half-written: a move is one transaction, so a request cut off by the database commits nothing, and the client
may send the same `expected_seq` again.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from django.db import connections
from django.db import utils as db_utils
from django.http import HttpRequest, HttpResponse, JsonResponse

from ttr_server import metrics

logger = logging.getLogger(__name__)
RETRY_AFTER_SECONDS = 2


@cache
def _database_errors() -> tuple[type[BaseException], ...]:
    found: list[type[BaseException]] = [db_utils.OperationalError, db_utils.InterfaceError]
    try:
        import psycopg
        import psycopg_pool

        found += [psycopg.OperationalError, psycopg.InterfaceError, psycopg_pool.PoolTimeout]
        # A write on a server that is (now) a standby: a failover under way (docs/OPERATIONS.md, PostgreSQL failover).
        found.append(psycopg.errors.ReadOnlySqlTransaction)
    except ImportError:  # SQLite only
        pass
    return tuple(found)


@cache
def redis_errors() -> tuple[type[Exception], ...]:
    """What redis-py raises while Redis is down, restarting or loading, or failing over (Sentinel's
    MasterNotFoundError is a ConnectionError; ReadOnlyError: a write reached a primary just demoted to a replica)."""
    import redis.exceptions

    return (
        redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, redis.exceptions.BusyLoadingError,
        redis.exceptions.ReadOnlyError,
    )


@cache
def _broker_errors() -> tuple[type[BaseException], ...]:
    import kombu.exceptions

    return (kombu.exceptions.OperationalError,)


_KINDS: list[tuple[str, Callable[[], tuple[type[BaseException], ...]]]] = [
    ("database", _database_errors),
    ("redis", redis_errors),
    ("broker", _broker_errors),
]


def which(exc: BaseException | None) -> str | None:
    """The service whose absence `exc` (or one of its causes) reports, or None."""
    seen = 0
    while exc is not None and seen < 10:
        for name, errors in _KINDS:
            if isinstance(exc, errors()):
                return name
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


_T = TypeVar("_T")


def once_more_if_cut(read: Callable[[], _T]) -> _T:
    """`read()`, and once more on a fresh connection if the database connection was cut under it (a restart,
    `pg_terminate_backend`): for reads only, which are harmless to repeat. A second failure is raised."""
    try:
        return read()
    except Exception as error:
        if which(error) != "database":
            raise
        for connection in connections.all(initialized_only=True):
            connection.close_if_unusable_or_obsolete()
        return read()


def body(service: str) -> dict[str, Any]:
    return {"code": "unavailable", "detail": f"the {service} is unavailable just now; try again shortly", "service": service}


def response(service: str) -> JsonResponse:
    answer = JsonResponse(body(service), status=503)
    answer["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return answer


def log(service: str, exc: BaseException, *, request: HttpRequest | None = None) -> None:
    """One line, no traceback: the cause is outside this process."""
    metrics.UNAVAILABLE.labels(service).inc()
    path = request.path if request is not None else "-"
    logger.warning("%s unavailable: %s: %s", service, path, f"{type(exc).__name__}: {exc}".strip()[:300])


class UnavailableMiddleware:
    """A view that raised because a service is down answers 503 (DRF hands such errors on to Django).

    A database connection cut under a request (the server restarted, `pg_terminate_backend`) is tried once more
    on a fresh connection when running the request again is harmless: a read, or a move, whose `expected_seq`
    makes a second try of a move that did commit a `409 stale_seq`, never a second move. The pool checks each
    connection before handing it out, so the second try does not meet a dead one."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        retryable = _retryable(request)
        if retryable and request.method == "POST":
            request.body  # noqa: B018  (read and kept: a second try parses the same body)
        answer = self.get_response(request)
        if retryable and getattr(request, "_ttr_unavailable", None) == "database":
            for connection in connections.all(initialized_only=True):
                connection.close_if_unusable_or_obsolete()
            request._ttr_retried = True  # type: ignore[attr-defined]
            answer = self.get_response(request)
        return answer

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        service = which(exc)
        if service is None:
            return None
        first = not getattr(request, "_ttr_retried", False)
        if first and service == "database" and _retryable(request):
            request._ttr_unavailable = service  # type: ignore[attr-defined]
            logger.info("database connection lost under %s %s: trying once more", request.method, request.path)
            return response(service)  # replaced by the second try's answer
        log(service, exc, request=request)
        return response(service)


def _retryable(request: HttpRequest) -> bool:
    return request.method in ("GET", "HEAD", "OPTIONS") or (request.method == "POST" and request.path.endswith("/moves"))


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler (called inside the `except` of the failure): 503 when a service is the cause."""
    exc = sys.exc_info()[1]
    service = which(exc)
    if service is None or exc is None:
        return JsonResponse({"code": "server_error", "detail": "the server failed; nothing was changed"}, status=500)
    log(service, exc, request=request)
    return response(service)
