"""The request's edge: a request id, the fields every log line of the request carries, and the request metrics.

The id is the client's `X-Request-ID` when it sends a sensible one (a proxy's), else a new one; it is sent back in
`X-Request-ID`. The game's id is bound from the URL; the user when the session names one (a token's user is bound
by games/api/authentication.py); the seq by the move's service once it is appended (games/play/services.py).
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase

from ttr_server import json_logs, metrics, settled

_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class ObserveMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        json_logs.clear()
        given = request.headers.get("X-Request-ID", "")
        request_id = given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        json_logs.bind(request_id=request_id)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            response["X-Request-ID"] = request_id
            metrics.REQUESTS.labels(request.method, str(response.status_code)).inc()
            metrics.REQUEST_SECONDS.labels(request.method).observe(time.perf_counter() - started)
            settled.count_pauses()
            return response
        finally:
            json_logs.clear()

    def process_view(
        self, request: HttpRequest, view: Callable[..., HttpResponseBase], args: tuple[object, ...],
        kwargs: dict[str, object],
    ) -> None:
        if "game_id" in kwargs:
            json_logs.bind(game=str(kwargs["game_id"]))
        if request.COOKIES.get("sessionid"):
            user = getattr(request, "user", None)
            if user is not None and user.is_authenticated:
                json_logs.bind(user=user.get_username())
