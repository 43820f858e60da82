"""The strong bot: a determinized search over the engine that never peeks, with whole-game playouts.

Each decision it searches, it draws whole games consistent with what its seat has seen (belief.py: the unseen
cards dealt at random to the deck and the other hands' unseen part, the other seats' tickets drawn from the
tickets it never saw), and in each such game plays every candidate move and then the rest of the game, every
seat playing greedy-lite (rollout.py), to the final score: the reward is the seat's lead over the best other
seat.
Every candidate is played in the same sampled games with the same playout seeds, so they are compared pair by
pair: a candidate clearly behind the best is sampled no more (racing), and the best replaces the greedy bot's
choice only when it leads it by more than LEAD_Z standard errors (a search with too few samples must not do
worse than the policy it refines).

It searches the decisions that make the most difference: which destination tickets to keep, at the start and
after a draw (the choices the greedy bot values most are the candidates); what to do once the seat's tickets
need nothing more (draw more tickets, on USA claim one of its longest routes for points, or the greedy bot's
move); and the claims of the last turns (every claimable route, once a seat is ENDING_TRAINS from the end: the
playouts are short and nearly exact). Its other turns (claims, card draws, tunnels) are the greedy bot's:
searching them did not do better than the greedy bot's own moves, with short rollouts and an evaluation of the
position or with whole playouts (the README). A decision with a single candidate is answered at once, and a
search stops as soon as its race is decided (every other candidate DROP_Z standard errors behind the best over
DECIDED_SAMPLES samples).
The budget is `Decision.seconds` of wall-clock time, or at most `Decision.iterations` sampled games
(deterministic given the decision's rng).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from games.engine import moves as mv
from games.engine.errors import IllegalMove
from games.engine.state import KEEP_TICKETS, SETUP_TICKETS, TURN, State
from games.engine.view import PlayerView

from .belief import Belief, determinize, draw_tickets, track
from .decision import Choice, Decision, own_seat
from .greedy import cheapest_claim, choose_move, claims_by_route, ranked_keeps
from .plan import plan_network, position
from .reasons import explain
from .rollout import opening_keep, play_out

LEAD_Z = 1.0  # standard errors of the paired differences a candidate must lead the greedy move by (1.5 and 2.5
# kept the greedy choice too often: whole playouts are precise enough to trust a one-sigma lead; 0.5, at 48
# samples a decision: USA 2-player +3.2 +- 2.1 points a game, Europe 2-player +0.4 +- 2.1, not clear: 1.0 kept)
MIN_SAMPLES = 4  # and never on fewer sampled games than this
TICKET_CHOICES = 8  # ticket choices searched, the greedy bot's values ranking them: Europe's opening offers 11
# (keep 2, 3 or 4 of 4), too many for enough whole-game samples of each in 1.5 s; 8 beat 5 by about 2 points
DONE_CLAIMS = {"usa": 3, "europe": 0}  # by map: once the seat's tickets are done, its longest claims searched too
# (against drawing cards or tickets). USA: +7.4 +- 2.8 points a game (2-player), +1.6 +- 1.9 (4-player). Europe:
# -4.3 +- 2.4 and -1.5 +- 1.4, -1.2 +- 2.0 and -1.5 +- 1.7 without tunnels and ferries (the README)
ENDING_TRAINS = 6  # a seat this close to the end: the last turns' claims are searched (short, exact playouts)
DROP_Z = 2.0  # a candidate this many standard errors behind the best is sampled no more
DECIDED_SAMPLES = 16  # a race is called over (all but one candidate DROP_Z behind) on this many samples at least:
# on 4 a paired t of 2 happens by chance too often (3 degrees of freedom), and 16 samples cost 0.1 to 0.2 s
MODEL_OPENINGS = False  # the other seats' opening tickets drawn as the greedy bot keeps them (belief.draw_tickets,
# rollout.opening_keep): with the other seats keeping tickets as greedy does, Europe 2-player -2.6 +- 3.6 points a
# game (17 deals; -4.9 +- 1.7 on 12 with unweighted deals): not better, and 5 to 20 ms a draw. Off
TICKET_DRAWS = 4  # the other seats' hidden tickets: a few draws, reused, so that their plans stay cached (a new
# draw for each of 64 samples did no better)
SAFETY = 0.95  # of the budget: the search stops sampling here; a sample still running at the budget is dropped
SEARCHED = (SETUP_TICKETS, KEEP_TICKETS)
ILLEGAL = -1000.0  # the reward of a move a sampled game does not allow (cannot happen when the sample is consistent)


@dataclass
class Tally:
    """One candidate's rewards, sample by sample (paired with the others' by index)."""

    move: mv.Move
    rewards: list[float]
    alive: bool = True  # still sampled: a candidate clearly behind another is dropped (racing)

    @property
    def mean(self) -> float:
        return sum(self.rewards) / len(self.rewards) if self.rewards else 0.0


def choose(decision: Decision) -> Choice:
    started = time.perf_counter()  # the budget covers the greedy bot's planning and the belief too
    view = decision.view
    greedy = choose_move(view, decision.moves)
    considered = candidates(view, decision.moves, greedy)
    if len(considered) == 1:
        return Choice(greedy, explain(view, greedy))
    rng = random.Random(decision.rng.getrandbits(64))
    belief = track(own_seat(view), decision.history)
    tallies = search(decision, belief, considered, rng, started)
    best, lead = _verdict(tallies, greedy)
    samples = len(tallies[0].rewards)
    found = f"search: {lead:+.1f} points over greedy's choice" if lead is not None else "greedy's choice, searched"
    return Choice(best, f"{explain(view, best)} ({found} in {samples} games)")


def candidates(view: PlayerView, moves: Sequence[mv.Move], greedy: mv.Move) -> list[mv.Move]:
    """The TICKET_CHOICES ticket choices the greedy bot values most when the seat keeps tickets; every claim in
    the last turns; once the seat's tickets are done, drawing tickets or not and (on maps where that did better)
    the DONE_CLAIMS longest claims; else the greedy move alone (answered at once). The greedy move comes first."""
    if view.phase in SEARCHED:
        return [greedy, *(m for m in ranked_keeps(view, moves) if m != greedy)][:TICKET_CHOICES]
    if view.phase == TURN and _ending(view):
        return [greedy, *(m for m in _claims(view, moves) if m != greedy)]
    draw = next((m for m in moves if isinstance(m, mv.DrawTickets)), None)
    if view.phase == TURN and _tickets_done(view):
        found = [greedy]
        if draw is not None:
            found.append(draw if greedy != draw else choose_move(view, [m for m in moves if m != draw]))
        board = position(view).board
        longest = sorted(_claims(view, moves), key=lambda m: (-board.routes[m.route].length, m.route))
        found.extend(m for m in longest[:DONE_CLAIMS.get(view.map, 0)] if m not in found)
        return found
    return [greedy]


def _tickets_done(view: PlayerView) -> bool:
    """Whether the seat's tickets need no route and no station more: the time to ask whether to draw more
    (C-TKT-1). The greedy bot draws them by rule of thumb (trains and turns left); playouts weigh the risk."""
    plan = plan_network(position(view), tuple(sorted(view.tickets)))
    return not plan.routes and not plan.stations


def _ending(view: PlayerView) -> bool:
    """The last few turns (C-END-1): short playouts, and every claim's points are near final."""
    return view.last_round or min(p.trains for p in view.players) <= ENDING_TRAINS


