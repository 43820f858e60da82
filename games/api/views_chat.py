"""Table talk (docs/API.md, Table talk and languages): a game's chat history, reports and mutes. Lines are written
over the game's socket (games/realtime/consumer.py). Thin views, as in games/api/views.py."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import queries as q
from games.api import responses as r
from games.api import serializers as s
from games.api.authentication import signed_in
from games.api.bodies import ApiView
from games.api.error_responses import error_responses
from games.api.fields import INT64_MAX
from games.api.typed_json import to_json
from games.people import accounts
from games.play import selectors
from games.store.service_error import ServiceError
from games.table import chat


class ChatView(ApiView):
    @extend_schema(
        parameters=[q.ChatQuery], responses={200: r.ChatLines, **error_responses(400, 401, 404)},
        description="The game's chat lines after `after` that you may read (the table; the spectators' channel "
        "too when you have no seat), not hidden, none by a person you muted; at most 200, oldest first.",
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id)
        after = q.parsed(q.ChatQuery, request).get("after", 0)
        return Response(to_json(r.ChatLines(results=tuple(chat.visible(game, viewer=request.user, after=after)))))


class ChatReportView(ApiView):
    body_methods = frozenset({"post"})
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[OpenApiParameter("message_id", q.MESSAGE_ID_IN_PATH, OpenApiParameter.PATH, description="its `id`")],
        request=s.ChatReportSerializer,
        responses={200: r.Reported, **error_responses(400, 401, 403, 404, 413, 415)},
        description="Tell staff about a chat line you can read (once: a second report changes nothing).",
    )
    def post(self, request: Request, message_id: int) -> Response:
        if message_id > INT64_MAX:  # the path's digits name no line; SQLite's driver could not even ask
            raise ValidationError({"message_id": [f"must be at most {INT64_MAX}"]})
        data = s.valid_body(s.ChatReportSerializer, request.data if request.data else {})
        chat.report(message_id, reporter=signed_in(request.user), reason=data.get("reason", ""))
        return Response(to_json(r.Reported(reported=True)))


class MuteView(ApiView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[OpenApiParameter("username", q.USERNAME_IN_PATH, OpenApiParameter.PATH, description="in any case")],
        request=None, responses={200: r.Muted, **error_responses(401, 403, 404, 409)},
        description="Stop receiving this person's chat lines, in every game (only you are affected).",
    )
    def post(self, request: Request, username: str) -> Response:
        return self.mute(request, username, on=True)

    @extend_schema(
        parameters=[OpenApiParameter("username", q.USERNAME_IN_PATH, OpenApiParameter.PATH, description="in any case")],
        request=None, responses={200: r.Muted, **error_responses(401, 403, 404, 409)},
        description="Receive this person's chat lines again.",
    )
    def delete(self, request: Request, username: str) -> Response:
        return self.mute(request, username, on=False)

    def mute(self, request: Request, username: str, *, on: bool) -> Response:
        other = accounts.user_named(username)
        if other is None:
            raise ServiceError("not_found", f"nobody is called {username}", status=404)
        chat.mute(signed_in(request.user), other, on=on)
        return Response(to_json(r.Muted(username=other.username, muted=on)))
