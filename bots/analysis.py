"""Post-game analysis: every decision of a finished game judged by a search of its own, from the deciding seat's
own information only, with an unbiased loss and its uncertainty.

For each move of the log (games/engine/played.py finds them), the seat's view, its legal moves and the game's events
so far as that seat saw them are all the search is given, exactly what the strong bot is given when it plays
(bots/policies: a policy never sees the true hidden cards). The candidates are the move played and the ones the
strong bot considers there (the greedy bot's move, the ticket choices it values most, the last turns' claims, ...).
A sampled game is a whole game drawn from what the seat knows (belief.py) in which each candidate is played and
then the game to its end, every seat playing greedy-lite (rollout.py): the reward is the seat's final lead over the
best other seat, every candidate in the same sampled games with the same playout seed (common random numbers).

The judgement has two stages on independent samples:
1. Choosing the comparator. Every candidate is played in the same BATCH sampled games, then BATCH more at a time
   while it may still lead the move played by a mark (by MARK_FLOOR points, within POSSIBLE_Z standard errors) and
   trails the best by less than DROP_Z standard errors, up to `Budget.contend` games. The comparator is the candidate
   whose mean paired lead over the move played is the best, any of them: one no longer sampled keeps the lead it
   had, so a candidate left behind early, while another looked better, can still be it (racing the candidates, as
   the strong bot does, judged a move "best" once its better rival had been dropped).
2. Measuring the loss. The comparator and the move played are played again in fresh sampled games, drawn from a
   generator independent of the first stage's, and the loss is their mean paired difference there: an unbiased
   estimate of what the move played gives up against the comparator (it may be negative), with its standard
   error. The number of fresh games is fixed by the first stage alone (more where a mark is possible), so it does
   not bias the estimate. Measuring the loss on the samples that chose the comparator overstated it about twofold
   (the winner's curse: the best of several noisy means is too high).
A decision is marked only when stage 1 found a mark possible and the fresh loss passes the thresholds (MARKS) by at
least SIGNIFICANCE standard errors. Where the move played is the only candidate, `Budget.single` sampled games
estimate its lead alone (the evaluation graph).

A fixed budget and random generators seeded by the game and the decision make the analysis deterministic: the same
log always gets the same analysis. Pure: the engine and the policies only.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from games.engine import legal_moves, redact, replay, view
from games.engine import moves as mv
from games.engine.errors import IllegalMove
from games.engine.events import Event
from games.engine.played import Played, played_moves
from games.engine.scoring import final_score
from games.engine.state import State

from .policies.belief import Belief, determinize, track
from .policies.decision import Decision
from .policies.greedy import choose_move
from .policies.reasons import explain
from .policies.rollout import play_out
from .policies.strong import candidates, paired

VERSION = "strong-search 2"  # the analysing search and its playouts (say so when they change): 2 measures the loss
# on fresh samples and compares against every candidate
SIGNIFICANCE = 2.0  # a mark needs the loss at least this many standard errors from zero (and the interval shown)
MARKS = ((15.0, "blunder"), (8.0, "mistake"), (4.0, "inaccuracy"))  # a loss over this many points: that mark
MARK_FLOOR = MARKS[-1][0]
CONTEND_SHARE = 6  # stage 1 plays at most a sixth of `Budget.samples` (SCREEN at the default): whole-game
# playouts of a setup's 8 ticket choices are most of an analysis's time
BATCH = 4  # stage 1 samples every candidate still in contention this many games at a time
SCREEN = 8  # and stops on a single contender only after this many
DROP_Z = 2.0  # a candidate this many standard errors behind the best is sampled no more in stage 1
POSSIBLE_Z = 1.0  # a mark is possible while a candidate's lead plus this many standard errors reaches MARK_FLOOR
FRESH_MIN = 4  # fresh sampled games for the loss where no mark is possible (an unbiased, rough figure)
FRESH_MARK = 8  # and at least this many where one is
FRESH_Z = 3.0  # where a mark is possible: enough fresh games for a standard error of a FRESH_Z-th of the lead found
# (or of MARK_FLOOR, when the lead is less)
ILLEGAL = -1000.0  # the reward of a move a sampled game does not allow (cannot happen when the sample is consistent)

Sampler = Callable[[Sequence[mv.Move], int], list[list[float]]]  # (moves, n) -> n new sampled games' rewards, by move


@dataclass(frozen=True, slots=True)
class Budget:
    """Sampled games a decision: at most `samples` fresh ones for the loss where candidates are compared (and
    `contend` at most, a sixth of it, to choose the comparator), `single` where the move played is the
    only candidate (its lead alone, for the evaluation graph)."""

    samples: int = 48
    single: int = 2

    @property
    def contend(self) -> int:
        return max(SCREEN, self.samples // CONTEND_SHARE)

    def as_dict(self) -> dict[str, int]:
        return {"samples": self.samples, "single": self.single}


@dataclass(frozen=True, slots=True)
class Judgement:
    """One decision judged: `lead` is the estimated final lead after the move played; `loss` how many points the
    comparator (`best`) is estimated to gain over it on fresh samples, unbiased and possibly negative (0 when the
    move played is the best candidate found), with its standard error."""

    seq: int  # the position decided on: the log's seq before the move's first event
    seat: int
    played: mv.Move
    best: mv.Move
    lead: float
    loss: float
    stderr: float
    mark: str | None
    reason: str  # why the best move, in the bot's words ("" when the move played is the best)
    samples: int  # sampled games the move played was played in

    @property
    def interval(self) -> tuple[float, float]:
        """The loss's interval: SIGNIFICANCE standard errors either side (about 95 %)."""
        return self.loss - SIGNIFICANCE * self.stderr, self.loss + SIGNIFICANCE * self.stderr


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the two stages found (`compare`): the comparator's index among the moves, the loss measured on fresh
    samples and its standard error, whether stage 1 found a mark possible, and the move played's rewards."""

    comparator: int
    loss: float
    stderr: float
    possible: bool
    played: list[float]


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    judgements: tuple[Judgement, ...]
    final_leads: dict[int, int]  # each seat's true final lead, for the graph's last point

    @classmethod
    def of(cls, events: Sequence[Event], judgements: Sequence[Judgement]) -> GameAnalysis:
        """The analysis of the finished game `events` whose decisions were judged `judgements`."""
        return cls(tuple(judgements), final_leads(replay(events)))