def _claims(view: PlayerView, moves: Sequence[mv.Move]) -> list[mv.ClaimRoute]:
    """Each claimable route once, at its cheapest payment."""
    by_route = claims_by_route(moves)
    return [cheapest_claim(by_route[route_id], view.hand, {}) for route_id in sorted(by_route)]


def search(decision: Decision, belief: Belief, candidates: list[mv.Move], rng: random.Random,
            started: float | None = None) -> list[Tally]:
    """Sample until `decision.seconds` after `started` (now by default), or `decision.iterations` samples."""
    tallies = [Tally(move, []) for move in candidates]
    seat = own_seat(decision.view)
    started = time.perf_counter() if started is None else started
    stop, cut = started + decision.seconds * SAFETY, started + decision.seconds
    keeper = opening_keep if MODEL_OPENINGS else None
    hypotheses = [draw_tickets(decision.view, belief, rng, keeper) for _ in range(TICKET_DRAWS)]
    samples = 0
    while decision.iterations is None or samples < decision.iterations:
        if decision.iterations is None and time.perf_counter() >= stop:
            break
        world = determinize(decision.view, belief, rng, hypotheses[samples % len(hypotheses)])
        seed = rng.getrandbits(64)
        alive = [t for t in tallies if t.alive]
        rewards: list[float] = []
        for tally in alive:
            rewards.append(_playout(world.copy(), seat, tally.move, random.Random(seed)))
            if decision.iterations is None and time.perf_counter() >= cut:
                return tallies  # out of time inside a sample: it is dropped
        for tally, reward in zip(alive, rewards, strict=True):
            tally.rewards.append(reward)
        samples += 1
        if samples >= MIN_SAMPLES:
            _drop_the_beaten(alive)
            if _decided(alive):
                break
    return tallies


