"""Planted mistakes: does the analysis mark the bad moves planted in real games, and say what they cost?

    .venv/bin/python bench/planted.py [--games 8] [--players 2] [--levels greedy] [--kinds all] [--pairs 24]
                                      [--truth greedy|lite] [--recheck 64] [--samples 48 --single 8] [--jobs 2]
                                      [--seed 1] [--json PATH]

For each kind of bad move and each of `--games` seeds, a Europe game of `--levels` seats (one level, or one a
seat) is played with one seat's move replaced at one decision by the planted one; the game then goes on as its
seats play it. The kinds (`PLANTS`): keeping all three tickets drawn late (the seat draws tickets once it has 12
trains or fewer, and keeps them all), a useless far claim (the claimable route farthest from the seat's tickets
and routes), drawing blind when the seat's policy took a card it needs face up, wasting locomotives (the policy's
claim paid with the most locomotives the hand allows instead), a needless station.

1. The true cost of each plant, independent of the analysis: from the real state of the game at the plant (every
   hand and ticket as it was; the draw pile and the ticket pile shuffled again for each continuation, the future
   nobody knows), `--pairs` paired continuations, the same seat playing its policy's move or the planted one, then
   every seat playing the greedy bot (`--truth greedy`) or greedy-lite (`--truth lite`, faster) to the end: the mean
   difference of the seat's final lead, with its standard error.
2. The analysis of the whole planted game (bots/analysis.py at the budget): for each plant, whether it is marked and
   what loss it shows, against its true cost; by kind, the share marked, the share marked mistake or blunder, the
   mean shown loss and the mean true cost.
3. The marks on ordinary (unplanted) moves: each re-estimated from the deciding seat's own information, on
   `--recheck` sampled games drawn with seeds of its own (the comparator named against the move played, every
   seat playing greedy-lite): held (the re-estimate is over 4 points, by two standard errors), contradicted (its
   interval lies below 4 points: the move cost less than any mark says) and wrong in direction (below 0).
The same arguments give the same figures. Run it from another checkout (a copy of this file there) to measure
another analysis on the same plants.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots.analysis import Budget, analyse, decisions
from bots.policies.belief import determinize, track
from bots.policies.greedy import choose_move
from bots.policies.rollout import play_out
from bots.tournament import logged_game
from games.engine import legal_moves, step, view
from games.engine import moves as mv
from games.engine.errors import IllegalMove
from games.engine.events import Event
from games.engine.played import played_moves
from games.engine.scoring import final_totals
from games.engine.state import FINISHED, KEEP_TICKETS, TURN, State

FLOOR = 4.0  # the least mark's threshold (an inaccuracy: a loss over 4 points)
LATE_TRAINS = 12  # keep_three: the seat draws tickets once it has this many trains or fewer
FIRST_TURN, LAST_TURN = 12, 60  # the other kinds: planted at the first chance after a decision drawn in this range
MAX_DECISIONS = 3000


# The plants: (state, seat, legal moves, the policy's move) -> the bad move, or None where this kind does not apply


def far_claim(state: State, seat: int, moves: list[mv.Move], move: mv.Move) -> mv.Move | None:
    claims = [m for m in moves if isinstance(m, mv.ClaimRoute)]
    if isinstance(move, mv.ClaimRoute) or not claims:
        return None
    board = state.board
    mine = {c for t in state.players[seat].tickets for c in (board.tickets[t].a, board.tickets[t].b)}
    mine |= {c for r, s in state.route_owner.items() if s == seat for c in (board.routes[r].a, board.routes[r].b)}
    hops = _hops(state, mine)
    far = max(claims, key=lambda m: (min(hops.get(board.routes[m.route].a, 99), hops.get(board.routes[m.route].b, 99)),
                                     -board.routes[m.route].length, m.route))
    route = board.routes[far.route]
    return far if min(hops.get(route.a, 99), hops.get(route.b, 99)) >= 2 else None


def blind_draw(state: State, seat: int, moves: list[mv.Move], move: mv.Move) -> mv.Move | None:
    deck = mv.DrawCard("deck")
    if isinstance(move, mv.DrawCard) and move.source == "market" and move.index is not None and deck in moves:
        return deck if state.market[move.index] != "locomotive" else None
    return None


def waste_locomotive(state: State, seat: int, moves: list[mv.Move], move: mv.Move) -> mv.Move | None:
    if not isinstance(move, mv.ClaimRoute):
        return None
    same = [m for m in moves if isinstance(m, mv.ClaimRoute) and m.route == move.route]
    most = max(same, key=lambda m: (_locomotives(m.cards), str(m.cards)))
    return most if _locomotives(most.cards) > _locomotives(move.cards) else None


def needless_station(state: State, seat: int, moves: list[mv.Move], move: mv.Move) -> mv.Move | None:
    if isinstance(move, mv.BuildStation):
        return None
    board = state.board
    mine = {c for t in state.players[seat].tickets for c in (board.tickets[t].a, board.tickets[t].b)}
    stations = sorted((m for m in moves if isinstance(m, mv.BuildStation) and m.city not in mine),
                      key=lambda m: (sum(n for _, n in m.cards), m.city, str(m.cards)))
    return stations[0] if stations else None


def keep_three(state: State, seat: int, moves: list[mv.Move], move: mv.Move) -> mv.Move | None:
    """The measured plant is the keep; the draw before it only leads to it."""
    if state.phase == KEEP_TICKETS:
        keeps = [m for m in moves if isinstance(m, mv.KeepTickets)]
        return max(keeps, key=lambda m: len(m.tickets)) if keeps else None
    return None


PLANTS: dict[str, Callable[[State, int, list[mv.Move], mv.Move], mv.Move | None]] = {
    "keep_three_late": keep_three, "far_claim": far_claim, "blind_draw": blind_draw,
    "waste_locomotive": waste_locomotive, "needless_station": needless_station,
}


def _locomotives(cards: Sequence[tuple[str, int]]) -> int:
    return sum(n for card, n in cards if card == "locomotive")


def _hops(state: State, start: set[str]) -> dict[str, int]:
    """Each city's distance in routes from `start`."""
    near: dict[str, list[str]] = {}
    for route in state.board.routes.values():
        near.setdefault(route.a, []).append(route.b)
        near.setdefault(route.b, []).append(route.a)
    hops, frontier = dict.fromkeys(start, 0), list(start)
    while frontier:
        city = frontier.pop(0)
        for other in near.get(city, []):
            if other not in hops:
                hops[other] = hops[city] + 1
                frontier.append(other)
    return hops


