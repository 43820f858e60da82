"""Game endpoints (docs/API.md): thin views that parse, call one service or selector, and format.

Each view's schema lists its request, its answer and every error status it can give (games.api.error_responses);
the schemathesis run in the tests holds the server to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api import queries as q
from games.api import responses as r
from games.api import serializers as s
from games.api.authentication import ExpiringTokenAuthentication, GameTokenAuthentication, signed_in
from games.api.bodies import ApiView
from games.api.error_responses import error, error_responses
from games.api.replica_reads import reads_may_lag
from games.api.typed_json import to_json
from games.engine.codec import move_from_dict
from games.play import selectors, services
from games.play.shapes import EventList, GameState, GameSummary, LegalMoves, Score
from games.store import game_rows, viewers
from games.store.models import Game
from games.trust import signing
from games.trust.shapes import SignedCheckpoint, SigningKeys, Verification
from games.trust.verify import verification

READ_ERRORS = error_responses(401, 404)
WRITE_ERRORS = error_responses(400, 401, 403, 404, 409, 413, 415)


class GamesPagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = q.MAX_PAGE_SIZE

    def answer(self, shape: Callable[..., r.Page], results: tuple[Any, ...]) -> Response:
        """The page `paginate_queryset` cut, as `shape` (a `Page` with its `results`)."""
        assert self.page is not None
        count, next_page, previous = self.page.paginator.count, self.get_next_link(), self.get_previous_link()
        return Response(to_json(shape(count=count, next=next_page, previous=previous, results=results)))


class GamesView(ApiView):
    body_methods = frozenset({"post"})

    @extend_schema(
        operation_id="games_list",
        parameters=[q.GamesQuery],
        responses={200: r.GameList, **error_responses(400, 401, 404)},
        description="Games, newest first, 20 a page (`next` links the following page; past the last: 404).",
    )
    def get(self, request: Request) -> Response:
        query = q.parsed(q.GamesQuery, request)
        games = selectors.games_list(request.user, status=query.get("status"), mine=query.get("mine", False))
        paginator = GamesPagination()
        page = paginator.paginate_queryset(games, request, view=self) or []
        return paginator.answer(r.GameList, tuple(selectors.game_summary(g, viewer=request.user) for g in page))

    @extend_schema(
        request=s.GameCreateSerializer,
        responses={201: GameSummary, **error_responses(400, 401, 403, 409, 413, 415)},
        description="Create an open game, you in its first seat. 409 `too_many_games` when you already sit in as many "
        "games of its speed, not finished, as one person may (TTR_MAX_LIVE_GAMES, TTR_MAX_DAILY_GAMES).",
    )
    def post(self, request: Request) -> Response:
        data = s.valid_body(s.GameCreateSerializer, request.data)
        clock = services.TimeControl(data["speed"], data["turn_seconds"], data["days_per_move"], data["bank_days"])
        user = signed_in(request.user)
        game = services.game_create(
            user, map_name=data["map"], players=data["players"], ranked=data["ranked"], clock=clock,
            fallback_bot=data["fallback_bot"], private=data["private"], spectators_at_table=data["spectators_at_table"],
            client_seed=data.get("client_seed", ""),
        )
        summary = selectors.game_summary(selectors.game_get(game.pk), viewer=user)
        return Response(to_json(summary), status=status.HTTP_201_CREATED)


class GameView(ApiView):
    @extend_schema(operation_id="game_retrieve", responses={200: GameSummary, **READ_ERRORS})
    def get(self, request: Request, game_id: str) -> Response:
        return Response(to_json(selectors.game_summary(selectors.game_get(game_id), viewer=request.user)))


class JoinView(ApiView):
    body_methods = frozenset({"post"})
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.JoinSerializer, responses={200: GameSummary, **WRITE_ERRORS})
    def post(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id)
        data = s.valid_body(s.JoinSerializer, request.data)
        services.game_join(
            game.pk, user=signed_in(request.user), seat=data.get("seat"), invite=data.get("invite"),
            client_seed=data.get("client_seed", ""),
        )
        return Response(to_json(selectors.game_summary(selectors.game_get(game.pk), viewer=request.user)))


class BotsView(ApiView):
    body_methods = frozenset({"post"})
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.BotSerializer, responses={200: GameSummary, **WRITE_ERRORS})
    def post(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id)
        data = s.valid_body(s.BotSerializer, request.data)
        services.game_add_bot(game.pk, user=signed_in(request.user), level=data["level"], seat=data.get("seat"))
        return Response(to_json(selectors.game_summary(selectors.game_get(game.pk), viewer=request.user)))


class StartView(ApiView):
    body_methods = frozenset({"post"})
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.StartSerializer, responses={200: GameSummary, **WRITE_ERRORS})
    def post(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id)
        data = s.valid_body(s.StartSerializer, request.data)
        services.game_start(
            game.pk, user=signed_in(request.user), fill_with_bots=data.get("fill_with_bots"),
            client_seed=data.get("client_seed", ""),
        )
        return Response(to_json(selectors.game_summary(selectors.game_get(game.pk), viewer=request.user)))


class ResignView(ApiView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=None,
        responses={200: GameSummary, **error_responses(400, 401, 403, 404, 409, 413)},
        description="Leave the game: its fallback bot plays your seat from now on (a `seat_resigned` event). "
        "In a ranked game you are rated last.",
    )
    def post(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id)
        services.game_resign(game.pk, user=signed_in(request.user))
        return Response(to_json(selectors.game_summary(selectors.game_get(game.pk), viewer=request.user)))


class OneGameView(ApiView):
    """A view of the game in the URL. The hot endpoints of a move (/state, /legal-moves, /moves, /events) read the
    game and check the token in one statement (games/store/game_rows.py); a session's request reads the game alone."""

    authentication_classes = [
        GameTokenAuthentication,
        *(auth for auth in APIView.authentication_classes if auth is not ExpiringTokenAuthentication),
    ]
    game_read: game_rows.GameRead | None = None  # set by GameTokenAuthentication when the request has a token

    def game(self) -> Game:
        if self.game_read is None:
            return selectors.game_row(self.kwargs["game_id"])
        return selectors.found(self.game_read)


