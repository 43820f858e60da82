"""The strong bot: a determinized search over the engine that never peeks, with whole-game playouts.

Each decision it searches, it draws whole games consistent with what its seat has seen (belief.py: the unseen
cards dealt at random to the deck and the other hands' unseen part, the other seats' tickets drawn from the
tickets it never saw), and in each such game plays every candidate move and then the rest of the game, every seat
playing greedy-lite (rollout.py), to the final score: the reward is the seat's lead over the best other seat.
Every candidate is played in the same sampled games with the same playout seeds, so they are compared pair by
pair: the candidate with the best mean wins only when its lead over the greedy move is larger than LEAD_Z
standard errors; otherwise the greedy move stands (a search with too few samples must not do worse than the
policy it refines).

It searches the decisions that make the most difference: which destination tickets to keep, at the start and
after a draw (every legal choice is a candidate). Its turns (claims, draws, tunnels) are the greedy bot's: searching
them lost to the greedy bot, with short rollouts and an evaluation of the position as with whole playouts (the
README's table). A decision with a single candidate is answered at once. The budget is `Decision.seconds` of
wall-clock time, or exactly `Decision.iterations` sampled games (deterministic given the decision's rng).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import moves as mv
from games.engine.errors import IllegalMove
from games.engine.state import KEEP_TICKETS, SETUP_TICKETS, State

from .belief import Belief, determinize, draw_tickets, track
from .decision import Choice, Decision
from .greedy import choose_move
from .reasons import explain
from .rollout import play_out

LEAD_Z = 1.0  # standard errors of the paired differences a candidate must lead the greedy move by (1.5 and 2.5
# kept the greedy choice too often: whole playouts are precise enough to trust a one-sigma lead)
MIN_SAMPLES = 4  # and never on fewer sampled games than this
TICKET_DRAWS = 4  # the other seats' hidden tickets: a few draws, reused, so that their plans stay cached
SAFETY = 0.95  # of the budget: the search stops sampling here; a sample still running at the budget is dropped
SEARCHED = (SETUP_TICKETS, KEEP_TICKETS)
ILLEGAL = -1000.0  # the reward of a move a sampled game does not allow (cannot happen when the sample is consistent)


@dataclass
class Tally:
    """One candidate's rewards, sample by sample (paired with the others' by index)."""

    move: mv.Move
    rewards: list[float]

    @property
    def mean(self) -> float:
        return sum(self.rewards) / len(self.rewards) if self.rewards else 0.0


def choose(decision: Decision) -> Choice:
    view_ = decision.view
    greedy = choose_move(view_, decision.moves)
    candidates = _candidates(view_, decision.moves, greedy)
    if len(candidates) == 1:
        return Choice(greedy, explain(view_, greedy))
    rng = random.Random(decision.rng.getrandbits(64))
    belief = track(view_["your_seat"], decision.history)
    tallies = _search(decision, belief, candidates, rng)
    best, lead = _verdict(tallies, greedy)
    samples = len(tallies[0].rewards)
    found = f"search: {lead:+.1f} points over greedy's choice" if lead is not None else "greedy's choice, searched"
    return Choice(best, f"{explain(view_, best)} ({found} in {samples} games)")


def _candidates(view_: Mapping[str, Any], moves: Sequence[mv.Move], greedy: mv.Move) -> list[mv.Move]:
    """Every ticket choice when the seat keeps tickets; else the greedy move alone (answered at once)."""
    if view_["phase"] in SEARCHED:
        return [greedy, *(m for m in moves if m != greedy)]
    return [greedy]


def _search(decision: Decision, belief: Belief, candidates: list[mv.Move], rng: random.Random) -> list[Tally]:
    tallies = [Tally(move, []) for move in candidates]
    seat = decision.view["your_seat"]
    started = time.perf_counter()
    stop, cut = started + decision.seconds * SAFETY, started + decision.seconds
    hypotheses = [draw_tickets(decision.view, belief, rng) for _ in range(TICKET_DRAWS)]
    samples = 0
    while decision.iterations is None or samples < decision.iterations:
        if decision.iterations is None and time.perf_counter() >= stop:
            break
        world = determinize(decision.view, belief, rng, hypotheses[samples % len(hypotheses)])
        seed = rng.getrandbits(64)
        rewards: list[float] = []
        for tally in tallies:
            rewards.append(_playout(world.copy(), seat, tally.move, random.Random(seed)))
            if decision.iterations is None and time.perf_counter() >= cut:
                return tallies  # out of time inside a sample: it is dropped
        for tally, reward in zip(tallies, rewards, strict=True):
            tally.rewards.append(reward)
        samples += 1
    return tallies


def _playout(state: State, seat: int, move: mv.Move, rng: random.Random) -> float:
    try:
        return play_out(state, seat, move, rng)
    except IllegalMove:
        return ILLEGAL


def _verdict(tallies: list[Tally], greedy: mv.Move) -> tuple[mv.Move, float | None]:
    """The candidate with the best mean if it leads the greedy move by more than LEAD_Z standard errors of
    their paired differences; else the greedy move. The lead is the mean difference in final points."""
    base = next(t for t in tallies if t.move == greedy)
    best = max(tallies, key=lambda t: t.mean)
    n = len(best.rewards)
    if best is base or n < MIN_SAMPLES:
        return greedy, None
    diffs = [a - b for a, b in zip(best.rewards, base.rewards, strict=True)]
    mean = sum(diffs) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    if mean > LEAD_Z * spread / math.sqrt(n):
        return best.move, mean
    return greedy, None