# A planted game


@dataclass
class Plant:
    kind: str
    game: int
    seat: int
    decision: int  # the planted decision's index among the game's moves
    state: State
    planted: mv.Move
    alternative: mv.Move
    cost: float = 0.0
    cost_stderr: float = 0.0
    seq: int = 0


@dataclass
class Outcome:
    kind: str
    cost: float
    cost_stderr: float
    marked: str | None
    shown: float
    shown_stderr: float
    ordinary: list[dict[str, float | str | None]] = field(default_factory=list)
    decisions: int = 0
    cpu: float = 0.0


def planted_game(kind: str, number: int, *, levels: Sequence[str], seed: int) -> tuple[list[Event], Plant] | None:
    """The game of `levels` with its plant of `kind`, or None where the game gave it no chance."""
    rng = random.Random(f"{seed}:{kind}:{number}")
    seat, after = rng.randrange(len(levels)), rng.randint(FIRST_TURN, LAST_TURN)
    found: list[Plant] = []
    count = [0]
    plant = PLANTS[kind]

    def instead(state: State, who: int, moves: list[mv.Move], move: mv.Move) -> mv.Move:
        decision = count[0]
        count[0] += 1
        if who != seat or any(p.decision >= 0 for p in found):
            return move
        if kind == "keep_three_late" and not found:  # the way in: drawing tickets late (not measured)
            late = state.phase == TURN and state.players[who].trains <= LATE_TRAINS
            if late and mv.DrawTickets() in moves and not isinstance(move, mv.DrawTickets):
                found.append(Plant(kind, number, who, -1, state, mv.DrawTickets(), move))
                return mv.DrawTickets()
            return move
        if decision < after and kind != "keep_three_late":
            return move
        bad = plant(state, who, moves, move)
        if bad is None or bad == move:
            return move
        found.append(Plant(kind, number, who, decision, state.copy(), bad, move))
        return bad

    log = logged_game("europe", list(levels), seed * 100_000 + number, override=instead)
    measured = [p for p in found if p.decision >= 0]
    if not measured:
        return None
    planted = measured[0]
    planted.seq = list(played_moves(log))[planted.decision].at
    return log, planted


