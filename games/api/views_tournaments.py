"""Tournament endpoints (docs/API.md, Tournaments): thin views, as in games/api/views.py: parse, call one use case
or reader (games/tournaments/), format."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
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
from games.api.views import GamesPagination
from games.store.service_error import ServiceError
from games.tournaments import log, reading, services, verify
from games.tournaments.models import Tournament
from games.tournaments.shapes import Tables, TournamentDetail, TournamentRow, TournamentVerification

READ_ERRORS = error_responses(401, 404)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentList(r.Page):
    results: tuple[TournamentRow, ...]


def _tournament(tournament_id: str) -> Tournament:
    found = Tournament.objects.select_related("created_by").filter(pk=tournament_id).first()
    if found is None:
        raise ServiceError("not_found", "no such tournament", status=404)
    return found


class TournamentsView(ApiView):
    body_methods = frozenset({"post"})

    @extend_schema(
        operation_id="tournaments_list", parameters=[q.TournamentsQuery],
        responses={200: TournamentList, **error_responses(400, 401, 404)},
        description="Tournaments, 20 a page: upcoming soonest first, running featured first then the largest, "
        "finished newest first. Private ones are not listed.",
    )
    def get(self, request: Request) -> Response:
        query = q.parsed(q.TournamentsQuery, request)
        rows = reading.listed(query.get("status", Tournament.Status.UPCOMING))
        paginator = GamesPagination()
        page = paginator.paginate_queryset(rows, request, view=self) or []
        return paginator.answer(TournamentList, tuple(reading.tournament_row(t, request.user) for t in page))

    @extend_schema(
        operation_id="tournaments_create", request=s.TournamentCreateSerializer,
        responses={201: TournamentDetail, **error_responses(400, 401, 403, 413, 415, 429)},
        description="Organise a tournament (you do not join it by creating it). Its server seed's SHA-256 is public "
        "at once; every random choice of its pairings is drawn from it, and it is revealed at the end.",
    )
    def post(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise ServiceError("not_authenticated", "sign in to organise a tournament", status=401)
        data = s.valid_body(s.TournamentCreateSerializer, request.data)
        tournament = services.tournament_create(signed_in(request.user), services.new_tournament(data))
        return Response(to_json(reading.tournament_detail(tournament, request.user)), status=status.HTTP_201_CREATED)


class TournamentView(ApiView):
    @extend_schema(operation_id="tournament_detail", responses={200: TournamentDetail, **READ_ERRORS})
    def get(self, request: Request, tournament_id: str) -> Response:
        return Response(to_json(reading.tournament_detail(_tournament(tournament_id), request.user)))


class TournamentJoinView(ApiView):
    body_methods = frozenset({"post"})
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="tournament_join", request=s.TournamentJoinSerializer,
        responses={200: TournamentDetail, **error_responses(400, 401, 403, 404, 409, 413, 415)},
        description="Register. 409 `started` (a Swiss that began), `full`, `already_joined`, `finished`.",
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        data = s.valid_body(s.TournamentJoinSerializer, request.data)
        user = signed_in(request.user)
        tournament = services.tournament_join(_tournament(tournament_id).pk, user, data.get("client_seed", ""))
        return Response(to_json(reading.tournament_detail(tournament, user)))

    @extend_schema(
        operation_id="tournament_withdraw", responses={204: None, **error_responses(401, 403, 404)},
        description="Withdraw: before the start your registration goes; after it your running game is resigned and "
        "you are paired no more (your results stay). 404 `not_joined`.",
    )
    def delete(self, request: Request, tournament_id: str) -> Response:
        services.tournament_withdraw(_tournament(tournament_id).pk, signed_in(request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)


class TournamentTablesView(ApiView):
    @extend_schema(
        operation_id="tournament_tables", parameters=[q.TablesQuery], responses={200: Tables, **READ_ERRORS},
        description="The tables of round `round` (default: a Swiss's round under way; an arena's every table).",
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        query = q.parsed(q.TablesQuery, request)
        return Response(to_json(reading.tables_of(_tournament(tournament_id), query.get("round"))))


class TournamentVerifyView(ApiView):
    @extend_schema(
        operation_id="tournament_verify", responses={200: TournamentVerification, **READ_ERRORS},
        description="Every round's tables and the standings recomputed from the tournament's log, the revealed seed "
        "and the games' own logs; `fair` is null until the tournament is over and its seed revealed.",
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        return Response(to_json(verify.verification(_tournament(tournament_id))))


class TournamentAuditView(ApiView):
    @extend_schema(
        operation_id="tournament_audit",
        responses={
            (200, "application/jsonl"): OpenApiResponse(str, description="one JSON event a line, with hash and prev_hash"),
            **READ_ERRORS,
        },
    )
    def get(self, request: Request, tournament_id: str) -> HttpResponse:
        return HttpResponse("".join(log.lines(_tournament(tournament_id))), content_type="application/jsonl")
