"""Hints: in an unranked game where every other seat is a bot, a player may ask the strong bot what it would play.

The advice comes from the seat's own information only (its view, its legal moves, the game's events as it saw
them), with a short budget (TTR_HINT_SECONDS): the bots' `advise` (bots/advice.py, pure, as the engine is). With
Redis (the production layout) the search runs on a search worker (`search_hint`, on TTR_STRONG_QUEUE, at its low
CPU priority), never on a web process, whose other requests would wait for the interpreter meanwhile; the web
process waits for the answer on a Redis list of the request's own (503 `unavailable` if no worker answers within
TTR_HINT_SECONDS + QUEUE_SECONDS). Without Redis (`make run`, one machine's one web process) it runs where it is
asked. Asking is recorded in the game's log (`hint_used`, once per decision however often it is asked) and counted
on the seat (`Seat.hints`, shown in the game's summary).
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict

from celery import current_app, shared_task
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F

from bots.advice import advise
from games.engine import State, legal_moves, redact, view
from games.engine.codec import move_from_dict, move_to_dict
from games.engine.events import HintUsed
from games.engine.moves import Move
from games.review.shapes import Hint
from games.store import event_log, notify, states
from games.store.models import Event, Game, GameId, Seat
from games.store.service_error import ServiceError
from games.store.viewers import seat_of
from ttr_server import redis_config

_given: OrderedDict[tuple[str, int, int], tuple[Move, str]] = OrderedDict()  # (game, seq, seat): asked again
_given_lock = threading.Lock()
REMEMBERED = 256


def hint(game_id: GameId, *, user: AbstractBaseUser) -> Hint:
    """The strong bot's move for the caller's decision now, and why. Raises ServiceError (403 `no_hints`, 403
    `not_your_turn`, 409 `not_active`, 409 `stale_seq` when moves kept coming in while it thought)."""
    for _ in range(ATTEMPTS - 1):
        try:
            return _hint(game_id, user)
        except _Moved:
            continue  # another seat moved meanwhile (the setup's ticket choices are made at once): ask again
    try:
        return _hint(game_id, user)
    except _Moved as moved:
        raise ServiceError(
            "stale_seq", "the game moved on while the bot thought: ask again", status=409, seq=moved.seq
        ) from None


ATTEMPTS = 3


class _Moved(Exception):
    def __init__(self, seq: int) -> None:
        self.seq = seq


def _hint(game_id: GameId, user: AbstractBaseUser) -> Hint:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise ServiceError("not_found", "no such game", status=404)
    seat = _hinted_seat(game, user)
    seq = game.seq
    asked = _asked_at(game, seat)
    decided_at = seq if asked is None else asked - 1  # the decision's position (a hint changes nothing in the game)
    state = states.state_at(game.pk, seq)
    if seat not in state.deciders():
        raise ServiceError("not_your_turn", "a hint is for your own decision: it is not yours now", status=403)
    move, reason = _advice(game, state, seat, decided_at)
    if asked is None:
        with transaction.atomic():
            locked = Game.objects.select_for_update().get(pk=game.pk)
            if locked.seq != seq:
                raise _Moved(locked.seq)
            event_log.append(locked, seq, [HintUsed(seat)])
            Seat.objects.filter(game=locked, number=seat).update(hints=F("hints") + 1)
            seq = locked.seq
            transaction.on_commit(lambda: _told(locked.pk, locked.seq, state))
    hints = Seat.objects.get(game=game, number=seat).hints
    return Hint(move=move, reason=reason, seq=seq, hints=hints)


def _asked_at(game: Game, seat: int) -> int | None:
    """The seq of the seat's hint for the decision it has now, if it asked already (its hint is newer than anything
    the seat did since: other seats may have moved meanwhile, during the setup's ticket choices)."""
    mine = Event.objects.filter(game=game, seat=seat).order_by("-seq").values_list("seq", "type")[:1]
    last = next(iter(mine), None)
    return last[0] if last is not None and last[1] == HintUsed.type else None


def _hinted_seat(game: Game, user: AbstractBaseUser) -> int:
    seat = seat_of(game, user)
    if seat is None:
        raise ServiceError("no_hints", "hints are for the players of a game against bots", status=403)
    if game.ranked:
        raise ServiceError("no_hints", "no hints in a ranked game", status=403)
    if any(s.number != seat and not s.played_by_bot for s in game.seat_list):
        raise ServiceError("no_hints", "hints only where every other seat is a bot", status=403)
    if game.status != Game.Status.ACTIVE:
        raise ServiceError("not_active", f"the game is {game.status}: hints are for a game in play", status=409)
    return seat


def _advice(game: Game, state: State, seat: int, decided_at: int) -> tuple[Move, str]:
    """The strong bot's advice for the decision at `decided_at`, once per process (asked again, as after a reload,
    it gives the same hint)."""
    key = (str(game.pk), decided_at, seat)
    with _given_lock:
        given = _given.get(key)
    if given is not None:
        return given
    if settings.REDIS_URL and not current_app.conf.task_always_eager:
        given = _searched_by_a_worker(game.pk, game.seq, seat, decided_at)
    else:
        given = _search(game.pk, state, seat, decided_at)
    with _given_lock:
        _given[key] = given
        while len(_given) > REMEMBERED:
            _given.popitem(last=False)
    return given


def _search(game_id: GameId, state: State, seat: int, decided_at: int) -> tuple[Move, str]:
    """The strong bot's advice for `seat` in `state`, from the events up to `decided_at` as the seat saw them (seeded
    by the game and the decision: asked again, anywhere, it is the same)."""
    history = tuple(redact(event, seat) for event in event_log.events_between(game_id, 0, decided_at))
    seconds = settings.TTR_HINT_SECONDS
    return advise(view(state, seat), legal_moves(state, seat), history, seconds, f"{game_id}:{decided_at}")


QUEUE_SECONDS = 3.0  # beyond the search's own time: how long a web process waits for a search worker to answer
REPLY_SECONDS = 60  # an answer nobody took (its request gave up) is dropped from Redis after this long


def _searched_by_a_worker(game_id: GameId, seq: int, seat: int, decided_at: int) -> tuple[Move, str]:
    reply = f"ttr:hint:{secrets.token_hex(16)}"
    search_hint.apply_async((str(game_id), seq, seat, decided_at, reply), queue=settings.TTR_STRONG_QUEUE)
    wait = settings.TTR_HINT_SECONDS + QUEUE_SECONDS
    client = redis_config.client(settings.REDIS_URL, socket_timeout=wait + 5)
    try:
        answer = client.blpop([reply], timeout=wait)
    finally:
        redis_config.close(client)
    if answer is None:
        raise ServiceError("unavailable", "no search worker answered in time: ask again", status=503,
                           service="search worker", retry_after=2)
    found = json.loads(answer[1])
    return move_from_dict(found["move"]), str(found["reason"])


@shared_task(ignore_result=True)
def search_hint(game_id: str, seq: int, seat: int, decided_at: int, reply: str) -> None:
    """On a search worker: the advice for `seat` at the game's `seq`, pushed to the Redis list `reply`."""
    move, reason = _search(game_id, states.state_at(game_id, seq), seat, decided_at)
    client = redis_config.client(settings.REDIS_URL)
    try:
        client.rpush(reply, json.dumps({"move": move_to_dict(move), "reason": reason}))
        client.expire(reply, REPLY_SECONDS)
    finally:
        redis_config.close(client)


def _told(game_id: GameId, seq: int, state: State) -> None:
    states.remember(game_id, seq, state)
    notify.game_moved(game_id, seq)
