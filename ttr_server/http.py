"""The HTTP side of the ASGI application: the request size limits (ttr_server/limits.py) applied before Django reads
anything, around Django's own ASGI handler (or the one-hop handler, ttr_server/overrides/http_handler.py).

A declared Content-Length or a URL over the limit is refused at once, and a body sent without one (chunked) as soon
as it passes the limit: Django's handler would read it whole first (to a temporary file). A body within the limit is
handed on as one message. WebSockets go through Channels.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import django
from django.core.asgi import get_asgi_application as djangos_application
from django.http import HttpResponse

from ttr_server import draining, limits, overrides

Scope = dict[str, Any]  # as Django's handler takes it
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]
Application = Callable[[Scope, Receive, Send], Awaitable[None]]


class SizeLimited:
    """An ASGI application that answers requests over the size limits itself and passes the others to `app`."""

    def __init__(self, app: Application) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        draining.ensure()  # under uvicorn: SIGTERM first takes the process out of the balancer
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("raw_path") or scope["path"]
        refused = limits.refusal(len(path) + len(scope.get("query_string", b"")), _header(scope, b"content-length"))
        if refused is not None:
            await _answer(refused, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left before its body was whole: nobody to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limits.MAX_BODY_BYTES:
                await _answer(limits.too_large(), send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        first: list[Mapping[str, Any]] = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]

        async def replay() -> Mapping[str, Any]:
            return first.pop() if first else await receive()  # the body, then whatever the client sends next

        await self.app(scope, replay, send)


async def _answer(response: HttpResponse, send: Send) -> None:
    headers = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in response.items()]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})


def _header(scope: Scope, name: bytes) -> bytes | None:
    return next((value for key, value in scope.get("headers", ()) if key == name), None)


def get_asgi_application() -> SizeLimited:
    django.setup(set_prefix=False)
    if overrides.enabled("http_one_hop"):
        from ttr_server.overrides.http_handler import OneHopHandler

        return SizeLimited(OneHopHandler())
    return SizeLimited(djangos_application())
