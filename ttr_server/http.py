"""Django's HTTP handler for ASGI, with one thread hop per request.

Django's own `ASGIHandler` runs a sync view under several hops between the event loop and a worker thread:
the request_started signal, the middleware chain, the view, the logging of error responses and the
response's close (request_finished) each cross over, about a millisecond apiece under load. Our views and
middleware are all sync, so this handler reads the body on the event loop, does everything from the signals
to the response in a single call in a worker thread, and sends the response back on the loop. Streaming
responses are closed after sending, as Django does. Nothing is lost by not listening for a disconnect while
the view runs: a sync view in a thread cannot be cancelled anyway. WebSockets go through Channels.

The size limits (ttr_server/limits.py) are applied here before the body is read: a declared Content-Length
over the limit is refused at once, and a chunked body is refused as soon as it passes the limit.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import django
from asgiref.sync import sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers import asgi
from django.http import HttpResponseBase
from django.urls import set_script_prefix

from ttr_server import limits

# ASGI's receive and send, as Django's handler takes them
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]


class _TooLarge(Exception):
    pass


class ASGIHandler(asgi.ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)  # the chain runs in the worker thread, sync end to end

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        """Without Django's `ThreadSensitiveContext` around each request: under it, the request's one sync call got
        a new thread, started and joined every time, with the event loop standing still meanwhile (a fifth of a
        move's samples at 32 clients, bench/profile_moves.py). The call runs in a thread of the loop's pool
        instead: threads reused, each with its own database connection from the pool."""
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}")
        await self.handle(scope, receive, send)

    async def handle(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        path = scope.get("raw_path") or scope["path"]
        refused = limits.refusal(len(path) + len(scope.get("query_string", b"")), _header(scope, b"content-length"))
        if refused is not None:
            await self.send_response(refused, send)
            return
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        except _TooLarge:
            await self.send_response(limits.too_large(), send)
            return
        try:
            response = await sync_to_async(self._respond, thread_sensitive=False)(scope, body_file)
            try:
                await self.send_response(response, send)
            finally:
                if response.streaming:
                    await sync_to_async(response.close, thread_sensitive=False)()
        finally:
            body_file.close()

    async def read_body(self, receive: Receive) -> io.BytesIO:
        """The body, refused with `_TooLarge` as soon as it passes the limit (Django's reads it all)."""
        body_file = io.BytesIO()  # bounded by the limit: memory is enough
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                body_file.close()
                raise RequestAborted()
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limits.MAX_BODY_BYTES:
                body_file.close()
                raise _TooLarge()
            body_file.write(chunk)
            if not message.get("more_body", False):
                break
        body_file.seek(0)
        return body_file

    def _respond(self, scope: dict[str, Any], body_file: io.BytesIO) -> HttpResponseBase:
        set_script_prefix(asgi.get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        created = self.create_request(scope, body_file)  # (the request, None) or (None, the response refusing it)
        if created[0] is None:
            response = created[1]
        else:
            response = self.get_response(created[0])
            response._handler_class = self.__class__  # type: ignore[attr-defined]  # as Django's handler sets it; unstubbed
        if not response.streaming:
            response.close()  # sends request_finished: database connections go back to the pool
        return response


def _header(scope: dict[str, Any], name: bytes) -> bytes | None:
    return next((value for key, value in scope.get("headers", ()) if key == name), None)


def get_asgi_application() -> ASGIHandler:
    django.setup(set_prefix=False)
    return ASGIHandler()
