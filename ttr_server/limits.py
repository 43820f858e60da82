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


def refusal(url_chars: int, content_length: str | bytes | None) -> JsonResponse | None:
    """The answer to a request whose URL or declared body is over the limit, or None to go on."""
    if url_chars > MAX_URL_CHARS:
        return url_too_long()
    if _declared(content_length) > MAX_BODY_BYTES:
        return too_large()
    return None


def _declared(value: str | bytes | None) -> int:
    """The Content-Length a client declared; 0 when none or nonsense (then the body is counted as it comes)."""
    try:
        return int(value) if value else 0
    except ValueError:
        return 0


class RequestLimitsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        refused = refusal(len(request.get_full_path()), request.META.get("CONTENT_LENGTH"))
        return refused if refused is not None else self.get_response(request)
