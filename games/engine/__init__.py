"""The Ticket to Ride rules engine: pure Python, standard library only.

The game is three functions: `decide(state, seat, move, rng) -> events` (or `IllegalMove`),
`evolve(state, event) -> state`, and `replay(events) = fold(evolve)`. `start_game` opens a game,
`legal_moves` lists what a seat may do, `view` (a `PlayerView`) and `redact` project state and events for one viewer,
`final_score` scores a finished board and `score_ended` turns that into the `game_scored` event.
"""

from .board import Board, load_board
from .decide import decide, score_ended, step
from .errors import IllegalMove, NotYourTurn
from .events import EVENT_TYPES, Event
from .evolve import evolve, evolve_in_place, replay
from .legal import legal_move_count, legal_moves, random_legal_move
from .moves import MOVE_TYPES, Move
from .scoring import FinalScore, SeatScore, final_score
from .setup import begin, start_game
from .state import State
from .view import FinalView, PlayerView, PublicPlayer, TunnelView, redact, view

__all__ = [
    "EVENT_TYPES",
    "MOVE_TYPES",
    "Board",
    "Event",
    "FinalScore",
    "FinalView",
    "IllegalMove",
    "Move",
    "NotYourTurn",
    "PlayerView",
    "PublicPlayer",
    "SeatScore",
    "State",
    "TunnelView",
    "begin",
    "decide",
    "evolve",
    "evolve_in_place",
    "final_score",
    "legal_move_count",
    "legal_moves",
    "load_board",
    "random_legal_move",
    "redact",
    "replay",
    "score_ended",
    "start_game",
    "step",
    "view",
]
