"""Read-only questions about games, each answered as the requesting user may see it (RULES.md X-SEC-1).

The viewer is the user's seat, or None for spectators; the engine's `view` and `redact` do the projecting.
Once a game is finished everything is public.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet

from games import clocks, log, presence, states
from games.codec import move_to_dict
from games.engine import legal_moves, view
from games.models import Game, Seat
from games.services import ServiceError, seat_of


def game_summary(game: Game) -> dict[str, Any]:
    seats = [
        {
            "seat": s.number, "username": s.user.username if s.user else None, "bot": s.bot or None,
            "resigned": bool(s.stand_in),
        }
        for s in game.seats.all()
    ]
    return {
        "id": str(game.id),
        "map": game.map,
        "players": game.players,
        "ranked": game.ranked,
        "turn_seconds": game.turn_seconds,
        "fallback_bot": game.fallback_bot,
        "status": game.status,
        "seats": seats,
        "created_by": game.created_by.username,
        "created_at": game.created_at.isoformat(),
        "seq": game.seq,
    }


def games_list(user: Any, status: str | None, mine: bool) -> QuerySet[Game]:
    games = Game.objects.select_related("created_by").prefetch_related("seats__user")
    if status:
        games = games.filter(status=status)
    if mine:
        games = games.filter(seats__user=user).distinct() if user.is_authenticated else games.none()
    return games


def game_row(game_id: Any) -> Game:
    """The game with its seats (not their users), in one query: what state, legal moves, moves and events need."""
    try:
        seats = list(Seat.objects.select_related("game").filter(game_id=game_id).order_by("number"))
    except (ValueError, TypeError, DjangoValidationError) as error:
        raise ServiceError("not_found", "no such game", status=404) from error
    if not seats:  # every game has its seats from the moment it is created
        raise ServiceError("not_found", "no such game", status=404)
    game = seats[0].game
    for seat in seats:
        seat.game = game
    game.seat_list = seats  # type: ignore[misc]  (fills the cached property)
    return game


def game_get(game_id: Any) -> Game:
    try:
        return Game.objects.select_related("created_by").prefetch_related("seats__user").get(pk=game_id)
    except (Game.DoesNotExist, ValueError, TypeError, DjangoValidationError) as error:
        raise ServiceError("not_found", "no such game", status=404) from error


def _open_view(game: Game, seat: int | None) -> dict[str, Any]:
    """Before the start there is no engine state yet: the same keys, empty."""
    return {
        "map": game.map, "phase": "open", "current_seat": None, "your_seat": seat, "deciding_seats": [],
        "players": [
            {"seat": n, "cards": 0, "tickets": 0, "trains": 45, "stations": 0, "score": 0}
            for n in range(game.players)
        ],
        "market": [], "deck_size": 0, "routes": {}, "stations": {}, "hand": {}, "tickets": [],
    }


def game_state(game: Game, user: Any, at: int | None = None) -> dict[str, Any]:
    answer = _game_state(game, user, at)
    # The seats with a socket open now (games/presence.py): about the table, not the game, so a replay shows it too.
    answer["presence"] = presence.seats(game.pk)
    return answer


def _game_state(game: Game, user: Any, at: int | None) -> dict[str, Any]:
    seat = seat_of(game, user)
    seq = game.seq if at is None else at
    if seq == 0:
        return {"seq": 0, "status": game.status, "view": _open_view(game, seat)}
    state = states.state_at(game.pk, seq)
    shown = view(state, seat)
    if game.status == Game.Status.FINISHED and not state.finished:
        shown.update(_everything(state))  # a past moment of a finished game: everything is public now
    if at is None and (deadline := clocks.deadline(game, state)) is not None:
        shown["deadline"] = deadline.isoformat()
    return {"seq": seq, "status": game.status, "view": shown}


def _everything(state: Any) -> dict[str, Any]:
    return {
        "hands": [dict(p.hand) for p in state.players],
        "player_tickets": [list(p.tickets) for p in state.players],
        "offered": {str(seat): list(tickets) for seat, tickets in state.offered.items()},
        "draw_pile": list(reversed(state.draw_pile)),
    }


def game_legal_moves(game: Game, user: Any) -> dict[str, Any]:
    seat = seat_of(game, user)
    if seat is None or seat in game.bot_seats or game.status != Game.Status.ACTIVE:  # (a resigned seat's bot plays)
        return {"seq": game.seq, "moves": []}
    state = states.state_at(game.pk, game.seq)
    return {"seq": game.seq, "moves": [move_to_dict(m) for m in legal_moves(state, seat)]}


def events_since(game: Game, user: Any, after: int) -> dict[str, Any]:
    seat = seat_of(game, user)
    finished = game.status == Game.Status.FINISHED
    rows = log.rows_between(game.pk, after, game.seq)
    return {"seq": game.seq, "events": [log.project(row, seat, finished) for row in rows]}


def audit_lines(game: Game) -> list[dict[str, Any]]:
    return [log.audit_line(row) for row in log.rows_between(game.pk, 0)]


def game_score(game: Game) -> dict[str, Any]:
    state = states.state_at(game.pk, game.seq) if game.status == Game.Status.FINISHED else None
    if state is None or not state.scores:
        raise ServiceError("not_scored", "the game is not scored yet (it is scored just after it ends)", status=409)
    seats = {s.number: s for s in game.seats.all()}
    scores = []
    for score in state.scores:
        entry = dataclasses.asdict(score)
        seat = seats[score.seat]
        entry["username"] = seat.user.username if seat.user else None
        entry["bot"] = seat.bot or None
        scores.append(entry)
    return {"scores": scores, "winner_seats": list(state.winner_seats), "end_reason": state.end_reason}
