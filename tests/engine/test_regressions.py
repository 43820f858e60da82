"""Bugs found once, kept found: each test names what went wrong.

Logs in regressions/ are games the simulator wrote while a bug was in the engine (gzip'd JSON Lines, one event a
line, named as `python -m games.engine.simulate ... --log-dir DIR` names them). A test replays a log up to the
move that went wrong, decides that move again with the chance the log recorded (`RecordedChance`), and checks
the rule the old engine broke there. Every log must also still replay whole: old logs stay readable.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterable, MutableSequence
from pathlib import Path
from typing import Any

import pytest

from games.engine import events as ev
from games.engine import moves as mv
from games.engine.cards import count, full_deck, total
from games.engine.codec import event_from_json
from games.engine.decide import decide, step
from games.engine.errors import IllegalMove
from games.engine.evolve import evolve, evolve_in_place, initial_state, replay
from games.engine.legal import random_legal_move
from games.engine.setup import begin
from games.engine.state import TURN, State
from games.engine.view import view
from tests.engine.builders import assert_c_drw_4_kept, card_count, pay

REGRESSIONS = Path(__file__).with_name("regressions")
ALL_CARDS = count(full_deck())


def read_log(name: str) -> list[ev.Event]:
    return [event_from_json(line) for line in gzip.decompress((REGRESSIONS / name).read_bytes()).decode().splitlines()]


class RecordedChance(random.Random):
    """Shuffles that turn out as the log's `DeckShuffled` events did, in order (X-RNG-1); past them, seeded ones."""

    def __init__(self, recorded: Iterable[ev.Event]) -> None:
        super().__init__(0)
        self.orders = [e.cards for e in recorded if isinstance(e, ev.DeckShuffled) and e.cards is not None]

    def shuffle(self, x: MutableSequence[Any]) -> None:
        if not self.orders:
            return super().shuffle(x)
        order = self.orders.pop(0)
        assert sorted(order) == sorted(x), "the log's shuffle was of other cards: the move went another way"
        x[:] = order
        return None


def decided_again(log: list[ev.Event], lines: tuple[int, int], seat: int, *moves: mv.Move) -> tuple[State, list[ev.Event]]:
    """The state before the moves the log wrote on `lines` (1-based, inclusive), and those moves' events now."""
    first, last = lines
    before = state = replay(log[: first - 1])
    chance = RecordedChance(log[first - 1 : last])
    events: list[ev.Event] = []
    for move in moves:
        state, new = step(state, seat, move, chance)
        events.extend(new)
    return before, events


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


# C-DRW-4: the engine gave up after 20 wipes in a row, writing "three locomotives came up 20 times in a row".
# Logs: python -m games.engine.simulate --map usa --players 5 --seed 105 --games 30 --log-dir DIR (at 1d71692).
GAVE_UP = ev.MarketWipeSkipped("three locomotives came up 20 times in a row")


def test_c_drw_4_usa_5p_seed105_game_7_keeps_wiping_while_3_black_cards_are_left() -> None:
    # Lines 902-1026: seat 0 takes the face-up card in slot 3. The log gave up at line 964 (and again at line
    # 1025) with 3 black cards among the deck, the discards and the market: a legal market could still come up.
    log = read_log("usa-5p-seed105-00007.jsonl.gz")
    before, events = decided_again(log, (902, 1026), 0, mv.DrawCard("market", 3))
    assert events[: 964 - 902] == log[901:963]  # the same wipes as the log, up to where it gave up
    assert_c_drw_4_kept(before, events)


def test_c_drw_4_usa_5p_seed105_game_25_records_no_skip_after_a_legal_market_came_up() -> None:
    # Lines 951-1004: seat 0 claims el-paso--oklahoma-city. The 20th wipe turned up a market with 2 locomotives
    # (line 1001), and line 1002 still said three locomotives had come up: now the same chance ends there.
    log = read_log("usa-5p-seed105-00025.jsonl.gz")
    claim = mv.ClaimRoute("el-paso--oklahoma-city", pay(yellow=3, locomotive=2))
    before, events = decided_again(log, (951, 1004), 0, claim)
    assert_c_drw_4_kept(before, events)
    assert events == [e for e in log[950:1004] if e != GAVE_UP]  # the same facts but the false one


# E-TUN-4: the revealed cards went to the discard pile with route_claimed or tunnel_declined, before turn_ended.
# Log: python -m games.engine.simulate --map europe --players 2 --seed 7 --games 300 --log-dir DIR (at 1d71692).


def test_e_tun_4_europe_2p_seed7_game_258_the_declined_tunnels_cards_are_discarded_when_the_turn_ends() -> None:
    # Lines 78-80: seat 1 tries the bucuresti--sofia tunnel with 2 yellow, blue, white and a locomotive come up,
    # and seat 1 declines. The public discard count grew by those 3 cards at tunnel_declined, before turn_ended.
    log = read_log("europe-2p-seed7-00258.jsonl.gz")
    claim = mv.ClaimRoute("bucuresti--sofia", pay(yellow=2))
    before, events = decided_again(log, (78, 80), 1, claim, mv.DeclineTunnel())
    assert events == log[77:80]  # the same facts: only when the revealed cards reach the discard pile changed
    discard_sizes = []
    state = before
    for event in events:
        state = evolve(state, event)
        discard_sizes.append(view(state, None).discard_size)
    held = total(before.discards)
    assert discard_sizes == [held, held, held + 3]  # tunnel_revealed, tunnel_declined, turn_ended


@pytest.mark.parametrize("name", sorted(path.name for path in REGRESSIONS.glob("*.jsonl.gz")))
def test_every_regression_log_still_replays_with_all_110_cards_after_every_event(name: str) -> None:
    log = read_log(name)
    state = initial_state(log[0])  # type: ignore[arg-type]
    for i, event in enumerate(log[1:], start=2):
        evolve_in_place(state, event)
        assert card_count(state) == ALL_CARDS, f"{name} line {i} ({event.type}): C-CMP-1's 110 cards"
    assert state.finished
