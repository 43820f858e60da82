"""Playing the decisions that belong to bots: a bot seat's, or the seat of a player who resigned (X-TIME-1).

`play_turns(game_id, seq, choose)` plays every such decision until a person decides or the game ends, each
through the same service as a person's move (services.play_seat, by `expected_seq`), with the bot's reason. It
is idempotent: a call for a seq the game has moved past does nothing, and a move that loses a race reads the
game again and goes on if a bot still decides (in the setup phase a person may keep tickets between two bots'
choices). Which move a bot makes is not this module's business: `choose` (the bots' policies, bots/tasks.py)
answers it from what the seat may see. `plays(level)` says whether this caller plays that level (a strong
bot's search has a queue of its own); `one_of(level)` whether to stop after one move of that level (so strong
games take turns on their queue). What is left to do is said in the answer, for the caller to queue.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from games.engine import Move, State
from games.play.selectors import game_row
from games.play.services import play_seat
from games.store import states
from games.store.event_log import StaleSeq
from games.store.models import Game, GameId
from games.store.service_error import ServiceError
from ttr_server import metrics

MAX_BOT_MOVES = 5000


@dataclass(frozen=True)
class BotMove:
    move: Move
    reason: str


# (game, state, seat, level, rng, seconds) -> the move and why; seconds: a search's budget (None: the default)
Chooser = Callable[[Game, State, int, str, random.Random, "float | None"], BotMove]


@dataclass(frozen=True)
class Turns:
    played: int
    seq: int
    next_level: str | None  # a bot of this level decides next, for another call (queue) to play; None: nobody


def bot_decision(game: Game, state: State, levels: dict[int, str]) -> tuple[int, str] | None:
    """The first deciding seat a bot plays, and its level."""
    for seat in state.deciders():
        if seat in levels:
            return seat, levels[seat]
    return None


def bot_waits(game_id: GameId, seq: int) -> str | None:
    """The level of a bot the game waits for at `seq`, if it waits for one."""
    game = game_row(game_id)
    decision = bot_decision(game, states.state_at(game.pk, seq), game.bot_levels)
    return decision[1] if decision else None


def play_turns(
    game_id: GameId, seq: int, choose: Chooser, *, plays: Callable[[str], bool] = lambda level: True,
    one_of: Callable[[str], bool] = lambda level: False,
) -> Turns:
    try:
        game = game_row(game_id)  # the game and its seats in one query
    except ServiceError:
        return Turns(0, seq, None)
    if game.seq > seq:
        return Turns(0, game.seq, None)
    rng = random.SystemRandom()
    levels = game.bot_levels  # who plays which seat: changes only by a resignation, which moves the seq
    played = 0
    for _ in range(MAX_BOT_MOVES):
        if game.status != Game.Status.ACTIVE:
            break
        decision = bot_decision(game, states.state_at(game.pk, game.seq), levels)
        if decision is None:
            break
        seat, level = decision
        if not plays(level):
            return Turns(played, game.seq, level)  # another queue takes the game from here
        choice = choose(game, states.state_at(game.pk, game.seq), seat, level, rng, None)
        try:
            with metrics.moves_via("bot"):
                move = play_seat(game, seat=seat, expected_seq=game.seq, move=choice.move, by_bot=True, reason=choice.reason)
        except (StaleSeq, ServiceError):
            # Someone moved first: look again, seats included. A resignation meanwhile hands its seat to a bot, and
            # the task it queued may have found this one's moves already past its seq and left the seat to us.
            game = game_row(game_id)
            levels = game.bot_levels
            continue
        played += 1
        if move.finished:
            break
        if one_of(level):
            return Turns(played, game.seq, level)  # the other games of that level go first
    return Turns(played, game.seq, None)
