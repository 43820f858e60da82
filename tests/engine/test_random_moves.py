"""`random_legal_move` counts a decision's moves without listing them (claims on bit masks of payments, stations and
tunnels by formula) and builds only the one drawn: it must draw among exactly `legal_moves`' moves, and give the move
`legal_moves` lists at the index drawn, for every index (C-CLM-1, E-FER-1, E-STA-2, E-TUN-2, C-DRW-2)."""

from __future__ import annotations

import random

import pytest

from games.engine.cards import CARD_KINDS
from games.engine.decide import step
from games.engine.legal import legal_move_count, legal_moves, random_legal_move
from games.engine.setup import begin
from games.engine.state import State


class Drawn(random.Random):
    """A draw that is always `index`, and remembers how many moves it was drawn from."""

    def __init__(self, index: int) -> None:
        super().__init__(0)
        self.index = index
        self.among: int | None = None

    def randrange(self, n: int, *args: object, **kwargs: object) -> int:  # type: ignore[override]
        assert not args and not kwargs
        self.among = n
        return self.index


def positions(map_name: str, players: int, games: int, seed: str) -> list[State]:
    """Every position of a few random games, and each again with a rich random hand for the seat deciding
    (many colours and locomotives: many payments for gray routes, ferries and stations)."""
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        state, _ = begin(map_name, players, rng)
        while not state.finished:
            found.append(state)
            seat = state.deciders()[0]
            if state.current is not None and rng.random() < 0.3:
                rich = state.copy()
                rich.players[seat].hand = {kind: rng.randint(0, 9) for kind in CARD_KINDS if rng.random() < 0.8}
                found.append(rich)
            move = random_legal_move(state, seat, rng)
            assert move is not None
            state, _ = step(state, seat, move, rng)
    return found


def check_every_index(state: State) -> int:
    seat = state.deciders()[0]
    moves = legal_moves(state, seat)
    assert legal_move_count(state, seat) == len(moves)
    if not moves:
        draw = Drawn(0)
        assert random_legal_move(state, seat, draw) is None
        assert draw.among is None  # nothing drawn when there is nothing to draw from
        return 0
    for index, expected in enumerate(moves):
        draw = Drawn(index)
        assert random_legal_move(state, seat, draw) == expected, (state.phase, index)
        assert draw.among == len(moves)
    return len(moves)


@pytest.mark.parametrize(("map_name", "players"), [("europe", 2), ("europe", 4), ("europe", 5), ("usa", 3), ("usa", 4)])
def test_c_clm_1_e_fer_1_e_sta_2_random_legal_move_gives_the_listed_move_at_every_index(
    map_name: str, players: int
) -> None:
    states = positions(map_name, players, games=1, seed=f"random-moves:{map_name}:{players}")
    phases = {state.phase for state in states}
    checked = sum(check_every_index(state) for state in states)
    assert {"turn", "second_card", "keep_tickets", "setup_tickets"} <= phases
    assert checked > 1000


def test_e_tun_2_c_drw_2_the_same_seed_draws_the_same_move_as_the_listed_moves_do() -> None:
    # The drawn index is the listed move's: one draw from the seed, as randrange over the count of legal_moves.
    for state in positions("europe", 4, games=1, seed="random-moves:same-draw")[::3]:
        seat = state.deciders()[0]
        moves = legal_moves(state, seat)
        expected = moves[random.Random(7).randrange(len(moves))] if moves else None
        assert random_legal_move(state, seat, random.Random(7)) == expected
