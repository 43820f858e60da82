"""Read-only questions about games, each answered as the requesting user may see it (docs/RULES.md X-SEC-1).

The viewer is the user's seat, or None for spectators; the engine's `view` and `redact` do the projecting.
Once a game is finished everything is public.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from uuid import UUID

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from games.clocks import turn_clocks
from games.engine import Event as EngineEvent
from games.engine import legal_moves, redact, view
from games.engine.events import ABORTED
from games.engine.state import State
from games.play import invitations
from games.play.models import RematchOffer as OfferRow
from games.play.shapes import (
    Cards,
    EventList,
    GameState,
    GameSummary,
    GameView,
    LegalMoves,
    LoggedEvent,
    MyGame,
    MyGames,
    OpenSeat,
    PlayerPage,
    RatingChange,
    RematchOffer,
    Score,
    SeatResult,
    SeatSummary,
    TournamentLink,
    fields_of,
    started_view,
)
from games.review.models import Analysis
from games.review.shapes import TrendPoint
from games.store import event_log, game_rows, states
from games.store.models import Event, Game, GameId, Seat
from games.store.service_error import ServiceError
from games.store.shape_marks import ABSENT
from games.store.viewers import projected, seat_of
from games.table import presence
from games.trust import chance, signing
from games.trust.models import Checkpoint

Person = AbstractBaseUser | AnonymousUser  # who asks: a signed-in person or nobody in particular
Named = TypeVar("Named", RatingChange, TrendPoint)  # what mentions a game on a player's page


def game_summary(game: Game, *, viewer: Person | None = None) -> GameSummary:
    """The game's summary (docs/API.md); its creator also sees the invitation link of an open private game."""
    creator = viewer is not None and viewer.is_authenticated and viewer.pk == game.created_by_id
    finished = game.status == Game.Status.FINISHED
    return GameSummary(
        id=game.id,
        map=game.map,
        players=game.players,
        ranked=game.ranked,
        turn_seconds=game.turn_seconds,
        speed=game.speed,
        days_per_move=game.days_per_move,
        bank_days=game.bank_days,
        private=game.private,
        spectators_at_table=game.spectators_at_table,
        rematch_of=game.rematch_of_id,
        fallback_bot=game.fallback_bot,
        status=game.status,
        seats=tuple(
            SeatSummary(
                seat=s.number, username=_username(s), bot=s.bot or None, resigned=bool(s.stand_in), hints=s.hints
            )
            for s in game.seats.all()
        ),
        created_by=game.created_by.username,
        created_at=game.created_at,
        seq=game.seq,
        server_seed_hash=chance.server_seed_hash(game),
        tournament=TournamentLink(id=game.tournament, round=game.tournament_round or 0) if game.tournament else None,
        invite=invitations.link_token(game) if game.private and creator else ABSENT,
        rematch=_rematch_offer(game) if finished else ABSENT,
        analysis=_analysis_status(game) if finished else ABSENT,
    )


def _rematch_offer(game: Game) -> RematchOffer | None:
    offer = offer_of(game)
    return offer_summary(offer) if offer is not None else None


def _analysis_status(game: Game) -> str:
    """A finished game's analysis as its summary tells it: "none" until a player asks for it (GET /analysis answers
    404 then), else its status; read in the summary's own query where `_with_summary_parts` annotated it."""
    if hasattr(game, "analysis_status"):
        status = game.analysis_status
    else:
        status = Analysis.objects.filter(game=game).values_list("status", flat=True).first()
    return str(status or "none")


def _with_summary_parts(games: QuerySet[Game]) -> QuerySet[Game]:
    """What a summary reads, in the query: the creator, the seats' people, a finished game's rematch offer and the
    status of its analysis."""
    return games.select_related("created_by", "rematch_offer__by").prefetch_related(
        "seats__user", "rematch_offer__accepted_by"
    ).annotate(analysis_status=F("analysis__status"))


def games_list(user: Person, *, status: str | None, mine: bool) -> QuerySet[Game]:
    games = _with_summary_parts(Game.objects.all())
    if status:
        games = games.filter(status=status)
    if mine:
        games = games.filter(seats__user_id=user.pk).distinct() if user.is_authenticated else games.none()
    else:  # the lobby: a private game only for those seated in it
        seated = Q(seats__user_id=user.pk) if user.is_authenticated else Q(pk__in=[])
        games = games.filter(Q(private=False) | seated).distinct()
    return games


