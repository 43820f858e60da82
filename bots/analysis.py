"""Post-game analysis: every decision of a finished game judged by the strong bot's search, from the deciding seat's
own information only.

For each move of the log (games/engine/played.py finds them), the seat's view, its legal moves and the game's events
so far as that seat saw them are all the search is given, exactly what the strong bot is given when it plays
(bots/policies: a policy never sees the true hidden cards). The candidates are the move played and the ones the
strong bot considers there (the greedy bot's move, the ticket choices it values most, the last turns' claims, ...);
each is played in the same sampled games, then the whole game to its end, every seat playing greedy-lite, and its
reward is the seat's final lead over the best other seat. A decision whose move played is estimated worse than the
best by more than a threshold, and by at least SIGNIFICANCE standard errors of the paired differences, is marked.

A fixed number of sampled games a decision (`Budget`) and a random generator seeded by the game and the decision
make the analysis deterministic: the same log always gets the same analysis. Pure: the engine and the policies only.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from games.engine import legal_moves, redact, replay, view
from games.engine import moves as mv
from games.engine.events import Event
from games.engine.played import Played, played_moves
from games.engine.scoring import final_score
from games.engine.state import State

from .policies.belief import track
from .policies.decision import Decision
from .policies.greedy import choose_move
from .policies.reasons import explain
from .policies.strong import candidates, paired, search

VERSION = "strong-search 1"  # the analysing bot: its search and its playouts (say so when they change)
SIGNIFICANCE = 2.0  # a mark needs the loss at least this many standard errors from zero
MARKS = ((15.0, "blunder"), (8.0, "mistake"), (4.0, "inaccuracy"))  # a loss over this many points: that mark


@dataclass(frozen=True, slots=True)
class Budget:
    """Sampled games a decision: `samples` where the search compares candidates, `single` where the move played
    is the only one it considers (its lead alone, for the evaluation graph)."""

    samples: int = 48
    single: int = 8

    def as_dict(self) -> dict[str, int]:
        return {"samples": self.samples, "single": self.single}


@dataclass(frozen=True, slots=True)
class Judgement:
    """One decision judged: `lead` is the estimated final lead after the move played; `loss` how many points the
    best candidate is estimated to gain over it (0 when the move played is the best), with its standard error."""

    seq: int  # the position decided on: the log's seq before the move's first event
    seat: int
    played: mv.Move
    best: mv.Move
    lead: float
    loss: float
    stderr: float
    mark: str | None
    reason: str  # why the best move, in the bot's words ("" when the move played is the best)
    samples: int


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    judgements: tuple[Judgement, ...]
    final_leads: dict[int, int]  # each seat's true final lead, for the graph's last point

    @classmethod
    def of(cls, events: Sequence[Event], judgements: Sequence[Judgement]) -> GameAnalysis:
        """The analysis of the finished game `events` whose decisions were judged `judgements`."""
        return cls(tuple(judgements), final_leads(replay(events)))


def judge(decision: Decision, played: mv.Move, rng: random.Random, budget: Budget, seq: int = 0) -> Judgement:
    """The move played against the candidates the strong bot considers, in the same sampled games."""
    seen = decision.view
    seat = seen.your_seat
    if seat is None:
        raise ValueError("a spectator's view decides nothing")
    greedy = choose_move(seen, decision.moves)
    ordered = [played, *(m for m in candidates(seen, decision.moves, greedy) if m != played)]
    samples = budget.samples if len(ordered) > 1 else budget.single
    fixed = Decision(seen, decision.moves, decision.rng, decision.history, iterations=samples)
    tallies = search(fixed, track(seat, decision.history), ordered, rng)
    mine = tallies[0]
    best = max((t for t in tallies if t.alive), key=lambda t: t.mean)
    if best is mine or not mine.rewards:
        return Judgement(seq, seat, played, played, mine.mean, 0.0, 0.0, None, "", len(mine.rewards))
    loss, stderr = paired(best.rewards, mine.rewards)
    return Judgement(
        seq, seat, played, best.move, mine.mean, max(loss, 0.0), stderr, mark(loss, stderr),
        explain(seen, best.move), len(mine.rewards),
    )


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


