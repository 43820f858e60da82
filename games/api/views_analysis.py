"""Post-game analysis and hints (docs/API.md, Analysis): thin views over games/review/analyses.py and
games/review/hints.py."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response

from games.api.authentication import signed_in
from games.api.bodies import ApiView
from games.api.error_responses import error_responses
from games.api.replica_reads import reads_may_lag
from games.api.typed_json import to_json
from games.play import selectors
from games.review import analyses, hints
from games.review.shapes import AnalysisDone, AnalysisNone, AnalysisProgress, Hint

IN_PROGRESS = OpenApiResponse(AnalysisProgress, description="queued, or running: how far it is")
_BY_STATUS: dict[str, Any] = {"done": AnalysisDone, "none": AnalysisNone}  # (dataclasses: typed_schema.py)
DONE_OR_NONE = OpenApiResponse(
    PolymorphicProxySerializer(component_name="AnalysisAnswer", resource_type_field_name="status", serializers=_BY_STATUS),
    description='done, or `{"status": "none"}` while nobody has asked for it',
)


def _analysis(answer: AnalysisDone | AnalysisProgress | AnalysisNone) -> Response:
    return Response(to_json(answer), status=202 if isinstance(answer, AnalysisProgress) else 200)


class AnalysisView(ApiView):
    @extend_schema(
        responses={200: DONE_OR_NONE, 202: IN_PROGRESS, **error_responses(401, 404, 409)},
        description='The strong bot\'s analysis of a finished game: 200 `{"status": "none"}` until a player asks '
        "for it (a normal state, as the summary's `analysis` tells it), 202 while a worker runs it, 200 when done; "
        "409 `analysis_failed` when it could not be made; 404 only for a game that does not exist.",
    )
    @reads_may_lag("game")
    def get(self, request: Request, game_id: str) -> Response:
        return _analysis(analyses.analysis_answer(selectors.game_get(game_id)))

    @extend_schema(
        request=None,
        responses={200: AnalysisDone, 202: IN_PROGRESS, **error_responses(401, 403, 404, 409)},
        description="A player of a finished game asks for its analysis (once: asking again answers what there is).",
    )
    def post(self, request: Request, game_id: str) -> Response:
        if not request.user.is_authenticated:
            self.permission_denied(request)
        analyses.analysis_request(game_id, user=signed_in(request.user))
        return _analysis(analyses.analysis_answer(selectors.game_get(game_id)))


class HintView(ApiView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=None,
        responses={200: Hint, **error_responses(401, 403, 404, 409, 503)},
        description="The strong bot's move for your decision now, and why (a short search from your own "
        "information). Only in an unranked game where every other seat is a bot (403 `no_hints`); recorded in the "
        "game (`hint_used`, once per decision) and counted in its summary.",
    )
    def post(self, request: Request, game_id: str) -> Response:
        return Response(to_json(hints.hint(game_id, user=signed_in(request.user))))
