"""Django's ASGI handler with one thread hop per request (`http_one_hop`).

Django's own `ASGIHandler` (5.2) runs each request in a `ThreadSensitiveContext`, which starts a thread for the
request and joins it after, and crosses between the event loop and that thread several times: the request_started
signal, the middleware chain with the view, and the response's close (request_finished). Our middleware and views
are all sync, so this handler does everything from the signals to the response in a single call in a thread of the
loop's pool (threads reused, each with its own database connection from the pool), and sends the response back on
the loop. Streaming responses are closed after sending, as Django does. Nothing is lost by not listening for a
disconnect while the view runs: a sync view in a thread cannot be cancelled anyway.

Written against Django 5.2.19 (asgiref 3.13.0): it reuses `read_body`, `create_request`, `send_response` and sets the
private `_handler_class` on the response, as Django's `handle` does (the sender of request_finished). Django's own
handler is used when it is off (ttr_server/http.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import IO, Any

from asgiref.sync import sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers import asgi
from django.http import HttpResponseBase
from django.urls import set_script_prefix

# ASGI's receive and send, as Django's handler takes them
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]


class OneHopHandler(asgi.ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)  # the chain runs in the worker thread, sync end to end

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}")
        await self.handle(scope, receive, send)

    async def handle(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
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

    def _respond(self, scope: dict[str, Any], body_file: IO[bytes]) -> HttpResponseBase:
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



