"""Celery entry points that play bots' decisions.

`play_bot_turns(game_id, seq)` plays every decision that belongs to a bot until a human decides or the game
ends. It is idempotent: a task for a seq the game has moved past does nothing (a newer task owns the game),
and every append goes through `expected_seq`, so a duplicate delivery cannot move twice.
"""

from __future__ import annotations

import random
from typing import Any

from celery import shared_task

from bots.policies import policy_for
from games import states
from games.engine import legal_moves, view
from games.log import StaleSeq
from games.models import Game
from games.services import play_seat

MAX_BOT_MOVES = 5000


@shared_task(ignore_result=True, acks_late=True)
def play_bot_turns(game_id: str, seq: int) -> int:
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.seq > seq:
        return 0
    rng = random.SystemRandom()
    played = 0
    for _ in range(MAX_BOT_MOVES):
        game.refresh_from_db(fields=["seq", "status"])
        if game.status != Game.Status.ACTIVE:
            break
        decision = _bot_decision(game, rng)
        if decision is None:
            break
        seat, move = decision
        try:
            play_seat(game, seat, game.seq, move, by_bot=True)
        except StaleSeq:
            continue  # a human moved meanwhile: look again
        played += 1
    return played


def _bot_decision(game: Game, rng: random.Random) -> tuple[int, Any] | None:
    state = states.state_at(game.pk, game.seq)
    bots = {s.number: s.bot for s in game.seat_list if s.bot}  # read once: seats are fixed once started
    for seat in state.deciders():
        if seat in bots:
            moves = legal_moves(state, seat)
            if moves:
                return seat, policy_for(bots[seat])(view(state, seat), moves, rng)
    return None