def listed(games: QuerySet[Game]) -> QuerySet[Game]:
    """The games a public page (a player's) may name: not the private ones, whose id lets anyone watch them."""
    return games.filter(private=False)


def public_page(page: PlayerPage) -> PlayerPage:
    """A player's page (GET /api/users/{name}) with the id of every private game it mentions (a rating change,
    an analysed game) left out as null: the page is public, the game is not."""
    named = {change.game for change in page.history}
    named |= {point.game for by_map in page.analysis.values() for point in by_map.trend}
    unlisted = set(Game.objects.filter(pk__in=named - {None}, private=True).values_list("pk", flat=True))
    return dataclasses.replace(
        page,
        history=tuple(_unnamed(change, unlisted) for change in page.history),
        analysis={
            name: dataclasses.replace(by_map, trend=tuple(_unnamed(point, unlisted) for point in by_map.trend))
            for name, by_map in page.analysis.items()
        },
    )


def _unnamed(mention: Named, unlisted: set[UUID]) -> Named:
    return dataclasses.replace(mention, game=None) if mention.game in unlisted else mention


def game_row(game_id: GameId) -> Game:
    """The game with its seats (not their users), in one query: what state, legal moves, moves and events need."""
    try:
        return found(game_rows.read(game_id))
    except (ValueError, TypeError, DjangoValidationError) as error:
        raise ServiceError("not_found", "no such game", status=404) from error


def found(read: game_rows.GameRead) -> Game:
    if read.game is None:
        raise ServiceError("not_found", "no such game", status=404)
    return read.game


def game_get(game_id: GameId) -> Game:
    try:
        return _with_summary_parts(Game.objects.all()).get(pk=game_id)
    except (Game.DoesNotExist, ValueError, TypeError, DjangoValidationError) as error:
        raise ServiceError("not_found", "no such game", status=404) from error


def _open_view(game: Game, seat: int | None) -> GameView:
    """Before the start there is no engine state yet: the keys that mean something then, empty."""
    return GameView(
        map=game.map, phase="open", current_seat=None, your_seat=seat, deciding_seats=(),
        players=tuple(
            OpenSeat(seat=n, cards=0, tickets=0, trains=45, stations=0, score=0) for n in range(game.players)
        ),
        market=(), deck_size=0, routes={}, stations={}, hand=Cards({}), tickets=(),
    )


def game_state(game: Game, *, user: Person, at: int | None = None) -> GameState:
    """The game as `user` may see it now, or after event `at` (a replay: without the clock)."""
    seat = seat_of(game, user)
    seq = game.seq if at is None else at
    shown = _open_view(game, seat) if seq == 0 else _started_view(game, seat, seq, now=at is None)
    # The seats with a socket open now (games/table/presence.py): about the table, not the game, so a replay shows it too.
    return GameState(seq=seq, status=game.status, view=shown, presence=tuple(presence.seats(game.pk)))


def _started_view(game: Game, seat: int | None, seq: int, *, now: bool) -> GameView:
    state = states.state_at(game.pk, seq)
    past = game.status == Game.Status.FINISHED and not state.finished  # a past moment of a finished game
    deadline = turn_clocks.deadline(game, state) if now else None
    return started_view(
        view(state, seat),
        **(_everything(state) if past else {}),  # everything is public now
        deadline=deadline if deadline is not None else ABSENT,
        banks=turn_clocks.banks(game) if now and game.speed == "daily" else ABSENT,
    )


def _everything(state: State) -> dict[str, object]:
    """What a past moment of a finished game shows besides the view: every hand, ticket, offer and the draw pile."""
    return {
        "hands": tuple(Cards(dict(p.hand)) for p in state.players),
        "player_tickets": tuple(tuple(p.tickets) for p in state.players),
        "offered": {str(seat): tuple(tickets) for seat, tickets in state.offered.items()},
        "draw_pile": tuple(reversed(state.draw_pile)),
    }


def game_legal_moves(game: Game, *, user: Person) -> LegalMoves:
    seat = seat_of(game, user)
    if seat is None or seat in game.bot_seats or game.status != Game.Status.ACTIVE:  # (a resigned seat's bot plays)
        return LegalMoves(seq=game.seq, moves=())
    state = states.state_at(game.pk, game.seq)
    return LegalMoves(seq=game.seq, moves=tuple(legal_moves(state, seat)))


