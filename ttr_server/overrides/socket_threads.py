"""Sync (database) code of the sockets run in a thread of the loop's pool without asgiref's context handling
(`socket_threads`).

Channels' `database_sync_to_async` (4.3, on asgiref 3.13's `SyncToAsync`) sets every context variable back in the
caller's context after each call; that was 6 % of a socket move's CPU, and nothing run here sets one the socket
needs. This runs the call in a copy of the caller's context (its log fields) with Django's connections closed before
and after, as `database_sync_to_async` does (a pooled one goes back to the pool).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from django.db import close_old_connections

_P = ParamSpec("_P")
_R = TypeVar("_R")


def run(function: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> Awaitable[_R]:
    call = functools.partial(_closing_connections, function, *args, **kwargs)
    return asyncio.get_running_loop().run_in_executor(None, contextvars.copy_context().run, call)


def _closing_connections(function: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R:
    close_old_connections()
    try:
        return function(*args, **kwargs)
    finally:
        close_old_connections()