def true_cost(plant: Plant, pairs: int, truth: str, seed: str) -> tuple[float, float]:
    """The plant's cost: the alternative's final lead less the plant's, over paired continuations of the real
    state with the piles shuffled again (see the module docstring)."""
    diffs = []
    for k in range(pairs):
        shuffle = random.Random(f"{seed}:{k}")
        base = plant.state.copy()
        shuffle.shuffle(base.draw_pile)
        shuffle.shuffle(base.ticket_pile)
        play_seed = shuffle.getrandbits(64)
        leads = [_continue(base.copy(), plant.seat, move, random.Random(play_seed), truth)
                 for move in (plant.alternative, plant.planted)]
        diffs.append(leads[0] - leads[1])
    return _mean_stderr(diffs)


def _continue(state: State, seat: int, move: mv.Move, rng: random.Random, truth: str) -> float:
    if truth == "lite":
        return play_out(state, seat, move, rng)
    state, _ = step(state, seat, move, rng, in_place=True)
    for _ in range(MAX_DECISIONS):
        if state.phase == FINISHED:
            break
        decider = state.deciders()[0]
        moves = legal_moves(state, decider)
        state, _ = step(state, decider, choose_move(view(state, decider), moves), rng, in_place=True)
    totals = final_totals(state.board, state.player_count, state.route_owner, state.station_owner,
                          [p.tickets for p in state.players])
    return float(totals[seat] - max(t for i, t in enumerate(totals) if i != seat))


def recheck(log: list[Event], seq: int, best: mv.Move, played: mv.Move, samples: int, seed: str) -> tuple[float, float]:
    """An ordinary mark re-estimated: `best` against `played` from the seat's information, on sampled games of
    seeds of its own (every seat playing greedy-lite)."""
    decision = next(d for p, d in decisions(log) if p.at == seq and p.move == played)
    seat = decision.view.your_seat
    assert seat is not None
    belief = track(seat, decision.history)
    rng = random.Random(seed)
    diffs = []
    for _ in range(samples):
        world = determinize(decision.view, belief, rng)
        play_seed = rng.getrandbits(64)
        a, b = (_safe(world.copy(), seat, m, random.Random(play_seed)) for m in (best, played))
        diffs.append(a - b)
    return _mean_stderr(diffs)


def _safe(state: State, seat: int, move: mv.Move, rng: random.Random) -> float:
    try:
        return play_out(state, seat, move, rng)
    except IllegalMove:
        return -1000.0