def history_for(game: Game, *, seat: int) -> tuple[EngineEvent, ...]:
    """The game's events so far as `seat` saw them (engine events, redacted for it): what a bot that reads the
    game's history may know."""
    return tuple(redact(event, seat) for event in event_log.events_between(game.pk, 0, game.seq))


def events_since(game: Game, *, user: Person, after: int) -> EventList:
    rows = event_log.rows_between(game.pk, after, game.seq)
    return event_list(game.seq, rows, seat=seat_of(game, user), finished=game.status == Game.Status.FINISHED)


def event_list(seq: int, rows: Iterable[Event], *, seat: int | None, finished: bool) -> EventList:
    """`rows` of the log as `seat` may see them, the game being at `seq` (/events, and the answer to a move)."""
    return EventList(seq=seq, events=tuple(map(LoggedEvent, projected(rows, seat=seat, finished=finished))))


def audit_lines(game: Game) -> list[dict[str, Any]]:
    """The whole log, one line an event; a scored game's last line also carries its signed checkpoint."""
    lines = [event_log.audit_line(row) for row in event_log.rows_between(game.pk, 0)]
    checkpoint = Checkpoint.objects.filter(game=game, seq=game.seq).first()
    if lines and checkpoint is not None:
        lines[-1]["checkpoint"] = signing.checkpoint_json(checkpoint)
    return lines


def game_score(game: Game) -> Score:
    state = states.state_at(game.pk, game.seq) if game.status == Game.Status.FINISHED else None
    if state is not None and state.end_reason == ABORTED:
        raise ServiceError(
            "not_scored", "the game was aborted by an operator: it is never scored", status=409, end_reason=ABORTED
        )
    if state is None or not state.scores:
        raise ServiceError("not_scored", "the game is not scored yet (it is scored just after it ends)", status=409)
    seats = {s.number: s for s in game.seats.all()}
    scores = tuple(
        SeatResult(**fields_of(score), username=_username(seats[score.seat]), bot=seats[score.seat].bot or None)
        for score in state.scores
    )
    return Score(scores=scores, winner_seats=tuple(state.winner_seats), end_reason=state.end_reason)


def _username(seat: Seat) -> str | None:
    return seat.user.username if seat.user else None


MY_FINISHED_DAYS = 3  # a game that ended this recently still shows among the person's games


def my_games(user: AbstractBaseUser) -> MyGames:
    """The person's open and active games (and those just over): the ones that wait for their move first, then
    the closest deadline; each with its clock and how many events came since they last looked."""
    recent = timezone.now() - timedelta(days=MY_FINISHED_DAYS)
    games = _with_summary_parts(
        Game.objects.filter(seats__user_id=user.pk)
        .filter(Q(status__in=[Game.Status.OPEN, Game.Status.ACTIVE]) | Q(finished_at__gte=recent))
        .distinct()
    )
    results = []
    for game in games:
        seat = next(s for s in game.seats.all() if s.user_id == user.pk)
        your_move, deadline = False, None
        if game.status == Game.Status.ACTIVE:
            state = states.state_at(game.pk, game.seq)
            times = turn_clocks.deadlines(game, state)
            your_move = seat.number in state.deciders() and not seat.played_by_bot
            deadline = times.get(seat.number) if your_move else min(times.values(), default=None)
        summary = fields_of(game_summary(game, viewer=user))
        results.append(
            MyGame(**summary, your_move=your_move, deadline=deadline, new_moves=max(0, game.seq - seat.seen_seq))
        )
    order = {Game.Status.ACTIVE: 0, Game.Status.OPEN: 1, Game.Status.FINISHED: 2}
    results.sort(key=lambda g: (not g.your_move, order[Game.Status(g.status)], g.deadline or _NEVER, g.created_at))
    return MyGames(results=tuple(results), your_turn=sum(1 for g in results if g.your_move))


_NEVER = datetime.max.replace(tzinfo=UTC)  # the deadline of a game without one, in the order of my games


def offer_summary(offer: OfferRow) -> RematchOffer:
    return RematchOffer(
        by=offer.by.username,
        accepted_by=tuple(sorted(user.username for user in offer.accepted_by.all())),
        game=offer.game_id,
    )


def offer_of(game: Game) -> OfferRow | None:
    """The game's offer (read with the game when the query selected it: selectors.games_list, game_get)."""
    try:
        return game.rematch_offer
    except OfferRow.DoesNotExist:
        return None
