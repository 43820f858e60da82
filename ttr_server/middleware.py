"""Django's standard middleware, marked sync-only.

Under ASGI Django calls async-capable middleware in async mode, and each sync hook of the standard classes
(`MiddlewareMixin.__acall__`) then costs a hop to a worker thread and back: about a dozen hops, several
milliseconds, per request. Our views are sync, so a chain that is sync from end to end is adapted once, at
its outer edge, and runs in one thread. WebSockets go through Channels and are not affected.
"""

from __future__ import annotations

from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.middleware import clickjacking, common, csrf, security


def _sync_only(base: type) -> type:
    return type(base.__name__, (base,), {"async_capable": False, "__module__": __name__})


SecurityMiddleware = _sync_only(security.SecurityMiddleware)
SessionMiddleware = _sync_only(sessions.SessionMiddleware)
CommonMiddleware = _sync_only(common.CommonMiddleware)
CsrfViewMiddleware = _sync_only(csrf.CsrfViewMiddleware)
AuthenticationMiddleware = _sync_only(auth.AuthenticationMiddleware)
MessageMiddleware = _sync_only(messages.MessageMiddleware)
XFrameOptionsMiddleware = _sync_only(clickjacking.XFrameOptionsMiddleware)
