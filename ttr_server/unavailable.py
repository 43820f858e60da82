"""A service that is briefly gone (the database, Redis) answers 503 `unavailable` with `Retry-After`, never a 500.

`which(exc)` names the service an exception says is down or reconnecting ("database", "redis", "broker"), looking
through its causes, or None for any other error (a bug stays a 500). Three places at the edge turn it into the
answer (API.md, Operations): the DRF exception handler (games/api/errors.py), `UnavailableMiddleware` for plain
Django views, and the 500 handler for what fails outside a view (a session saved after it, say). Nothing is
half-written: a move is one transaction, so a request cut off by the database commits nothing, and the client
may send the same `expected_seq` again.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from django.db import utils as db_utils
from django.http import HttpRequest, HttpResponse, JsonResponse

from ttr_server import metrics

logger = logging.getLogger(__name__)
RETRY_AFTER_SECONDS = 2


def _database_errors() -> tuple[type[BaseException], ...]:
    found: list[type[BaseException]] = [db_utils.OperationalError, db_utils.InterfaceError]
    try:
        import psycopg
        import psycopg_pool

        found += [psycopg.OperationalError, psycopg.InterfaceError, psycopg_pool.PoolTimeout]
    except ImportError:  # SQLite only
        pass
    return tuple(found)


def _redis_errors() -> tuple[type[BaseException], ...]:
    import redis.exceptions

    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, redis.exceptions.BusyLoadingError)


def _broker_errors() -> tuple[type[BaseException], ...]:
    import kombu.exceptions

    return (kombu.exceptions.OperationalError,)


_KINDS: list[tuple[str, Callable[[], tuple[type[BaseException], ...]]]] = [
    ("database", _database_errors),
    ("redis", _redis_errors),
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


def body(service: str) -> dict[str, Any]:
    return {"code": "unavailable", "detail": f"the {service} is unavailable just now; try again shortly", "service": service}


def response(service: str) -> JsonResponse:
    answer = JsonResponse(body(service), status=503)
    answer["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return answer


def log(service: str, exc: BaseException, request: HttpRequest | None = None) -> None:
    """One line, no traceback: the cause is outside this process."""
    metrics.UNAVAILABLE.labels(service).inc()
    path = request.path if request is not None else "-"
    logger.warning("%s unavailable: %s: %s", service, path, f"{type(exc).__name__}: {exc}".strip()[:300])


class UnavailableMiddleware:
    """Outside DRF: a view that raised because a service is down answers 503."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        service = which(exc)
        if service is None:
            return None
        log(service, exc, request)
        return response(service)


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler (called inside the `except` of the failure): 503 when a service is the cause."""
    exc = sys.exc_info()[1]
    service = which(exc)
    if service is None or exc is None:
        return JsonResponse({"code": "server_error", "detail": "the server failed; nothing was changed"}, status=500)
    log(service, exc, request)
    return response(service)