class StateView(OneGameView):
    @extend_schema(responses={200: GameState, **READ_ERRORS})
    def get(self, request: Request, game_id: str) -> Response:
        game = self.game()
        state = selectors.game_state(game, user=request.user)
        services.mark_seen(game.pk, seat=viewers.seat_of(game, request.user), seq=state.seq)
        return Response(to_json(state))


class ReplayView(ApiView):
    @extend_schema(
        parameters=[q.ReplayQuery],
        responses={200: GameState, **error_responses(400, 401, 404)},
        description="The game as it stood after event `at`, as you could see it then (everything once it is over). "
        "An `at` past the game's seq is 404.",
    )
    @reads_may_lag("game")
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id)
        at = q.parsed(q.ReplayQuery, request)["at"]
        if at > game.seq:
            return error("not_found", f"the game has no event {at} (it is at seq {game.seq})", 404, field="at")
        return Response(to_json(selectors.game_state(game, user=request.user, at=at)))


class LegalMovesView(OneGameView):
    @extend_schema(responses={200: LegalMoves, **READ_ERRORS})
    def get(self, request: Request, game_id: str) -> Response:
        return Response(to_json(selectors.game_legal_moves(self.game(), user=request.user)))


class MovesView(OneGameView):
    body_methods = frozenset({"post"})
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.MoveRequestSerializer, responses={201: EventList, **WRITE_ERRORS})
    def post(self, request: Request, game_id: str) -> Response:
        game = self.game()
        body = s.move_request(request.data)
        move = move_from_dict(body.move)
        played = services.game_play(game, user=signed_in(request.user), expected_seq=body.expected_seq, move=move)
        # The appended rows, projected like /events (docs/API.md's event shape: seq, type, at, seat, data).
        events = selectors.event_list(played.seq, played.rows, seat=played.seat, finished=played.finished)
        return Response(to_json(events), status=status.HTTP_201_CREATED)


class EventsView(OneGameView):
    @extend_schema(parameters=[q.EventsQuery], responses={200: EventList, **error_responses(400, 401, 404)})
    def get(self, request: Request, game_id: str) -> Response:
        game = self.game()
        after = q.parsed(q.EventsQuery, request).get("after", 0)
        return Response(to_json(selectors.events_since(game, user=request.user, after=after)))


class AuditView(ApiView):
    @extend_schema(
        responses={
            (200, "application/jsonl"): OpenApiResponse(str, description="one JSON event a line, with hash and prev_hash"),
            **error_responses(401, 404, 409),
        },
    )
    @reads_may_lag("game")
    def get(self, request: Request, game_id: str) -> Response | HttpResponse:
        game = selectors.game_get(game_id)
        # staff may read a game in play, but not one they sit in: the log holds every hand and the piles
        staff_outside = request.user.is_staff and viewers.seat_of(game, request.user) is None
        if game.status != Game.Status.FINISHED and not staff_outside:
            return error("not_finished", "the audit log opens when the game is over", 409)
        lines = "".join(json.dumps(line, sort_keys=True) + "\n" for line in selectors.audit_lines(game))
        return HttpResponse(lines, content_type="application/jsonl")


class CheckpointView(ApiView):
    @extend_schema(responses={200: SignedCheckpoint, **error_responses(401, 404, 409)})
    def get(self, request: Request, game_id: str) -> Response:
        return Response(to_json(signing.signed(services.game_checkpoint(selectors.game_get(game_id)))))


class KeysView(ApiView):
    @extend_schema(responses={200: SigningKeys, **error_responses(401)})
    def get(self, request: Request) -> Response:
        return Response(to_json(signing.signing_keys()))


class VerifyView(ApiView):
    @extend_schema(responses={200: Verification, **READ_ERRORS})
    def get(self, request: Request, game_id: str) -> Response:
        return Response(to_json(verification(selectors.game_get(game_id))))


class ScoreView(ApiView):
    @extend_schema(responses={200: Score, **error_responses(401, 404, 409)})
    def get(self, request: Request, game_id: str) -> Response:
        return Response(to_json(selectors.game_score(selectors.game_get(game_id))))
