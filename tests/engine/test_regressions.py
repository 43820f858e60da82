"""Bugs found once, kept found: each test names what went wrong."""

from __future__ import annotations

import random

import pytest

from games.engine import moves as mv
from games.engine.decide import decide, step
from games.engine.errors import IllegalMove
from games.engine.legal import random_legal_move
from games.engine.setup import begin
from games.engine.state import TURN


def in_turn(seed: str):
    rng = random.Random(seed)
    state, _ = begin("europe", 3, rng)
    while state.phase != TURN:
        seat = state.deciders()[0]
        state, _ = step(state, seat, random_legal_move(state, seat, rng), rng)
    return state


@pytest.mark.parametrize(
    "move",
    [mv.DrawCard("hand", 2), mv.DrawCard("market", True), mv.DrawCard("market", 1.0), mv.DrawCard("market", -1)],
)
def test_c_drw_1_decide_refuses_draws_of_the_wrong_shape(move: mv.DrawCard) -> None:
    # decide once played an unknown source as a market draw and logged index=True (the codec hid it).
    state = in_turn("shapes")
    with pytest.raises(IllegalMove) as refused:
        decide(state, state.current, move, random.Random(0))
    assert refused.value.rule == "C-DRW-1"
