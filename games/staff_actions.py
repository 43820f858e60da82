"""What staff may do to a game, each an event in its log (never an edit): with the operator's account id and a
reason, in the hash chain, in the audit log and the replay like any move.

`game_abort`: the game ends now, unscored and unrated (`game_aborted`); a provably fair game's server seed is revealed
with it, and the game is signed (its record is complete). The Django admin offers it as an action, after a page
that asks for the reason and a confirmation (games/admin.py).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games import chance, log, notify, scoring, signing, states
from games.engine import Event, State, evolve
from games.engine.events import GameAborted
from games.errors import ServiceError
from games.models import Game, GameId

REASON_LENGTH = 300


def game_abort(game_id: GameId, *, staff: User, reason: str) -> Game:
    """End an active game now, unrated: `game_aborted` with `staff`'s id and `reason`. Raises ServiceError."""
    reason = reason.strip()
    if not staff.is_staff:
        raise ServiceError("not_staff", "only staff abort a game", status=403)
    if not reason or len(reason) > REASON_LENGTH:
        raise ServiceError("invalid", f"a reason is required, at most {REASON_LENGTH} characters", field="reason")
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.status != Game.Status.ACTIVE:
            raise ServiceError("not_active", f"the game is {game.status}: only an active game can be aborted", status=409)
        state = states.state_at(game.pk, game.seq)
        events: list[Event] = [GameAborted(staff.pk, reason), *chance.revealed(game)]
        log.append(game, game.seq, events)
        now = timezone.now()
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=now, scored_at=now)
        game.status = Game.Status.FINISHED
        signing.sign(game)
        for event in events:
            state = evolve(state, event)
        assert state.end_reason == scoring.ABORTED
        new_seq, new_state = game.seq, state
        transaction.on_commit(lambda: _after_abort(game.pk, new_seq, new_state))
    return game


def _after_abort(game_id: GameId, seq: int, state: State) -> None:
    states.remember(game_id, seq, state)
    notify.game_moved(game_id, seq)
