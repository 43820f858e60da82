"""Bot tournaments on the engine alone (no Django): whole games between policies, and how each policy fared.

    python -m bots.tournament --map europe --players 4 --games 200 --bots greedy,greedy,random,random \
        --seed 1 [--jobs 2] [--json] [--strong-seconds 1.5 | --strong-iterations N] [--log games.jsonl]
    python -m bots.tournament --summarise games.jsonl [--json]

Game i seats `--bots` shifted by i places, so every policy plays from every seat. Each game draws its shuffles
and its bots' choices from generators seeded by (`--seed`, i), so a run is the same whatever `--jobs` says.
Scores are `final_score` of the finished board. Per policy (all its seats together) it prints the share of games
it won (a game won by k tied seats gives each of them 1/k), a 95% Wilson interval, the mean score and ticket
points per seat, and the policy's think time per move. A game still running after `MAX_DECISIONS` decisions is
aborted: a draw shared by every seat, left out of the score means. A progress bar goes to stderr; with `--json`
the last line on stdout is one JSON object.

Each decision a policy gets the seat's view, its legal moves and the game's events so far redacted for the seat
(`Decision`). The strong bot thinks `--strong-seconds` a decision (default: TTR_STRONG_SECONDS, else 1.5), or
exactly `--strong-iterations` sampled games (then a run is reproducible, think times aside).

`--log` writes each game's result as one JSON line as it finishes (games end in order): two versions of a bot
compare deal by deal on the same seed, and a run stopped early is summarised from its log with `--summarise`
(its first games: the table of the games played so far).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial

from bots.budget import strong_seconds
from bots.policies import NEEDS_HISTORY, POLICIES, Decision, policy_for
from games.engine import (
    Event,
    Move,
    State,
    begin,
    evolve_in_place,
    final_score,
    legal_moves,
    redact,
    score_ended,
    step,
    view,
)
from games.engine.board import MAP_NAMES

MAX_DECISIONS = 5000  # far above any real game (a random 5-player game takes about 1,000)
Z95 = 1.959964


@dataclass
class GameResult:
    number: int
    seats: tuple[str, ...]  # the policy playing each seat
    aborted: bool
    scores: tuple[int, ...] = ()
    ticket_points: tuple[int, ...] = ()
    shares: tuple[float, ...] = ()  # each seat's share of the win
    think_ms: dict[str, list[float]] = field(default_factory=dict)  # per policy, one entry per decision


def seating(bots: Sequence[str], number: int) -> tuple[str, ...]:
    """Game `number`'s seats: `bots` shifted by `number` places."""
    n = len(bots)
    return tuple(bots[(seat + number) % n] for seat in range(n))


@dataclass(frozen=True)
class Budget:
    """The strong bot's thinking budget: seconds a decision, or a fixed number of sampled games."""

    seconds: float = 1.5
    iterations: int | None = None


def play_game(map_name: str, bots: Sequence[str], seed: int, number: int, budget: Budget | None = None) -> GameResult:
    seats = seating(bots, number)
    n = len(seats)
    engine_rng = random.Random(f"{seed}:{number}:engine")
    bot_rngs = [random.Random(f"{seed}:{number}:seat{seat}") for seat in range(n)]
    policies = [policy_for(name) for name in seats]
    think: dict[str, list[float]] = {name: [] for name in seats}
    budget = budget or Budget()
    state, opening = begin(map_name, n, engine_rng)
    histories = [[redact(e, seat) for e in opening] for seat in range(n)]  # what each seat has seen
    for _ in range(MAX_DECISIONS):
        if state.finished:
            break
        seat = state.deciders()[0]  # setup tickets: the seats choose at once, so any order will do
        decision = Decision(view(state, seat), legal_moves(state, seat), bot_rngs[seat], tuple(histories[seat]),
                            budget.seconds, budget.iterations)
        started = time.perf_counter()
        move = policies[seat](decision).move
        think[seats[seat]].append((time.perf_counter() - started) * 1000)
        state, events = step(state, seat, move, engine_rng, in_place=True)
        for viewer, history in enumerate(histories):
            history.extend(redact(e, viewer) for e in events)
    if not state.finished:
        return GameResult(number, seats, aborted=True, shares=(1 / n,) * n, think_ms=think)
    tickets = [p.tickets for p in state.players]
    result = final_score(state.board, n, state.route_owner, state.station_owner, tickets)
    winners = result.winner_seats
    return GameResult(
        number,
        seats,
        aborted=False,
        scores=tuple(s.total for s in result.scores),
        ticket_points=tuple(s.ticket_points for s in result.scores),
        shares=tuple(1 / len(winners) if seat in winners else 0.0 for seat in range(n)),
        think_ms=think,
    )


