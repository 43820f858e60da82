"""Playing by day (docs/API.md): the queue, invitations, rematch, my games, vacations and the inbox.

Thin views, as in games/api/views.py: parse, call one use case, format.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import queries as q
from games.api import responses as r
from games.api import serializers as s
from games.api.authentication import signed_in
from games.api.bodies import ApiView
from games.api.error_responses import error_responses
from games.api.typed_json import to_json
from games.api.views import WRITE_ERRORS
from games.clocks import vacations
from games.clocks.shapes import VacationStatus
from games.lobby import matchmaker
from games.lobby.models import QueueEntry
from games.lobby.shapes import QueueStatus
from games.people import inbox
from games.people.models import Notification
from games.play import invitations, rematch, selectors
from games.play.my_clocks import MyGamesClocks, my_games_clocks
from games.play.shapes import Rematch
from games.store.shape_marks import Schema

READ_ERRORS = error_responses(401, 403)


@dataclass(frozen=True, slots=True, kw_only=True)
class NotQueued:
    """You are not in the queue: a normal state, answered 200 (GET /api/me's `queue` is null then)."""

    status: Annotated[str, Schema(enum=["none"])]


_QUEUE: dict[str, Any] = {"waiting": QueueStatus, "matched": QueueStatus, "none": NotQueued}  # (dataclasses)
QUEUE_ANSWER = OpenApiResponse(
    PolymorphicProxySerializer(component_name="QueueAnswer", resource_type_field_name="status", serializers=_QUEUE),
    description='your queue entry, or `{"status": "none"}` when you are not in the queue',
)


class QueueView(ApiView):
    body_methods = frozenset({"post"})
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="queue_join", request=s.QueueSerializer,
        responses={201: QueueStatus, **error_responses(400, 401, 403, 409, 413, 415)},
        description="Wait for a table: players with overlapping choices, closest ratings first; the rating gap "
        "you accept widens the longer you wait. A worker forms the table; you get a `game_formed` notification.",
    )
    def post(self, request: Request) -> Response:
        data = s.valid_body(s.QueueSerializer, request.data)
        entry = matchmaker.join(
            signed_in(request.user), data["map"], data["players"], data["ranked"], data["speed"], data["bots_after"]
        )
        return Response(to_json(matchmaker.status(entry)), status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="queue_status", responses={200: QUEUE_ANSWER, **READ_ERRORS})
    def get(self, request: Request) -> Response:
        entry = QueueEntry.objects.filter(user=signed_in(request.user)).first()
        return Response(to_json(matchmaker.status(entry) if entry is not None else NotQueued(status="none")))

    @extend_schema(operation_id="queue_leave", responses={204: None, **error_responses(401, 403, 404, 409)})
    def delete(self, request: Request) -> Response:
        matchmaker.leave(signed_in(request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)


class InviteView(ApiView):
    body_methods = frozenset({"post"})
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=s.InviteSerializer, responses={201: r.Invitation, **WRITE_ERRORS},
        description="The creator invites a person by name: their own token, sent as an `invitation` notification.",
    )
    def post(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id)
        data = s.valid_body(s.InviteSerializer, request.data)
        invitation = invitations.invite(game.pk, signed_in(request.user), data["username"])
        assert invitation.invitee is not None  # an invitation sent to a person (the game's link has none)
        sent = r.Invitation(username=invitation.invitee.username, token=invitation.token)
        return Response(to_json(sent), status=status.HTTP_201_CREATED)


class RematchView(ApiView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=None, responses={200: Rematch, **error_responses(400, 401, 403, 404, 409, 413)},
        description="Offer a rematch of a finished game, or accept the offer standing. Once every person has "
        "accepted, `game` names the new game (same map, seats and bots; the next seat plays first).",
    )
    def post(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id)
        offer = selectors.offer_summary(rematch.rematch(game.pk, signed_in(request.user)))
        return Response(to_json(Rematch(offer=offer)))


class MyGamesView(ApiView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        responses={200: MyGamesClocks, **READ_ERRORS},
        description="Your open and active games (and those just over), the ones awaiting your move first; a daily "
        "game's row tells who of its players is on vacation (`away`) and the bank left of its deadline's seat.",
    )
    def get(self, request: Request) -> Response:
        return Response(to_json(my_games_clocks(signed_in(request.user))))


class VacationView(ApiView):
    body_methods = frozenset({"post"})
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(operation_id="vacation_status", responses={200: VacationStatus, **READ_ERRORS})
    def get(self, request: Request) -> Response:
        return Response(to_json(vacations.status(signed_in(request.user))))

    @extend_schema(
        operation_id="vacation_take", request=s.VacationSerializer,
        responses={201: VacationStatus, **error_responses(400, 401, 403, 409, 413, 415)},
        description="Stop your daily clocks for `days` days (from now, or added to the vacation you are on).",
    )
    def post(self, request: Request) -> Response:
        data = s.valid_body(s.VacationSerializer, request.data)
        return Response(to_json(vacations.take(signed_in(request.user), data["days"])), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="vacation_end", responses={200: VacationStatus, **READ_ERRORS},
        description="End your vacation now: your clocks run again and the unused days are given back.",
    )
    def delete(self, request: Request) -> Response:
        return Response(to_json(vacations.end(signed_in(request.user))))


class NotificationsView(ApiView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[q.NotificationsQuery], responses={200: r.NotificationListSerializer, **error_responses(400, 401, 403)},
        description="Your notifications, newest first (the latest 100; `unread=1`: only those not read yet).",
    )
    def get(self, request: Request) -> Response:
        query = q.parsed(q.NotificationsQuery, request)
        rows = Notification.objects.filter(user=signed_in(request.user))
        if query.get("unread"):
            rows = rows.filter(read=False)
        return Response({"results": [inbox.as_json(row) for row in rows.order_by("-pk")[:100]]})


class NotificationsReadView(ApiView):
    body_methods = frozenset({"post"})
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="notifications_read", request=s.ReadSerializer,
        responses={204: None, **error_responses(400, 401, 403, 413, 415)},
    )
    def post(self, request: Request) -> Response:
        data = s.valid_body(s.ReadSerializer, request.data)
        inbox.mark_read(signed_in(request.user).pk, None if data.get("all") else data["ids"])
        return Response(status=status.HTTP_204_NO_CONTENT)
