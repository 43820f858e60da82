"""Every API error is JSON `{"code", "detail", ...}` with the right status (docs/API.md), never HTML, never a 500
for bad input. Engine refusals carry the rule ID; malformed input names the field. No error quotes a
client's value at length: the sources quote short prefixes, and `_clipped` bounds whatever else slips through.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, JsonResponse
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from games.api.responses import ErrorSerializer
from games.engine import IllegalMove, NotYourTurn
from games.engine.codec import InvalidMove
from games.store.event_log import StaleSeq
from games.store.service_error import ServiceError

_DRF_CODES = {
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.Throttled: "throttled",
    exceptions.ParseError: "invalid",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.ValidationError: "invalid",
}


ERROR_STATUSES = {
    400: "invalid input (`invalid`, naming the field) or a move the rules refuse (`illegal_move`, naming the rule)",
    401: "no or a bad credential where one is needed (`not_authenticated`, `authentication_failed`)",
    403: "not allowed (`not_your_turn`, `not_a_player`, `resigned`, `not_creator`, `forbidden`)",
    404: "no such game (`not_found`)",
    409: "the game's state refuses it (`stale_seq`, `not_open`, `not_active`, `seat_taken`, ...)",
    413: "the body is too large (`too_large`)",
    414: "the URL is too long (`url_too_long`)",
    415: "the body is not JSON (`unsupported_media_type`)",
    429: "too many attempts (`throttled`)",
    503: "a service is down or reconnecting, or no search worker answered in time (`unavailable`, naming the `service`)",
}


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """The schema's error responses for these statuses: each the error body, described."""
    return {code: OpenApiResponse(ErrorSerializer, description=ERROR_STATUSES[code]) for code in statuses}


def error(code: str, detail: str, status_code: int, **extra: object) -> Response:
    return Response({"code": code, "detail": detail, **extra}, status=status_code)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, NotYourTurn):
        return error("not_your_turn", exc.detail, status.HTTP_403_FORBIDDEN, rule=exc.rule)
    if isinstance(exc, IllegalMove):
        return error("illegal_move", exc.detail, status.HTTP_400_BAD_REQUEST, rule=exc.rule)
    if isinstance(exc, InvalidMove):
        return error("invalid", exc.detail, status.HTTP_400_BAD_REQUEST, field=exc.field)
    if isinstance(exc, StaleSeq):
        return error("stale_seq", str(exc), status.HTTP_409_CONFLICT, seq=exc.current)
    if isinstance(exc, ServiceError):
        answer = error(exc.code, exc.detail, exc.status, **exc.extra)
        if exc.extra.get("retry_after") is not None:  # a limit (429): the header clients and proxies read, too
            answer["Retry-After"] = str(exc.extra["retry_after"])
        return answer
    if isinstance(exc, Http404):
        return error("not_found", "not found", status.HTTP_404_NOT_FOUND)
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), exc.default_code)
    body: dict[str, Any] = {"code": code, "detail": _clipped(_sentence(exc.detail), DETAIL_LIMIT)}
    if isinstance(exc, exceptions.ValidationError) and isinstance(exc.detail, dict):
        body["fields"] = {_clipped(str(k), 40): _clipped(_sentence(v), 200) for k, v in list(exc.detail.items())[:10]}
        body["field"] = next(iter(body["fields"]), None)
    response.data = body
    return response


DETAIL_LIMIT = 300


def _clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _sentence(detail: object) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{field}: {_sentence(value)}" for field, value in detail.items())
    if isinstance(detail, list):
        return " ".join(_sentence(item) for item in detail)
    return str(detail)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse({"code": "invalid", "detail": "the request is malformed"}, status=400)


def forbidden(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse({"code": "forbidden", "detail": "you may not do that"}, status=403)


def not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse({"code": "not_found", "detail": "no such page"}, status=404)