def judge(decision: Decision, played: mv.Move, rng: random.Random, budget: Budget, seq: int = 0) -> Judgement:
    """The move played against the candidates the strong bot considers (`compare`)."""
    seen = decision.view
    seat = seen.your_seat
    if seat is None:
        raise ValueError("a spectator's view decides nothing")
    greedy = choose_move(seen, decision.moves)
    ordered = [played, *(m for m in candidates(seen, decision.moves, greedy) if m != played)]
    belief = track(seat, decision.history)
    first = sampler(decision, belief, random.Random(rng.getrandbits(64)))
    if len(ordered) == 1:
        rewards = [row[0] for row in first(ordered, budget.single)]
        return Judgement(seq, seat, played, played, _mean(rewards), 0.0, 0.0, None, "", len(rewards))
    fresh = sampler(decision, belief, random.Random(rng.getrandbits(64)))
    found = compare(ordered, first, fresh, budget)
    best = ordered[found.comparator]
    marked = mark(found.loss, found.stderr) if found.possible else None
    return Judgement(
        seq, seat, played, best, _mean(found.played), found.loss, found.stderr, marked,
        explain(seen, best) if best != played else "", len(found.played),
    )


def compare(moves: Sequence[mv.Move], first: Sampler, fresh: Sampler, budget: Budget) -> Verdict:
    """Stage 1 on `first`'s samples chooses the comparator among `moves` (the move played first); stage 2 measures
    the loss on `fresh`'s (see the module docstring)."""
    rewards = _choose(moves, first, budget)
    played = rewards[0]
    leads = [paired(r, played[: len(r)]) for r in rewards]  # paired, on each candidate's own samples: the sampled
    # games differ more than the candidates do, so only differences within the same games compare candidates
    comparator = max(range(len(moves)), key=lambda i: (leads[i][0], -i))
    if comparator == 0:
        return Verdict(0, 0.0, 0.0, False, played)
    found, stderr = leads[comparator]
    possible = _may_mark(found, stderr)
    spread = stderr * math.sqrt(len(rewards[comparator]))
    games = fresh([moves[0], moves[comparator]], _fresh_games(found, spread, possible, budget))
    loss, fresh_stderr = paired([row[1] for row in games], [row[0] for row in games])
    return Verdict(comparator, loss, fresh_stderr, possible, played + [row[0] for row in games])


def _choose(moves: Sequence[mv.Move], first: Sampler, budget: Budget) -> list[list[float]]:
    """Stage 1: every candidate's rewards, BATCH sampled games at a time. A candidate is sampled no more once it
    cannot lead the move played by a mark (`_may_mark`) or trails the best by DROP_Z standard errors; it stays a
    candidate, with the games it has. It stops when no candidate is sampled beside the move played, when one is
    (after SCREEN games), or after `budget.contend` games."""
    rewards: list[list[float]] = [[] for _ in moves]
    alive = list(range(len(moves)))
    while len(alive) > 1:
        for row in first([moves[i] for i in alive], BATCH):
            for i, reward in zip(alive, row, strict=True):
                rewards[i].append(reward)
        games = len(rewards[0])
        leads = {i: paired(rewards[i], rewards[0]) for i in alive[1:]}
        contending = [i for i in alive[1:] if _may_mark(*leads[i])]
        if not contending or games >= budget.contend:
            break
        best = max(contending, key=lambda i: leads[i][0])
        alive = [0, *(i for i in contending if i == best or _behind(rewards[best], rewards[i]) < DROP_Z)]
        if len(alive) <= 2 and games >= SCREEN:
            break
    return rewards


