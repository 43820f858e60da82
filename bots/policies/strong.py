"""The strong bot: a determinized search over the engine that never peeks.

Each decision it draws whole games consistent with what its seat has seen (belief.py: the unseen cards dealt at
random to the deck and the other hands' unseen part, the other seats' tickets drawn from the tickets it never
saw), and in each such game plays every candidate move, then a short rollout (every seat playing the greedy
policy for a couple of turns each, on the engine's in-place step over a copy), and values the position it
reaches (evaluate.py: points, tickets weighted by their odds, stations, longest path). Every candidate is played
in the same sampled games with the same rollout seeds, so they are compared pair by pair: the candidate with the
best mean wins only when its lead over the greedy move is larger than its noise; otherwise the greedy move stands
(a search with too few samples must not do worse than the policy it refines).

Candidates: every ticket choice; the greedy move; each claimable route (its cheapest payment) that its ticket
plan takes or that is long; a blind draw and each distinct face-up colour; paying or declining
a tunnel. A decision with a single candidate is answered at once. The budget is `Decision.seconds` of wall-clock
time, or exactly `Decision.iterations` sampled games (deterministic given the decision's rng).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import moves as mv
from games.engine import step
from games.engine.errors import IllegalMove
from games.engine.state import KEEP_TICKETS, SECOND_CARD, SETUP_TICKETS, TUNNEL_PAYMENT, State

from .belief import Belief, determinize, draw_tickets, track
from .decision import Choice, Decision
from .evaluate import position_of, values
from .greedy import choose_move
from .greedy_cards import cheapest_payment
from .plan import SMALL_GAME, Position, plan_network, position
from .reasons import explain
from .rollout import lite_move

ROLLOUT_TURNS = 5  # turns each seat plays in a rollout before the position is valued (2 lost to greedy: the
# evaluation is short-sighted; 5 came out even over 40 USA games)
MAX_ROLLOUT_DECISIONS = 40  # a guard: a rollout turn is at most a few decisions
SCALE = 10.0  # points: a lead this large is worth about 73% (the logistic reward)
LEAD_Z = 2.5  # how many standard errors a candidate must lead the greedy move by to replace it (several
# candidates race the greedy move at once: a lower bar lets noise win)
MIN_SAMPLES = 8  # and never on fewer sampled games than this
BLOCKING = 0  # claims searched that may cut an opponent's ticket (see _blocking): 3 lost (0.30 against 0.375 of
# 40 USA games at 12 samples a decision)
LONG_CLAIM = 5  # claims searched besides the planned ones: routes this long
TICKET_DRAWS = 4  # the other seats' hidden tickets: a few draws, reused, so that their plans stay cached
SAFETY = 0.92  # of the budget: the last sample and the answer fit in the rest


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
        return Choice(candidates[0], explain(view_, candidates[0]))
    rng = random.Random(decision.rng.getrandbits(64))
    belief = track(view_["your_seat"], decision.history)
    tallies = _search(decision, belief, candidates, rng)
    best, lead = _verdict(tallies, greedy)
    samples = len(tallies[0].rewards)
    found = f"search: {lead:+.0%} over greedy's move" if lead is not None else "greedy's move, searched"
    return Choice(best, f"{explain(view_, best)} ({found} in {samples} games)")


def _search(decision: Decision, belief: Belief, candidates: list[mv.Move], rng: random.Random) -> list[Tally]:
    tallies = [Tally(move, []) for move in candidates]
    seat = decision.view["your_seat"]
    deadline = time.perf_counter() + decision.seconds * SAFETY
    samples = 0
    hypotheses = [draw_tickets(decision.view, belief, rng) for _ in range(TICKET_DRAWS)]
    while True:
        if decision.iterations is not None:
            if samples >= decision.iterations:
                break
        elif time.perf_counter() >= deadline and samples:
            break
        world = determinize(decision.view, belief, rng, hypotheses[samples % len(hypotheses)])
        roots = [position_of(world, i) for i in range(world.player_count)]
        seed = rng.getrandbits(64)
        rewards: list[float] = []
        for tally in tallies:
            reward = _playout(world.copy(), seat, tally.move, random.Random(seed), roots)
            if decision.iterations is None and time.perf_counter() >= deadline + decision.seconds * (1 - SAFETY):
                return tallies  # out of time inside a sample: it is dropped (too few samples: the greedy move)
            rewards.append(reward)
        for tally, reward in zip(tallies, rewards, strict=True):
            tally.rewards.append(reward)
        samples += 1
    return tallies


def _verdict(tallies: list[Tally], greedy: mv.Move) -> tuple[mv.Move, float | None]:
    """The candidate with the best mean if it leads the greedy move by more than LEAD_Z standard errors of
    their paired differences; else the greedy move. The lead is the difference of mean rewards."""
    base = next(t for t in tallies if t.move == greedy)
    best = max(tallies, key=lambda t: t.mean)
    if best is base:
        return greedy, None
    diffs = [a - b for a, b in zip(best.rewards, base.rewards, strict=True)]
    n = len(diffs)
    if n < MIN_SAMPLES:
        return greedy, None
    mean = sum(diffs) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else float("inf")
    if mean > LEAD_Z * spread / math.sqrt(n):
        return best.move, mean
    return greedy, None


def _playout(state: State, seat: int, move: mv.Move, rng: random.Random, roots: list[Position]) -> float:
    """Play `move` in a sampled game, then ROLLOUT_TURNS turns of each seat by the greedy policy; the reward
    is the logistic of the seat's lead over the best other seat (evaluate.py)."""
    try:
        state, _ = step(state, seat, move, rng, in_place=True)
        _rollout(state, rng, roots)
    except IllegalMove:
        return 0.0  # a sampled game the move does not fit (cannot happen when the sample is consistent)
    worth = values(state, roots)
    others = max(v for i, v in enumerate(worth) if i != seat)
    return 1.0 / (1.0 + math.exp(-(worth[seat] - others) / SCALE))


