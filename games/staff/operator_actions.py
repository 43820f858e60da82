"""What staff may do to a game, each an event in its log (never an edit): with the operator's account id and a
reason, in the hash chain, in the audit log and the replay like any move.

`game_abort`: the game ends now, unscored and unrated (`game_aborted`); a provably fair game's server seed is revealed
with it, and the game is signed (its record is complete).
`seat_replace`: a seat gets another occupant (`seat_replaced`): a bot of a level (its player is then treated as
having left: placed after everyone else if the game is rated, as a resignation is) or another person.
`time_grant`: a seat gets more time (`time_granted`): a live game's decision in progress runs longer, a daily game's
seat has more in its bank (games/clocks/turn_clocks.py).
The Django admin offers each as an action, after a page that asks for the reason and a confirmation (games/staff/admin.py).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.clocks import turn_clocks
from games.engine import Event, State, evolve
from games.engine.events import ABORTED, GameAborted, SeatReplaced, TimeGranted
from games.people import accounts
from games.play import bot_turns
from games.store import event_log, notify, states
from games.store.models import BOT_LEVELS, Game, GameId
from games.store.service_error import ServiceError
from games.trust import chance, signing

REASON_LENGTH = 300
MOST_SECONDS = 30 * 86400  # the most one grant gives: a month


def game_abort(game_id: GameId, *, staff: User, reason: str) -> Game:
    """End an active game now, unrated: `game_aborted` with `staff`'s id and `reason`. Raises ServiceError."""
    reason = _checked(staff, reason)
    with transaction.atomic():
        game = _active(game_id)
        state = states.state_at(game.pk, game.seq)
        events: list[Event] = [GameAborted(staff.pk, reason), *chance.revealed(game)]
        event_log.append(game, game.seq, events)
        now = timezone.now()
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=now, scored_at=now)
        game.status = Game.Status.FINISHED
        signing.sign(game)
        for event in events:
            state = evolve(state, event)
        assert state.end_reason == ABORTED
        new_seq, new_state = game.seq, state
        transaction.on_commit(lambda: _told(game.pk, new_seq, new_state))
    return game


def _told(game_id: GameId, seq: int, state: State) -> None:
    """After the commit: the new state kept, the game's sockets told."""
    states.remember(game_id, seq, state)
    notify.game_moved(game_id, seq)


def seat_replace(
    game_id: GameId, *, seat: int, staff: User, reason: str, bot: str | None = None, username: str | None = None
) -> Game:
    """Give `seat` to a bot of level `bot` or to the person `username` (exactly one): `seat_replaced`."""
    reason = _checked(staff, reason)
    if (bot is None) == (username is None):
        raise ServiceError("invalid", "name either a bot level or a person", field="bot")
    if bot is not None and bot not in BOT_LEVELS:
        raise ServiceError("invalid", f"bot must be one of {BOT_LEVELS}", field="bot")
    person = accounts.user_named(username) if username is not None else None
    if username is not None and person is None:
        raise ServiceError("not_found", f"nobody is called {username}", status=404, field="username")
    with transaction.atomic():
        game = _active(game_id)
        taken = next((s for s in game.seat_list if s.number == seat), None)
        if taken is None:
            raise ServiceError("no_such_seat", f"this game's seats are 0 to {game.players - 1}", status=409, field="seat")
        if person is not None:
            if any(s.user_id == person.pk for s in game.seat_list):
                raise ServiceError("already_seated", f"{person.username} already has a seat in this game", status=409)
            taken.user, taken.bot, taken.stand_in = person, None, None
            by = f"account:{person.pk}"
        else:
            if taken.user_id is None:
                taken.bot = bot
            else:
                taken.stand_in = bot  # the seat's player stays its owner, and is rated as one who left
            by = f"bot:{bot}"
        taken.save(update_fields=["user", "bot", "stand_in"])
        game.__dict__.pop("seat_list", None)
        state = states.state_at(game.pk, game.seq)
        event_log.append(game, game.seq, [SeatReplaced(seat, by, staff.pk, reason)])
        new_seq, bot_seats, levels = game.seq, game.bot_seats, game.bot_levels
        transaction.on_commit(
            lambda: bot_turns.settle_and_wake(game.pk, new_seq, state, bot_seats=bot_seats, levels=levels)
        )
    return game


def time_grant(game_id: GameId, *, seat: int, seconds: int, staff: User, reason: str) -> Game:
    """Give `seat` `seconds` more on its clock: `time_granted`. In a live game only a seat deciding now, for the
    decision in progress; in a daily game any seat, in its bank. Raises ServiceError."""
    reason = _checked(staff, reason)
    if not 1 <= seconds <= MOST_SECONDS:
        raise ServiceError("invalid", f"seconds must be 1 to {MOST_SECONDS} (30 days)", field="seconds")
    with transaction.atomic():
        game = _active(game_id)
        if not turn_clocks.has_clock(game):
            raise ServiceError("no_clock", "this game has no clock: there is no time to grant", status=409)
        if not 0 <= seat < game.players:
            raise ServiceError("no_such_seat", f"this game's seats are 0 to {game.players - 1}", status=409, field="seat")
        state = states.state_at(game.pk, game.seq)
        if game.speed != "daily" and seat not in state.deciders():
            raise ServiceError(
                "not_deciding", f"seat {seat} is not deciding now: a live game's time is granted to a decision in "
                "progress", status=409, field="seat",
            )
        event_log.append(game, game.seq, [TimeGranted(seat, seconds, staff.pk, reason)])
        new_seq = game.seq
        transaction.on_commit(lambda: _told(game.pk, new_seq, state))
    return game


def _checked(staff: User, reason: str) -> str:
    reason = reason.strip()
    if not staff.is_staff:
        raise ServiceError("not_staff", "only staff act on a game", status=403)
    if not reason or len(reason) > REASON_LENGTH:
        raise ServiceError("invalid", f"a reason is required, at most {REASON_LENGTH} characters", field="reason")
    return reason


def _active(game_id: GameId) -> Game:
    game = Game.objects.select_for_update().get(pk=game_id)
    if game.status != Game.Status.ACTIVE:
        raise ServiceError("not_active", f"the game is {game.status}: only a game in play", status=409)
    return game
