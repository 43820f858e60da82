"""Game endpoints (API.md): thin views that parse, call one service or selector, and format."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import log, selectors, services
from games.api import serializers as s
from games.api.errors import error
from games.codec import move_from_dict
from games.models import Game
from games.verify import verify_game


def _valid(serializer_class: type, data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _int_param(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        from games.services import ServiceError

        raise ServiceError("invalid", f"{name} must be a non-negative integer", field=name)
    return value


class GamesPagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100


class GamesView(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("status", str, enum=["open", "active", "finished"]), OpenApiParameter("mine", int)],
        responses={200: dict},
    )
    def get(self, request: Request) -> Response:
        status_filter = request.query_params.get("status")
        if status_filter and status_filter not in Game.Status.values:
            return error("invalid", f"status must be one of {Game.Status.values}", 400, field="status")
        games = selectors.games_list(request.user, status_filter, request.query_params.get("mine") in ("1", "true"))
        paginator = GamesPagination()
        page = paginator.paginate_queryset(games, request, view=self) or []
        return paginator.get_paginated_response([selectors.game_summary(g) for g in page])

    @extend_schema(request=s.GameCreateSerializer, responses={201: s.GameSummarySerializer})
    def post(self, request: Request) -> Response:
        data = _valid(s.GameCreateSerializer, request.data)
        game = services.game_create(request.user, data["map"], data["players"], data["ranked"], data["turn_seconds"])
        return Response(selectors.game_summary(selectors.game_get(game.pk)), status=status.HTTP_201_CREATED)


class GameView(APIView):
    @extend_schema(responses={200: s.GameSummarySerializer, 404: s.ErrorSerializer})
    def get(self, request: Request, game_id: str) -> Response:
        return Response(selectors.game_summary(selectors.game_get(game_id)))


class JoinView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.JoinSerializer, responses={200: s.GameSummarySerializer, 409: s.ErrorSerializer})
    def post(self, request: Request, game_id: str) -> Response:
        data = _valid(s.JoinSerializer, request.data)
        game = services.game_join(selectors.game_get(game_id).pk, request.user, data.get("seat"))
        return Response(selectors.game_summary(selectors.game_get(game.pk)))


class BotsView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.BotSerializer, responses={200: s.GameSummarySerializer, 403: s.ErrorSerializer})
    def post(self, request: Request, game_id: str) -> Response:
        data = _valid(s.BotSerializer, request.data)
        game = services.game_add_bot(selectors.game_get(game_id).pk, request.user, data["level"], data.get("seat"))
        return Response(selectors.game_summary(selectors.game_get(game.pk)))


class StartView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.StartSerializer, responses={200: s.GameSummarySerializer, 409: s.ErrorSerializer})
    def post(self, request: Request, game_id: str) -> Response:
        data = _valid(s.StartSerializer, request.data)
        game = services.game_start(selectors.game_get(game_id).pk, request.user, data.get("fill_with_bots"))
        return Response(selectors.game_summary(selectors.game_get(game.pk)))


class StateView(APIView):
    @extend_schema(responses={200: dict})
    def get(self, request: Request, game_id: str) -> Response:
        return Response(selectors.game_state(selectors.game_row(game_id), request.user))


class ReplayView(APIView):
    @extend_schema(parameters=[OpenApiParameter("at", int, required=True)], responses={200: dict})
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id)
        at = _int_param(request, "at", game.seq)
        if at > game.seq:
            return error("invalid", f"at must be from 0 to {game.seq}", 400, field="at")
        return Response(selectors.game_state(game, request.user, at=at))


class LegalMovesView(APIView):
    @extend_schema(responses={200: dict})
    def get(self, request: Request, game_id: str) -> Response:
        return Response(selectors.game_legal_moves(selectors.game_row(game_id), request.user))


class MovesView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.MoveRequestSerializer, responses={201: dict, 400: s.ErrorSerializer, 409: s.ErrorSerializer})
    def post(self, request: Request, game_id: str) -> Response:
        game = selectors.game_row(game_id)
        data = _valid(s.MoveRequestSerializer, request.data)
        move = move_from_dict(data["move"])
        played = services.game_play(game, request.user, data["expected_seq"], move)
        # The appended rows, projected like /events (API.md's event shape: seq, type, at, seat, data).
        events = [log.project(row, played.seat, played.finished) for row in played.rows]
        return Response({"seq": played.seq, "events": events}, status=status.HTTP_201_CREATED)


class EventsView(APIView):
    @extend_schema(parameters=[OpenApiParameter("after", int)], responses={200: dict})
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_row(game_id)
        return Response(selectors.events_since(game, request.user, _int_param(request, "after", 0)))


class AuditView(APIView):
    @extend_schema(responses={(200, "application/jsonl"): str, 409: s.ErrorSerializer})
    def get(self, request: Request, game_id: str) -> Response | HttpResponse:
        game = selectors.game_get(game_id)
        if game.status != Game.Status.FINISHED and not request.user.is_staff:
            return error("not_finished", "the audit log opens when the game is over", 409)
        lines = "".join(json.dumps(line, sort_keys=True) + "\n" for line in selectors.audit_lines(game))
        return HttpResponse(lines, content_type="application/jsonl")


class VerifyView(APIView):
    @extend_schema(responses={200: dict})
    def get(self, request: Request, game_id: str) -> Response:
        return Response(verify_game(selectors.game_get(game_id)))


class ScoreView(APIView):
    @extend_schema(responses={200: dict, 409: s.ErrorSerializer})
    def get(self, request: Request, game_id: str) -> Response:
        return Response(selectors.game_score(selectors.game_get(game_id)))
