"""Request size limits, refused before anything reads the request: JSON errors, never Django's HTML page.

No request of the API needs more than a few hundred bytes of body (the largest is a move with its payment),
so bodies over `MAX_BODY_BYTES` get 413 `too_large` and URLs over `MAX_URL_CHARS` get 414 `url_too_long`.
The ASGI handler applies them while the body arrives (a chunked body has no Content-Length); the middleware
applies them to everything else that reaches Django (the test client, other servers).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

MAX_BODY_BYTES = 32 * 1024
MAX_URL_CHARS = 4096


def too_large() -> JsonResponse:
    detail = f"the request body is over {MAX_BODY_BYTES} bytes; no request of this API needs that much"
    return JsonResponse({"code": "too_large", "detail": detail}, status=413)


def url_too_long() -> JsonResponse:
    detail = f"the URL is over {MAX_URL_CHARS} characters"
    return JsonResponse({"code": "url_too_long", "detail": detail}, status=414)


def declared_length(value: str | bytes | None) -> int | None:
    """The Content-Length a client declared, or None when it declared none or nonsense (then we count)."""
    try:
        return int(value) if value else None
    except ValueError:
        return None


class RequestLimitsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if len(request.get_full_path()) > MAX_URL_CHARS:
            return url_too_long()
        if (declared_length(request.META.get("CONTENT_LENGTH")) or 0) > MAX_BODY_BYTES:
            return too_large()
        return self.get_response(request)
