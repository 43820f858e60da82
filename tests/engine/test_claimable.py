"""The bit-mask shortcut for claimable routes agrees with the plain rule checks (C-CLM-1, C-DBL-1/2, E-FER-1)."""

from __future__ import annotations

import random

import pytest

from games.engine.decide import step
from games.engine.legal import random_legal_move
from games.engine.payment import can_pay_route
from games.engine.rules import claimable_routes, route_closed_reason
from games.engine.setup import begin


@pytest.mark.parametrize(("map_name", "players"), [("europe", 2), ("europe", 4), ("usa", 3), ("usa", 5)])
def test_c_clm_1_c_dbl_1_c_dbl_2_claimable_routes_match_the_rule_checks(map_name: str, players: int) -> None:
    rng = random.Random(f"claimable:{map_name}:{players}")
    checked = 0
    for _ in range(3):
        state, _ = begin(map_name, players, rng)
        while not state.finished:
            for seat in range(players):
                hand = state.players[seat].hand
                expected = [
                    r for r in state.board.route_list
                    if route_closed_reason(state, seat, r) is None and can_pay_route(hand, r)
                ]
                assert claimable_routes(state, seat) == expected
                checked += 1
            seat = state.deciders()[0]
            move = random_legal_move(state, seat, rng)
            assert move is not None
            state, _ = step(state, seat, move, rng, in_place=True)
    assert checked > 100