def _rollout(state: State, rng: random.Random, roots: list[Position]) -> None:
    turns = ROLLOUT_TURNS * state.player_count
    for _ in range(MAX_ROLLOUT_DECISIONS * state.player_count):
        if state.finished or turns <= 0:
            return
        decider = state.deciders()[0]
        state, events = step(state, decider, lite_move(state, decider, rng, roots[decider]), rng, in_place=True)
        turns -= sum(1 for e in events if e.type == "turn_ended")


# Candidates.


def _blocking(pos: Position, claims: list[mv.ClaimRoute]) -> list[str]:
    """Up to BLOCKING claimable routes that touch an opponent's network and are the last way between their two
    cities (no open twin): the routes whose claim may cut an opponent's ticket, longest first."""
    board = pos.board
    theirs = {c for r, s in pos.owner.items() if s != pos.seat for c in (board.routes[r].a, board.routes[r].b)}
    found = set()
    for move in claims:
        route = board.routes[move.route]
        twin = board.routes[route.twin] if route.twin else None
        open_twin = twin is not None and twin.id not in pos.owner and pos.players > SMALL_GAME
        if (route.a in theirs or route.b in theirs) and not open_twin:
            found.add(route.id)
    return sorted(found, key=lambda r: (-board.routes[r].length, r))[:BLOCKING]


def _candidates(view_: Mapping[str, Any], moves: Sequence[mv.Move], greedy: mv.Move) -> list[mv.Move]:
    phase = view_["phase"]
    if phase in (SETUP_TICKETS, KEEP_TICKETS):
        found = list(moves)
    elif phase == TUNNEL_PAYMENT:
        found = [greedy, *_cheapest(view_, [m for m in moves if isinstance(m, mv.PayTunnel)])]
        found.extend(m for m in moves if isinstance(m, mv.DeclineTunnel))
    elif phase == SECOND_CARD:
        found = [greedy, *_draws(view_, moves)]
    else:
        # Drawing tickets only when the greedy move is to: searched as a candidate, the evaluation's odds for new
        # tickets made it look good far too often (ticket points -60 a game against the greedy bot).
        found = [greedy, *_draws(view_, moves), *_claims(view_, moves)]
    unique: list[mv.Move] = []
    for move in found:
        if move not in unique:
            unique.append(move)
    return unique


def _cheapest(view_: Mapping[str, Any], pays: list[mv.PayTunnel]) -> list[mv.Move]:
    if not pays:
        return []
    paid = cheapest_payment((m.cards for m in pays), view_["hand"], {})
    return [next(m for m in pays if m.cards == paid)]


def _draws(view_: Mapping[str, Any], moves: Sequence[mv.Move]) -> list[mv.Move]:
    """A blind draw and one face-up slot per colour shown."""
    draws: list[mv.Move] = []
    colours: set[str | None] = set()
    for move in moves:
        if isinstance(move, mv.DrawCard):
            card = view_["market"][move.index] if move.index is not None else None
            if card not in colours:
                colours.add(card)
                draws.append(move)
    return draws


def _claims(view_: Mapping[str, Any], moves: Sequence[mv.Move]) -> list[mv.Move]:
    """Each claimable route of the seat's ticket plan, and each long one (LONG_CLAIM trains or more), once, at its
    cheapest payment. (Searching every claim let noise and the evaluation's short sight pick stray short routes:
    it lost nine games in ten to the greedy bot.)"""
    pos = position(view_)
    board = pos.board
    planned = set(plan_network(pos, tuple(sorted(view_["tickets"]))).routes)
    by_route: dict[str, list[mv.ClaimRoute]] = {}
    for move in moves:
        if isinstance(move, mv.ClaimRoute):
            route = board.routes[move.route]
            if route.id in planned or route.twin in planned or route.length >= LONG_CLAIM:
                by_route.setdefault(move.route, []).append(move)
    for route_id in _blocking(pos, [m for m in moves if isinstance(m, mv.ClaimRoute)]):
        by_route.setdefault(route_id, [m for m in moves if isinstance(m, mv.ClaimRoute) and m.route == route_id])
    claims: list[mv.Move] = []
    for route_id in sorted(by_route):
        paid = cheapest_payment((m.cards for m in by_route[route_id]), view_["hand"], {})
        claims.append(next(m for m in by_route[route_id] if m.cards == paid))
    return claims
