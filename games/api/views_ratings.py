"""Rating endpoints (docs/API.md, Ratings): the leaderboard of a map and a player's page. Anyone may read them."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import queries as q
from games.api import responses as r
from games.api.bodies import ApiView
from games.api.error_responses import error, error_responses
from games.api.fields import ObjectSerializer, QueryIntegerField, StrictChoiceField
from games.api.replica_reads import reads_may_lag
from games.api.typed_json import to_json
from games.api.views import GamesPagination
from games.people import accounts
from games.play import leaderboard, selectors
from games.play.shapes import PlayerPage
from games.review import analyses
from games.store.models import MAP_CHOICES


class LeaderboardQuery(ObjectSerializer):
    map = StrictChoiceField([m for m, _ in MAP_CHOICES], help_text="the map whose ratings to list")
    page = QueryIntegerField(min_value=1, required=False)
    page_size = QueryIntegerField(min_value=1, max_value=q.MAX_PAGE_SIZE, required=False)


class LeaderboardView(ApiView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        operation_id="leaderboard",
        parameters=[LeaderboardQuery],
        responses={
            200: r.Leaderboard,
            **error_responses(400, 401),
            404: OpenApiResponse(r.ErrorSerializer, description="a page past the last (`not_found`)"),
        },
        description="The map's ratings, highest `rating` (mu - 3 sigma) first, bot accounts included; 20 a page "
        "(`next` links the following page; past the last: 404).",
    )
    @reads_may_lag("public")
    def get(self, request: Request) -> Response:
        map_name = q.parsed(LeaderboardQuery, request)["map"]
        paginator = GamesPagination()
        page = paginator.paginate_queryset(leaderboard.leaderboard(map_name), request, view=self) or []
        return paginator.answer(r.Leaderboard, tuple(leaderboard.leaderboard_entry(rating) for rating in page))


class PlayerView(ApiView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        operation_id="user_retrieve",
        parameters=[OpenApiParameter("username", q.USERNAME_IN_PATH, OpenApiParameter.PATH, description="in any case")],
        responses={
            200: PlayerPage,
            **error_responses(401),
            404: OpenApiResponse(r.ErrorSerializer, description="no such user (`not_found`)"),
        },
        description="A player's (or a bot account's) ratings by map, rating changes (newest first) and last games.",
    )
    @reads_may_lag("public")
    def get(self, request: Request, username: str) -> Response:
        # A NUL or a name far past the longest username cannot be an account (and PostgreSQL refuses NULs).
        user = None if "\x00" in username or len(username) > 100 else accounts.user_named(username)
        if user is None:
            return error("not_found", "no such user", 404)
        page = leaderboard.player_profile(user, analysis=analyses.player_analysis(user))
        return Response(to_json(selectors.public_page(page)))