def _mean_stderr(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    return mean, (statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0)


def measured(kind: str, number: int, *, levels: Sequence[str], seed: int, budget: Budget, pairs: int, truth: str,
             rechecks: int) -> Outcome | None:
    made = planted_game(kind, number, levels=levels, seed=seed)
    if made is None:
        return None
    log, plant = made
    cost, cost_se = true_cost(plant, pairs, truth, f"truth:{seed}:{kind}:{number}")
    cpu = time.process_time()
    result = analyse(log, budget, seed=f"planted:{seed}:{kind}:{number}")
    cpu = time.process_time() - cpu
    judged = next(j for j in result.judgements if j.seq == plant.seq and j.seat == plant.seat)
    outcome = Outcome(kind, cost, cost_se, judged.mark, judged.loss, judged.stderr, decisions=len(result.judgements),
                      cpu=cpu)
    planted_seqs = {plant.seq} | ({_draw_seq(log, plant)} if kind == "keep_three_late" else set())
    for j in result.judgements:
        if j.mark and j.seq not in planted_seqs:
            loss, stderr = recheck(log, j.seq, j.best, j.played, rechecks, f"recheck:{seed}:{kind}:{number}:{j.seq}")
            outcome.ordinary.append({"shown": j.loss, "mark": j.mark, "recheck": loss, "recheck_stderr": stderr})
    return outcome


def _draw_seq(log: list[Event], plant: Plant) -> int:
    """The keep_three plant's way in: the seat's ticket draw just before the keep."""
    found = [p.at for p in played_moves(log) if p.seat == plant.seat and isinstance(p.move, mv.DrawTickets)
             and p.at < plant.seq]
    return found[-1] if found else -1


def report(outcomes: list[Outcome]) -> dict[str, object]:
    kinds: dict[str, object] = {}
    for kind in PLANTS:
        mine = [o for o in outcomes if o.kind == kind]
        if not mine:
            continue
        big = [o for o in mine if o.cost > 2 * FLOOR]
        kinds[kind] = {
            "plants": len(mine), "marked": _share(mine, lambda o: o.marked is not None),
            "mistake_or_blunder": _share(mine, lambda o: o.marked in ("mistake", "blunder")),
            "mean_true_cost": round(statistics.fmean(o.cost for o in mine), 2),
            "mean_shown_loss": round(statistics.fmean(o.shown for o in mine), 2),
            "marked_shown_loss": _mean([o.shown for o in mine if o.marked]),
            "marked_true_cost": _mean([o.cost for o in mine if o.marked]),
            "costly_plants": len(big), "costly_marked": _share(big, lambda o: o.marked is not None),
        }
    ordinary = [m for o in outcomes for m in o.ordinary]
    checks = {
        "marks": len(ordinary),
        "held": _share(ordinary, lambda m: _f(m["recheck"]) - 2 * _f(m["recheck_stderr"]) > FLOOR),
        "contradicted": _share(ordinary, lambda m: _f(m["recheck"]) + 2 * _f(m["recheck_stderr"]) < FLOOR),
        "wrong_direction": _share(ordinary, lambda m: _f(m["recheck"]) + 2 * _f(m["recheck_stderr"]) < 0),
        "mean_shown": _mean([_f(m["shown"]) for m in ordinary]), "mean_recheck": _mean([_f(m["recheck"]) for m in ordinary]),
    }
    decisions_ = sum(o.decisions for o in outcomes)
    return {"kinds": kinds, "ordinary_marks": checks, "decisions": decisions_,
            "ordinary_marked_share": round(len(ordinary) / max(1, decisions_ - len(outcomes)), 4),
            "analysis_cpu_per_game": round(statistics.fmean(o.cpu for o in outcomes), 2) if outcomes else 0.0}


def _f(value: float | str | None) -> float:
    assert isinstance(value, float | int)
    return float(value)


def _share(items: Sequence[object], test: Callable) -> float | None:  # type: ignore[type-arg]
    return round(sum(1 for i in items if test(i)) / len(items), 3) if items else None


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 2) if values else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--levels", default="greedy")
    parser.add_argument("--kinds", default="all")
    parser.add_argument("--pairs", type=int, default=24)
    parser.add_argument("--truth", choices=["greedy", "lite"], default="greedy")
    parser.add_argument("--recheck", type=int, default=64)
    parser.add_argument("--samples", type=int, default=Budget().samples)
    parser.add_argument("--single", type=int, default=Budget().single)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    levels = args.levels.split(",")
    levels = levels * args.players if len(levels) == 1 else levels
    kinds = list(PLANTS) if args.kinds == "all" else args.kinds.split(",")
    budget = Budget(args.samples, args.single)
    jobs = [(kind, number) for kind in kinds for number in range(args.games)]
    with multiprocessing.Pool(args.jobs) as pool:
        found = pool.starmap(_measured, [(kind, n, levels, args.seed, budget, args.pairs, args.truth, args.recheck)
                                         for kind, n in jobs])
    outcomes = [o for o in found if o is not None]
    result = report(outcomes)
    print(f"{len(outcomes)} planted games ({', '.join(levels)} seats, Europe), truth by {args.truth} over {args.pairs} "
          f"paired continuations, analysis at samples={budget.samples} single={budget.single}:")
    for kind, row in result["kinds"].items():  # type: ignore[attr-defined]
        print(f"  {kind:17} {row['plants']:3} plants: marked {row['marked']}, mistake/blunder "
              f"{row['mistake_or_blunder']}; true cost {row['mean_true_cost']}, shown {row['mean_shown_loss']}; "
              f"marked ones shown {row['marked_shown_loss']} for {row['marked_true_cost']}; costly (> 8) "
              f"{row['costly_plants']}, marked {row['costly_marked']}")
    o = result["ordinary_marks"]
    print(f"  ordinary marks: {o['marks']} ({100 * result['ordinary_marked_share']:.2f} % of ordinary decisions), "  # type: ignore[index]
          f"re-estimated on {args.recheck}: held {o['held']}, contradicted {o['contradicted']}, wrong in direction "  # type: ignore[index]
          f"{o['wrong_direction']}; shown {o['mean_shown']} vs re-estimate {o['mean_recheck']}")  # type: ignore[index]
    print(f"  analysis CPU a game: {result['analysis_cpu_per_game']} s")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


def _measured(kind: str, number: int, levels: list[str], seed: int, budget: Budget, pairs: int, truth: str,
              rechecks: int) -> Outcome | None:
    return measured(kind, number, levels=levels, seed=seed, budget=budget, pairs=pairs, truth=truth, rechecks=rechecks)


if __name__ == "__main__":
    sys.exit(main())
