"""One rule for request bodies in every view of the API: a view reads a body only for the methods it names in
`body_methods`; a request to any other method with a body is refused, whatever the body's media type (a form,
broken JSON, any JSON value), with 400 `invalid` naming `body`, before the handler runs and changes anything.
Nothing, and the empty JSON object `{}`, are no body: clients that always send an object (the web client's post()
does) stay welcome. The views that read a body parse it strictly (games/api/parsers.py, games/api/serializers.py).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from django.http.request import RawPostDataException
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.views import APIView

NO_BODY = "this endpoint takes no body: send none (or {})"


class ApiView(APIView):
    """An API view; `body_methods`: the methods (lower case) whose handler reads the request's body."""

    body_methods: ClassVar[frozenset[str]] = frozenset()

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # authentication, permissions and throttles come first
        method = (request.method or "").lower()
        if not hasattr(self, method):  # a method the view does not have: its 405, whatever the body
            return
        if method not in self.body_methods and carries_body(request):
            raise ValidationError({"body": [NO_BODY]})


def carries_body(request: Request) -> bool:
    """Whether the request holds a body other than nothing or `{}`."""
    try:
        raw = request._request.body
    except RawPostDataException:  # a multipart form already read (a session's CSRF check reads forms): a body
        return True
    if not raw.strip():
        return False
    if not (request.content_type or "").startswith("application/json"):
        return True
    try:
        return bool(json.loads(raw) != {})
    except ValueError:
        return True