def _may_mark(lead: float, stderr: float) -> bool:
    """Whether a candidate leading the move played by `lead` (that standard error) in stage 1 may lead it by a
    mark: POSSIBLE_Z standard errors above the lead reach MARK_FLOOR."""
    return lead + POSSIBLE_Z * stderr >= MARK_FLOOR


def _behind(best: list[float], other: list[float]) -> float:
    """How many standard errors of their paired differences `other` trails `best` by (on their common samples)."""
    lead, stderr = paired(best[: len(other)], other[: len(best)])
    return lead / stderr if stderr > 0 else (math.inf if lead > 0 else 0.0)


def _lead(a: list[float], b: list[float]) -> tuple[float, float]:
    """The mean paired difference a - b on their common samples, and its spread (standard deviation)."""
    n = min(len(a), len(b))
    lead, stderr = paired(a[:n], b[:n])
    return lead, stderr * math.sqrt(n)


def _fresh_games(lead: float, spread: float, possible: bool, budget: Budget) -> int:
    """Fresh sampled games for the loss, from stage 1 alone: FRESH_MIN where no mark is possible; else enough for
    a standard error of a FRESH_Z-th of the lead stage 1 found, from FRESH_MARK to the budget's `samples`."""
    if not possible:
        return min(FRESH_MIN, budget.samples)
    wanted = math.ceil((FRESH_Z * spread / max(lead, MARK_FLOOR)) ** 2)
    return max(min(FRESH_MARK, budget.samples), min(budget.samples, wanted))


def sampler(decision: Decision, belief: Belief, rng: random.Random) -> Sampler:
    """Sampled games of the decision drawn with `rng`: each a whole game consistent with what the seat knows, every
    move asked about played in it with the same playout seed, then played out; the seat's final lead."""
    seen, seat = decision.view, decision.view.your_seat
    assert seat is not None

    def sample(moves: Sequence[mv.Move], n: int) -> list[list[float]]:
        games = []
        for _ in range(n):
            world = determinize(seen, belief, rng)  # the other seats' tickets drawn again each game (the strong
            # bot reuses a few draws, to keep their plans cached: the samples would not be independent)
            seed = rng.getrandbits(64)
            games.append([_playout(world.copy(), seat, move, random.Random(seed)) for move in moves])
        return games

    return sample


def _playout(state: State, seat: int, move: mv.Move, rng: random.Random) -> float:
    try:
        return play_out(state, seat, move, rng)
    except IllegalMove:
        return ILLEGAL


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def mark(loss: float, stderr: float) -> str | None:
    """The mark a loss earns: none unless it is clearly a loss (SIGNIFICANCE standard errors)."""
    if loss < SIGNIFICANCE * stderr:
        return None
    return next((name for threshold, name in MARKS if loss > threshold), None)


def decisions(events: Sequence[Event]) -> Iterator[tuple[Played, Decision]]:
    """Every move of the log with what its seat knew: its view, its legal moves and its redacted history."""
    seen: dict[int, list[Event]] = {}  # each seat's redacted log, made once (a decision reads a prefix of it)
    for played in played_moves(events):
        seat, state = played.seat, played.state
        if seat not in seen:
            seen[seat] = [redact(e, seat) for e in events]
        history = tuple(seen[seat][: played.at])
        yield played, Decision(view(state, seat), legal_moves(state, seat), random.Random(0), history)


def judging(events: Sequence[Event], budget: Budget, *, seed: str) -> Iterator[tuple[Judgement, int]]:
    """Judge every decision of a finished game's log (its first event is seq 1), one at a time: each judgement
    with the number of decisions in all (a caller may show its progress). Raises
    games.engine.played.NotReplayable, before the first, for a log that does not replay move by move."""
    found = list(decisions(events))
    for played, decision in found:
        rng = random.Random(f"{seed}:{played.at}")
        yield judge(decision, played.move, rng, budget, seq=played.at), len(found)


def analyse(events: Sequence[Event], budget: Budget, *, seed: str) -> GameAnalysis:
    """Every decision of a finished game's log judged (`judging`)."""
    return GameAnalysis.of(events, [judgement for judgement, _ in judging(events, budget, seed=seed)])


def final_leads(state: State) -> dict[int, int]:
    """Each seat's final total less the best other seat's (the reward the playouts estimate)."""
    tickets = [p.tickets for p in state.players]
    scores = final_score(state.board, len(state.players), state.route_owner, state.station_owner, tickets).scores
    totals = {s.seat: s.total for s in scores}
    return {seat: total - max(t for other, t in totals.items() if other != seat) for seat, total in totals.items()}