# (state, seat, its legal moves, the policy's move) -> the move played instead (tests plant mistakes with it)
Override = Callable[[State, int, list[Move], Move], Move]


def logged_game(map_name: str, bots: Sequence[str], seed: int, budget: Budget | None = None,
                override: Override | None = None) -> list[Event]:
    """One whole game of `bots` (by seat) and its complete log, scored: what a finished game's analysis reads."""
    n = len(bots)
    engine_rng = random.Random(f"{seed}:engine")
    bot_rngs = [random.Random(f"{seed}:seat{seat}") for seat in range(n)]
    budget = budget or Budget()
    state, opening = begin(map_name, n, engine_rng)
    log: list[Event] = list(opening)
    for _ in range(MAX_DECISIONS):
        if state.finished:
            break
        seat = state.deciders()[0]
        moves = legal_moves(state, seat)
        history = tuple(redact(e, seat) for e in log) if bots[seat] in NEEDS_HISTORY else ()
        decision = Decision(view(state, seat), moves, bot_rngs[seat], history, budget.seconds, budget.iterations)
        move = policy_for(bots[seat])(decision).move
        if override is not None:
            move = override(state, seat, moves, move)
        state, events = step(state, seat, move, engine_rng, in_place=True)
        log.extend(events)
    if not state.finished:
        raise RuntimeError(f"the game did not end in {MAX_DECISIONS} decisions")
    scored = score_ended(state)
    evolve_in_place(state, scored)
    return [*log, scored]