def _decided(alive: list[Tally]) -> bool:
    """The race is decided: every candidate still sampled but the best, the greedy move too, is DROP_Z standard
    errors behind it (racing would drop them all; more samples would change the verdict only by a rare swing),
    over DECIDED_SAMPLES samples at least."""
    alive = [t for t in alive if t.alive]
    best = max(alive, key=lambda t: t.mean)
    behind = all(_z(best.rewards, t.rewards)[1] > DROP_Z for t in alive if t is not best)
    return behind and len(best.rewards) >= DECIDED_SAMPLES


def _drop_the_beaten(alive: list[Tally]) -> None:
    """Racing: stop sampling the candidates whose paired difference to the best one is below zero by more than
    DROP_Z standard errors, so the samples left go to the candidates still in doubt. The first (the greedy
    choice, which the verdict measures against) is never dropped."""
    best = max(alive, key=lambda t: t.mean)
    for tally in alive[1:]:
        if tally is not best and _z(best.rewards, tally.rewards)[1] > DROP_Z:
            tally.alive = False


def paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """The mean of the paired differences a - b and its standard error (0 on fewer than two pairs)."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    mean = sum(diffs) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    return mean, spread / math.sqrt(n)


def _z(a: list[float], b: list[float]) -> tuple[float, float]:
    """The mean of the paired differences a - b and how many standard errors it is from zero."""
    mean, stderr = paired(a, b)
    return mean, (mean / stderr if stderr > 0 else (math.inf if mean > 0 else 0.0))


def _playout(state: State, seat: int, move: mv.Move, rng: random.Random) -> float:
    try:
        return play_out(state, seat, move, rng)
    except IllegalMove:
        return ILLEGAL


def _verdict(tallies: list[Tally], greedy: mv.Move) -> tuple[mv.Move, float | None]:
    """The candidate with the best mean if it leads the greedy move by more than LEAD_Z standard errors of
    their paired differences; else the greedy move. The lead is the mean difference in final points."""
    base = next(t for t in tallies if t.move == greedy)
    best = max((t for t in tallies if t.alive), key=lambda t: t.mean)
    if best is base or len(best.rewards) < MIN_SAMPLES:
        return greedy, None
    lead, z = _z(best.rewards, base.rewards)
    return (best.move, lead) if z > LEAD_Z else (greedy, None)