def play_games(
    map_name: str, bots: Sequence[str], seed: int, games: int, jobs: int, budget: Budget | None = None
) -> Iterator[GameResult]:
    """The games in order, played by `jobs` processes."""
    play = partial(_play_numbered, map_name, tuple(bots), seed, budget)
    if jobs <= 1:
        yield from map(play, range(games))
        return
    with multiprocessing.get_context().Pool(jobs) as pool:
        yield from pool.imap(play, range(games), chunksize=max(1, min(8, games // (jobs * 8))))


def _play_numbered(map_name: str, bots: Sequence[str], seed: int, budget: Budget | None, number: int) -> GameResult:
    return play_game(map_name, bots, seed, number, budget)


def with_progress(results: Iterable[GameResult], games: int, out: object = sys.stderr) -> Iterator[GameResult]:
    """Pass the results through, drawing a plain-text progress bar on stderr."""
    started = time.perf_counter()
    for done, result in enumerate(results, 1):
        bar = "#" * (30 * done // games)
        rate = done / max(time.perf_counter() - started, 1e-9)
        print(f"\r[{bar:<30}] {done}/{games} games, {rate:.1f}/s", end="", file=sys.stderr, flush=True)
        yield result
    print(file=sys.stderr)


def wilson(p: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion `p` observed over `n` trials."""
    if n == 0:
        return 0.0, 1.0
    centre = p + Z95**2 / (2 * n)
    spread = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n))
    scale = 1 + Z95**2 / n
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))]


def summarise(results: Sequence[GameResult]) -> dict[str, object]:
    """Per policy: games won, interval, means and think times (see the module docstring)."""
    policies = sorted({name for r in results for name in r.seats})
    return {
        "games": len(results),
        "aborted": sum(r.aborted for r in results),
        "results": {name: _policy_summary(name, results) for name in policies},
    }


def _policy_summary(name: str, results: Sequence[GameResult]) -> dict[str, object]:
    games = len(results)
    won = sum(share for r in results for seat, share in enumerate(r.shares) if r.seats[seat] == name)
    seat_games = sum(r.seats.count(name) for r in results)
    scored = [(r.scores[s], r.ticket_points[s]) for r in results if not r.aborted for s in range(len(r.seats))
              if r.seats[s] == name]
    think = sorted(ms for r in results for ms in r.think_ms.get(name, ()))
    win_rate = won / games if games else 0.0
    lo, hi = wilson(win_rate, games)
    return {
        "win_rate": round(win_rate, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "seat_win_rate": round(won / seat_games, 4) if seat_games else 0.0,
        "seats": seat_games,
        "mean_score": round(sum(s for s, _ in scored) / len(scored), 2) if scored else None,
        "mean_ticket_points": round(sum(t for _, t in scored) / len(scored), 2) if scored else None,
        "moves": len(think),
        "think_ms": {
            "mean": round(sum(think) / len(think), 3) if think else 0.0,
            "p99": round(percentile(think, 0.99), 3),
            "max": round(think[-1], 3) if think else 0.0,
        },
    }


def table(summary: dict[str, object], title: str) -> str:
    """The summary as a readable table."""
    results = summary["results"]
    assert isinstance(results, dict)
    head = f"{'policy':<10}{'seats':>7}{'win rate':>10}{'95% CI':>18}{'score':>9}{'tickets':>9}{'think ms mean/p99/max':>26}"
    lines = [title, head]
    for name, r in results.items():
        ci = f"[{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
        think = r["think_ms"]
        timing = f"{think['mean']:.2f} / {think['p99']:.2f} / {think['max']:.2f}"
        lines.append(
            f"{name:<10}{r['seats']:>7}{r['win_rate']:>10.3f}{ci:>18}{_number(r['mean_score']):>9}"
            f"{_number(r['mean_ticket_points']):>9}  {timing:>24}"
        )
    return "\n".join(lines)


def _number(value: object) -> str:
    return "-" if value is None else f"{value:.1f}"


def to_json(result: GameResult) -> str:
    """One game's result as a JSON line (`--log`)."""
    return json.dumps({"number": result.number, "seats": result.seats, "aborted": result.aborted,
                       "scores": result.scores, "ticket_points": result.ticket_points, "shares": result.shares,
                       "think_ms": result.think_ms})


def from_json(line: str) -> GameResult:
    d = json.loads(line)
    return GameResult(d["number"], tuple(d["seats"]), d["aborted"], tuple(d["scores"]), tuple(d["ticket_points"]),
                      tuple(d["shares"]), d["think_ms"])


def logged(results: Iterable[GameResult], path: str) -> Iterator[GameResult]:
    """Pass the results through, writing each to `path` as one JSON line once it is played."""
    with open(path, "w", encoding="utf-8") as out:
        for result in results:
            print(to_json(result), file=out, flush=True)
            yield result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map", choices=MAP_NAMES, default="europe")
    parser.add_argument("--players", type=int, choices=range(2, 6), default=2)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--bots", default="greedy,random", help="one policy per seat, comma-separated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="processes to play games in")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--strong-seconds", type=float, default=None,
                        help="the strong bot's time a decision (default: TTR_STRONG_SECONDS, else 1.5)")
    parser.add_argument("--strong-iterations", type=int, default=None,
                        help="instead of a time: this many sampled games a decision")
    parser.add_argument("--log", default=None, help="write each game's result to this file as a JSON line")
    parser.add_argument("--summarise", default=None, help="print the table of a --log file's games instead")
    args = parser.parse_args(argv)
    if args.summarise is not None:
        with open(args.summarise, encoding="utf-8") as lines:
            results = [from_json(line) for line in lines if line.strip()]
        summary = summarise(results)
        print(table(summary, f"{args.summarise}: {len(results)} games ({summary['aborted']} aborted)"))
        if args.json:
            print(json.dumps(summary))
        return 0
    budget = Budget(args.strong_seconds if args.strong_seconds is not None else strong_seconds(),
                    args.strong_iterations)
    bots = args.bots.split(",")
    if len(bots) != args.players or any(b not in POLICIES for b in bots):
        parser.error(f"--bots needs {args.players} names among {', '.join(sorted(POLICIES))}")
    games = play_games(args.map, bots, args.seed, args.games, args.jobs, budget)
    if args.log is not None:
        games = logged(games, args.log)
    results = list(with_progress(games, args.games))
    summary = summarise(results)
    title = (
        f"{args.map}, {args.players} players, {args.games} games ({summary['aborted']} aborted), "
        f"seed {args.seed}, bots {args.bots}"
    )
    if "strong" in bots:
        title += f", strong {budget.iterations} samples" if budget.iterations else f", strong {budget.seconds} s"
    print(table(summary, title))
    if args.json:
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
