"""A tournament's points, standings and pairings (games/tournaments/standings.py, seating.py, pairing.py), rule by rule,
then over random tournaments: 2 to 40 entrants, tables of 2 to 5, smaller tables and bots allowed or not, and a
history of earlier rounds made by pairing them with the functions under test and drawing each table's result.

The properties: a Swiss round seats every person still in exactly once or gives them a bye (T-SWISS-1); it repeats a
meeting only when every seating with the same tables would (T-PAIR-3, against a brute force up to 10 people); it is a
pure function of its inputs and the seed, which orders seats only (T-PAIR-4); an arena never seats two people who
were at each other's previous table (T-ARENA-1); the standings' points add up exactly (T-PTS-1, T-PTS-2) and rank
everyone with no tie (T-PTS-3); and the audit's check (audit.py) passes a log made of pure pairings and finds one
seat changed in one round. `TTR_PROPERTY_EXAMPLES=2000` runs each property on that many random cases.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb, factorial, prod
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games.engine.hash_chain import GENESIS_HASH
from games.engine.seeds import Seeds, Stream
from games.tournaments import audit, seating
from games.tournaments.pairing import Pairing, Settings, Waiter, pair_arena, pair_swiss
from games.tournaments.seating import Plan, table_plan
from games.tournaments.standings import (
    BYE_POINTS,
    Entrant,
    Result,
    Standing,
    draw_key,
    game_points,
    is_bot,
    meetings,
    standings,
)

SEED = bytes(range(32))
BOT = "bot:greedy"
EXAMPLES = max(1, int(os.environ.get("TTR_PROPERTY_EXAMPLES", "60")))  # as tests/engine/test_properties.py: more on demand
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# Building tournaments.


def places_of(scores: Sequence[int]) -> tuple[int, ...]:
    """Places as a game gives them: 1 + how many scored more, so equal scores share a place."""
    return tuple(1 + sum(1 for other in scores if other > mine) for mine in scores)


def result(game: str, seats: Sequence[str], scores: Sequence[int], number: int = 1) -> Result:
    return Result(game, number, tuple(seats), places_of(scores), tuple(scores))


def entrants(n: int) -> list[Entrant]:
    return [Entrant(str(100 + k), float(k % 7)) for k in range(n)]


def people_of(table: Iterable[str]) -> list[str]:
    return [name for name in table if not is_bot(name)]


def repeats_of(pairing: Pairing, met: seating.Met) -> int:
    return sum(
        met.get(frozenset(pair), 0) for table in pairing.tables for pair in combinations(people_of(table), 2)
    )


@dataclass
class Tournament:
    """A Swiss after some rounds: everything the next round's pairing takes."""

    settings: Settings
    entrants: list[Entrant]
    results: list[Result] = field(default_factory=list)
    byes: dict[str, int] = field(default_factory=dict)
    rounds: int = 0

    def table(self, seed: bytes = SEED) -> list[Standing]:
        return standings(self.entrants, self.results, self.byes, seed)

    def pair(self, seed: bytes = SEED) -> Pairing:
        return pair_swiss(self.table(seed), meetings(self.results), self.settings, Stream(seed, f"round:{self.rounds + 1}"))

    def play(self, drawn: Pairing, rng: random.Random) -> None:
        """Record `drawn` as the next round, each table's scores drawn from 0..3 (ties are common)."""
        self.rounds += 1
        for name in drawn.byes:
            self.byes[name] = self.byes.get(name, 0) + 1
        for k, seats in enumerate(drawn.tables):
            self.results.append(result(f"r{self.rounds}t{k}", seats, [rng.randint(0, 3) for _ in seats], self.rounds))

    def withdraw(self, rng: random.Random, chance: float) -> None:
        self.entrants = [replace(e, withdrawn=e.withdrawn or rng.random() < chance) for e in self.entrants]

    @property
    def still_in(self) -> list[str]:
        return [e.player for e in self.entrants if not e.withdrawn]


@st.composite
def tournaments(draw: st.DrawFn, most: int = 40, withdrawals: bool = True) -> Tournament:
    n = draw(st.integers(2, most), label="entrants")
    settings_ = Settings(draw(st.integers(2, 5)), draw(st.booleans()), draw(st.booleans()))
    earlier = draw(st.integers(0, 4), label="earlier rounds")
    chance = draw(st.sampled_from([0.0, 0.1, 0.3])) if withdrawals else 0.0
    rng = random.Random(draw(st.integers(0, 2**32), label="results seed"))
    tournament = Tournament(settings_, entrants(n))
    for _ in range(earlier):
        tournament.play(tournament.pair(), rng)
        tournament.withdraw(rng, chance)
    return tournament


# T-PTS-1: points by place.


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_t_pts_1_a_win_is_one_point_and_last_place_none_whatever_the_tables_size(size: int) -> None:
    places = list(range(1, size + 1))
    assert game_points(places, 0) == 1 and game_points(places, size - 1) == 0
    assert sum(game_points(places, seat) for seat in range(size)) == Fraction(size, 2)


def test_t_pts_1_a_place_between_is_the_share_of_seats_beaten_and_ties_share_half() -> None:
    assert [game_points([1, 2, 3, 4, 5], seat) for seat in range(5)] == [Fraction(k, 4) for k in (4, 3, 2, 1, 0)]
    assert [game_points([1, 1, 3, 4], seat) for seat in range(4)] == [Fraction(5, 6)] * 2 + [Fraction(1, 3), 0]
    assert [game_points([1, 1], seat) for seat in range(2)] == [Fraction(1, 2)] * 2
    assert [game_points([1, 2, 2], seat) for seat in range(3)] == [1, Fraction(1, 4), Fraction(1, 4)]


def test_t_pts_1_a_bot_is_a_seat_to_finish_ahead_of_but_is_never_ranked() -> None:
    games = [result("g1", ["a", BOT, "b"], [30, 20, 10]), result("g2", ["a", "b"], [50, 40])]
    rows = standings(entrants_named("a", "b"), games, {}, SEED)
    assert [(r.player, r.points, r.games) for r in rows] == [("a", Fraction(2), 2), ("b", Fraction(0), 2)]
    assert [r.opponents_points for r in rows] == [0, 4]  # b met a twice; a met b (no points), the bot not counted


def test_t_pts_1_a_win_at_a_table_of_five_weighs_what_a_win_at_a_table_of_two_does() -> None:
    games = [result("g1", ["a", "x", "y", "z", "w"], [5, 4, 3, 2, 1]), result("g2", ["b", "c"], [9, 1])]
    rows = {r.player: r.points for r in standings(entrants_named(*"abcxyzw"), games, {}, SEED)}
    assert rows["a"] == rows["b"] == 1 and rows["c"] == rows["w"] == 0 and rows["x"] == Fraction(3, 4)


def entrants_named(*names: str) -> list[Entrant]:
    return [Entrant(name, 0.0) for name in names]


# T-PTS-2: the bye.


def test_t_pts_2_a_bye_is_worth_a_win_and_no_game() -> None:
    rows = {r.player: r for r in standings(entrants_named("a", "b"), [], {"a": 1}, SEED)}
    assert BYE_POINTS == 1 and rows["a"].points == 1 and rows["a"].games == 0 and rows["a"].byes == 1


def test_t_pts_2_the_bye_goes_to_the_lowest_without_one_and_never_twice_while_another_has_none() -> None:
    rng = random.Random(5)
    tournament = Tournament(Settings(2, smaller_tables=False, bots_fill=False), entrants(5))
    byes = []
    for _ in range(5):
        table = tournament.table()
        drawn = tournament.pair()
        assert len(drawn.byes) == 1 and len(drawn.tables) == 2
        lowest_without = [r.player for r in sorted_for_pairing(table) if tournament.byes.get(r.player, 0) == 0][-1]
        assert drawn.byes == (lowest_without,)
        byes.append(drawn.byes[0])
        tournament.play(drawn, rng)
    assert sorted(byes) == sorted(e.player for e in tournament.entrants)  # five rounds, five different byes


def sorted_for_pairing(rows: Sequence[Standing]) -> list[Standing]:
    return sorted(rows, key=lambda r: (-r.points, -r.opponents_points, -r.score_total, -r.rating, -r.draw))


# T-PTS-3: tie-breaks.


def test_t_pts_3_equal_points_are_ranked_by_the_points_of_those_met_then_game_scores_then_the_seeds_draw() -> None:
    # a and c each win once; a beat b, who then beat d twice (b: 2 points); c beat d (0 points).
    games = [
        result("g1", ["a", "b"], [10, 5]), result("g2", ["c", "d"], [10, 5]),
        result("g3", ["b", "d"], [10, 5]), result("g4", ["b", "d"], [10, 5]),
    ]
    rows = standings(entrants_named("a", "b", "c", "d"), games, {}, SEED)
    by = {r.player: r for r in rows}
    assert by["a"].points == by["c"].points == 1 and by["a"].opponents_points == 2 and by["c"].opponents_points == 0
    assert [r.player for r in rows].index("a") < [r.player for r in rows].index("c")
    # Same points, same opponents' points: the higher total of game scores first.
    level = [result("g1", ["a", "b"], [80, 1]), result("g2", ["c", "d"], [90, 1])]
    assert [r.player for r in standings(entrants_named(*"abcd"), level, {}, SEED)][:2] == ["c", "a"]
    # Everything equal: the seed's draw decides, and another seed may decide otherwise.
    for seed in (SEED, bytes(32), b"\x07" * 32):
        rows = standings(entrants_named("a", "b"), [], {}, seed)
        expected = sorted("ab", key=lambda name: -draw_key(seed, name))
        assert [r.player for r in rows] == expected and [r.rank for r in rows] == [1, 2]


# T-PTS-4: withdrawn people.


def test_t_pts_4_a_withdrawn_person_keeps_points_and_place_and_is_paired_no_more() -> None:
    people = [Entrant("a", 0.0, withdrawn=True), *entrants_named("b", "c")]
    rows = standings(people, [result("g1", ["a", "b"], [9, 1])], {}, SEED)
    assert (rows[0].player, rows[0].points, rows[0].withdrawn) == ("a", Fraction(1), True)
    drawn = pair_swiss(rows, {}, Settings(2, False, False), Stream(SEED, "round:2"))
    assert sorted(people_of(drawn.tables[0])) == ["b", "c"] and drawn.byes == ()


# T-PAIR-1: table plans.


@pytest.mark.parametrize(
    ("n", "size", "smaller", "bots", "plan"),
    [
        (37, 4, True, False, Plan((4,) * 7 + (3,) * 3, (0,) * 10, 0)),
        (37, 4, True, True, Plan((4,) * 7 + (3,) * 3, (0,) * 10, 0)),
        (37, 4, False, True, Plan((4,) * 9 + (1,), (0,) * 9 + (3,), 0)),
        (37, 4, False, False, Plan((4,) * 9, (0,) * 9, 1)),
        (5, 2, False, True, Plan((2, 2, 1), (0, 0, 1), 0)),
        (5, 2, False, False, Plan((2, 2), (0, 0), 1)),
        (5, 2, True, False, Plan((2, 2), (0, 0), 1)),  # no smaller table than two: a bye
        (11, 5, True, False, Plan((4, 4, 3), (0, 0, 0), 0)),
        (7, 3, False, True, Plan((3, 3, 1), (0, 0, 2), 0)),
        (12, 4, False, False, Plan((4, 4, 4), (0, 0, 0), 0)),
        (1, 3, True, True, Plan((1,), (2,), 0)),
        (1, 3, True, False, Plan((), (), 1)),
        (0, 4, True, True, Plan((), (), 0)),
    ],
)
def test_t_pair_1_table_plans(n: int, size: int, smaller: bool, bots: bool, plan: Plan) -> None:
    assert table_plan(n, size, smaller_tables=smaller, bots_fill=bots) == plan


@pytest.mark.parametrize("smaller", [True, False])
@pytest.mark.parametrize("bots", [True, False])
@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_t_pair_1_every_person_is_placed_once_and_no_table_is_of_one_seat(size: int, bots: bool, smaller: bool) -> None:
    for n in range(0, 80):
        plan = table_plan(n, size, smaller_tables=smaller, bots_fill=bots)
        assert sum(plan.sizes) + plan.byes == n and len(plan.sizes) == len(plan.bots)
        assert list(plan.sizes) == sorted(plan.sizes, reverse=True)
        for people, added in zip(plan.sizes, plan.bots, strict=True):
            assert people >= 1 and people + added >= 2 and people + added <= size
            assert added == 0 or bots
            assert people + added == size or smaller
        assert plan.byes < size and (plan.byes == 0 or not bots)
        if smaller and n >= 2 and size > 2:
            assert max(plan.sizes) - min(plan.sizes) <= 1 and len(plan.sizes) == -(-n // size)


# T-PAIR-2 and T-PAIR-3: who sits together.


def test_t_pair_2_with_no_history_tables_are_taken_in_order_of_standing_the_largest_first() -> None:
    order = [str(k) for k in range(14)]
    assert seating.seat(order, (4, 4, 3, 3), {}) == [order[0:4], order[4:8], order[8:11], order[11:14]]
    assert seating.seat(order[:10], (4, 3, 3), {}) == [order[0:4], order[4:7], order[7:10]]


def test_t_pair_3_a_person_sits_at_a_smaller_table_when_that_avoids_a_repeat() -> None:
    met = {frozenset(("a", other)): 1 for other in "bcde"}  # a has met everyone: one repeat at least
    tables = seating.seat(list("abcde"), (3, 2), met)
    assert [len(t) for t in tables] == [3, 2] and "a" in tables[1]
    assert sum(seating.repeats(t, met) for t in tables) == 1


def test_t_pair_3_the_greedy_above_the_exact_limit_avoids_last_rounds_opponents() -> None:
    order = [str(k) for k in range(40)]
    met = {frozenset((order[k], order[k + 1])): 1 for k in range(0, 40, 2)}  # round 1 paired neighbours
    tables = seating.seat(order, (2,) * 20, met)
    assert sorted(name for t in tables for name in t) == sorted(order)
    assert sum(seating.repeats(t, met) for t in tables) == 0


def test_t_pair_3_the_repair_pass_swaps_a_repeat_away_between_tables() -> None:
    order = [str(k) for k in range(16)]
    # The last four all met each other: the greedy, taking people in order, leaves them for the last table; the
    # repair pass swaps them apart.
    met = {frozenset(pair): 1 for pair in combinations(order[12:], 2)}
    tables = seating.seat(order, (4, 4, 4, 4), met)
    assert sorted(name for t in tables for name in t) == sorted(order)
    assert sum(seating.repeats(t, met) for t in tables) == 0


# T-PAIR-4: seat order.


def test_t_pair_4_seat_order_is_the_seeds_shuffle_of_people_then_bots() -> None:
    seats = seating.seat_order(Stream(SEED, "round:1"), ["a", "b"], 2, "greedy")
    assert sorted(seats) == sorted(["a", "b", BOT, BOT])
    again = ["a", "b", BOT, BOT]
    Stream(SEED, "round:1").shuffle(again)
    assert seats == again


# T-ARENA-1: the pool.


def waiter(name: str, since: float = 0.0, last: Iterable[str] = (), points: int = 0) -> Waiter:
    return Waiter(name, Fraction(points), 0.0, draw_key(SEED, name), since, frozenset(last))


def test_t_arena_1_full_tables_form_at_once_and_nobody_meets_their_previous_table() -> None:
    pool = [waiter("a", last="b"), waiter("b", last="a"), waiter("c"), waiter("d")]
    drawn = pair_arena(pool, Settings(2, True, True), Stream(SEED, "pairing:1"), now=1.0, wait_limit=20)
    assert len(drawn.tables) == 2 and sorted(name for t in drawn.tables for name in t) == ["a", "b", "c", "d"]
    assert all(set(t) != {"a", "b"} for t in drawn.tables)


def test_t_arena_1_before_the_wait_limit_an_incomplete_table_waits() -> None:
    pool = [waiter("a", since=0), waiter("b", since=0), waiter("c", since=0)]
    settings_ = Settings(4, smaller_tables=True, bots_fill=True)
    assert pair_arena(pool, settings_, Stream(SEED, "pairing:1"), now=19.0, wait_limit=20).tables == ()
    late = pair_arena(pool, settings_, Stream(SEED, "pairing:1"), now=20.0, wait_limit=20)
    assert [sorted(t) for t in late.tables] == [["a", "b", "c"]]


def test_t_arena_1_one_who_can_sit_with_nobody_left_does_not_keep_the_others_from_a_smaller_table() -> None:
    # a has the most points but was at b's and c's previous table; b and c may meet, and both are overdue.
    pool = [waiter("a", last="bc", points=3), waiter("b", last="a"), waiter("c", last="a")]
    drawn = pair_arena(pool, Settings(3, smaller_tables=True, bots_fill=False), Stream(SEED, "p"), now=60, wait_limit=20)
    assert [sorted(t) for t in drawn.tables] == [["b", "c"]]


def test_t_arena_1_with_bots_an_overdue_person_plays_bots_rather_than_wait() -> None:
    pool = [waiter("a", last="b"), waiter("b", last="a")]
    drawn = pair_arena(pool, Settings(3, smaller_tables=False, bots_fill=True), Stream(SEED, "p"), now=60, wait_limit=20)
    assert sorted(sorted(t) for t in drawn.tables) == [["a", BOT, BOT], ["b", BOT, BOT]]


# Properties of a Swiss round (T-SWISS-1).


@PROPERTY
@given(tournaments())
def test_t_swiss_1_everyone_still_in_is_seated_once_or_has_a_bye_and_no_withdrawn_person_is_seated(
    tournament: Tournament,
) -> None:
    drawn = tournament.pair()
    size = tournament.settings.table_size
    seated = [name for table in drawn.tables for name in people_of(table)]
    assert sorted(seated + list(drawn.byes)) == sorted(tournament.still_in)
    assert len(set(seated)) == len(seated) and not set(seated) & set(drawn.byes)
    plan = table_plan(len(tournament.still_in), size, smaller_tables=tournament.settings.smaller_tables,
                      bots_fill=tournament.settings.bots_fill)
    assert [len(people_of(t)) for t in drawn.tables] == list(plan.sizes)
    assert [len(t) - len(people_of(t)) for t in drawn.tables] == list(plan.bots)
    assert all(2 <= len(t) <= size for t in drawn.tables)
    byes_of = tournament.byes
    assert all(byes_of.get(b, 0) <= byes_of.get(s, 0) for b in drawn.byes for s in seated)  # T-PTS-2


@PROPERTY
@given(tournaments(most=10))
def test_t_pair_3_a_meeting_is_repeated_only_when_every_seating_of_the_same_tables_repeats_as_many(
    tournament: Tournament,
) -> None:
    drawn = tournament.pair()
    met = meetings(tournament.results)
    seated = [name for table in drawn.tables for name in people_of(table)]
    sizes = tuple(len(people_of(t)) for t in drawn.tables)
    assert repeats_of(drawn, met) == fewest_repeats(tuple(sorted(seated)), tuple(sorted(sizes)), met)


@PROPERTY
@given(st.integers(2, 10), st.integers(2, 5), st.booleans(), st.booleans(), st.integers(0, 2**32))
def test_t_pair_3_whoever_met_whom_the_seating_repeats_no_more_than_the_fewest_possible(
    n: int, size: int, smaller: bool, bots: bool, seed: int
) -> None:
    rng = random.Random(seed)
    plan = table_plan(n, size, smaller_tables=smaller, bots_fill=bots)
    order = [str(k) for k in range(sum(plan.sizes))]
    density = rng.choice([0.2, 0.5, 0.8])
    met = {frozenset(pair): rng.randint(1, 3) for pair in combinations(order, 2) if rng.random() < density}
    tables = seating.seat(order, plan.sizes, met)
    assert [len(t) for t in tables] == list(plan.sizes) and sorted(n for t in tables for n in t) == sorted(order)
    found = sum(seating.repeats(t, met) for t in tables)
    assert found == fewest_repeats(tuple(order), tuple(sorted(plan.sizes)), met)


def fewest_repeats(people: tuple[str, ...], sizes: tuple[int, ...], met: seating.Met) -> int:
    """Brute force: the fewest repeated meetings over every seating of `people` at tables of `sizes` (as a multiset)."""

    @cache
    def best(left: tuple[str, ...], free: tuple[int, ...]) -> int:
        if not left:
            return 0
        anchor, rest = left[0], left[1:]
        found = 1 << 30
        for size in set(free):  # the first person left sits at a table of each size still free
            others_free = list(free)
            others_free.remove(size)
            for others in combinations(rest, size - 1):
                here = sum(met.get(frozenset(pair), 0) for pair in combinations((anchor, *others), 2))
                remaining = tuple(name for name in rest if name not in others)
                found = min(found, here + best(remaining, tuple(others_free)))
        return found

    return best(people, sizes)


def test_the_brute_forces_way_of_seating_counts_every_seating_once() -> None:
    """`fewest_repeats` seats the first person left at each size of table still free: that makes each seating once."""

    @cache
    def count(left: int, free: tuple[int, ...]) -> int:
        if not left:
            return 1
        total = 0
        for size in set(free):
            others = list(free)
            others.remove(size)
            total += comb(left - 1, size - 1) * count(left - size, tuple(others))
        return total

    for sizes in [(3, 2), (4, 3, 3), (2, 2, 2, 2, 2), (3, 3, 3, 1), (5, 5)]:
        same = prod(factorial(sizes.count(s)) for s in set(sizes))
        assert count(sum(sizes), sizes) == factorial(sum(sizes)) // prod(factorial(s) for s in sizes) // same


@PROPERTY
@given(tournaments(), st.binary(min_size=32, max_size=32))
def test_t_pair_4_the_same_inputs_give_the_same_pairing_and_another_seed_orders_seats_only(
    tournament: Tournament, other_seed: bytes
) -> None:
    rows, met = tournament.table(), meetings(tournament.results)
    first = pair_swiss(rows, met, tournament.settings, Stream(SEED, "round:9"))
    assert pair_swiss(list(rows), dict(met), tournament.settings, Stream(SEED, "round:9")) == first
    other = pair_swiss(rows, met, tournament.settings, Stream(other_seed, "round:9"))
    assert [sorted(t) for t in other.tables] == [sorted(t) for t in first.tables] and other.byes == first.byes


# Properties of an arena's pool (T-ARENA-1).


@st.composite
def pools(draw: st.DrawFn) -> tuple[list[Waiter], Settings, float]:
    n = draw(st.integers(1, 40))
    names = [str(k) for k in range(n + 5)]  # a few who are at a table now, named in others' previous tables
    rng = random.Random(draw(st.integers(0, 2**32)))
    now = 1000.0
    pool = [
        Waiter(
            names[k], Fraction(rng.randint(0, 12), 4), float(rng.randint(0, 30)), draw_key(SEED, names[k]),
            now - rng.choice([0.0, 5.0, 19.9, 20.0, 45.0]), frozenset(rng.sample(names, rng.randint(0, 4))) - {names[k]},
        )
        for k in range(n)
    ]
    return pool, Settings(draw(st.integers(2, 5)), draw(st.booleans()), draw(st.booleans())), now


@PROPERTY
@given(pools())
def test_t_arena_1_nobody_meets_their_previous_table_nor_sits_twice_nor_sits_unless_waiting(
    case: tuple[list[Waiter], Settings, float],
) -> None:
    pool, settings_, now = case
    drawn = pair_arena(pool, settings_, Stream(SEED, "pairing:1"), now=now, wait_limit=20.0)
    assert pair_arena(pool, settings_, Stream(SEED, "pairing:1"), now=now, wait_limit=20.0) == drawn
    by_name = {w.player: w for w in pool}
    seated = [name for table in drawn.tables for name in people_of(table)]
    assert len(seated) == len(set(seated)) and set(seated) <= set(by_name)
    for table in drawn.tables:
        for one, other in combinations(people_of(table), 2):
            assert one not in by_name[other].last_table and other not in by_name[one].last_table
        assert 2 <= len(table) <= settings_.table_size
        assert len(table) == settings_.table_size or settings_.smaller_tables
        assert len(people_of(table)) == len(table) or settings_.bots_fill
    if not any(now - w.since >= 20.0 for w in pool):
        assert all(len(people_of(t)) == settings_.table_size for t in drawn.tables)
    waiting = [by_name[name] for name in by_name if name not in seated]
    if any(now - w.since >= 20.0 for w in waiting):  # then whoever can sit down does
        assert not settings_.bots_fill, "bots would have taken them"
        assert not settings_.smaller_tables or not [(a, b) for a, b in combinations(waiting, 2) if may_meet(a, b)]


def may_meet(one: Waiter, other: Waiter) -> bool:
    return one.player not in other.last_table and other.player not in one.last_table


# Properties of the standings (T-PTS-1 to T-PTS-4).


@PROPERTY
@given(tournaments())
def test_t_pts_1_to_4_the_standings_points_add_up_exactly_and_rank_everyone_once(tournament: Tournament) -> None:
    rows = tournament.table()
    names = [e.player for e in tournament.entrants]
    assert [r.rank for r in rows] == list(range(1, len(names) + 1)) and sorted(r.player for r in rows) == sorted(names)
    keys = [(-r.points, -r.opponents_points, -r.score_total, -r.draw) for r in rows]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    for game in tournament.results:
        assert sum(game_points(game.places, seat) for seat in range(len(game.seats))) == Fraction(len(game.seats), 2)
    by = {r.player: r for r in rows}
    earned = sum(
        (game_points(g.places, s) for g in tournament.results for s, name in enumerate(g.seats) if not is_bot(name)),
        Fraction(0),
    )
    assert sum((r.points for r in rows), Fraction(0)) == earned + BYE_POINTS * sum(tournament.byes.values())
    for row in rows:
        mine = [g for g in tournament.results if row.player in g.seats]
        assert row.games == len(mine) and row.byes == tournament.byes.get(row.player, 0)
        assert row.byes <= row.points <= row.games + row.byes
        met = [name for g in mine for name in people_of(g.seats) if name != row.player]
        assert row.opponents_points == sum((by[name].points for name in met), Fraction(0))
        assert row.score_total == sum(g.scores[g.seats.index(row.player)] for g in mine)
    assert {r.player for r in rows if r.withdrawn} == {e.player for e in tournament.entrants if e.withdrawn}


# The audit's check of a log made of pure pairings.

AT = "2026-11-28T12:00:00+00:00"


@dataclass
class Log:
    lines: list[dict[str, Any]] = field(default_factory=list)
    games: dict[str, audit.GameRecord] = field(default_factory=dict)
    tampered: bool = False

    def add(self, kind: str, data: dict[str, Any]) -> None:
        line = {"seq": len(self.lines) + 1, "type": kind, "at": AT, "data": data,
                "prev_hash": self.lines[-1]["hash"] if self.lines else GENESIS_HASH}
        line["hash"] = audit.line_hash(line)
        self.lines.append(line)


def opening(log: Log, tournament: Tournament, kind: str, rng: random.Random) -> bytes:
    """created, registered and started; the pairing seed they make."""
    server = rng.randbytes(32)
    log.add("created", {"format": kind, "table_size": tournament.settings.table_size,
                        "smaller_tables": tournament.settings.smaller_tables, "bots_fill": tournament.settings.bots_fill,
                        "bot_level": "greedy", "server_seed_hash": hashlib.sha256(server).hexdigest()})
    clients = [rng.randbytes(rng.choice([0, 8, 32])) for _ in tournament.entrants]
    for entrant, client in zip(tournament.entrants, clients, strict=True):
        log.add("registered", {"player": entrant.player, "client_seed": client.hex(), "rating": entrant.rating})
    log.add("started", {"players": [e.player for e in tournament.entrants]})
    return server


def ending(log: Log, tournament: Tournament, seed: bytes, server: bytes) -> None:
    rows = tournament.table(seed)
    log.add("ended", {"why": "over", "server_seed": server.hex(),
                      "standings": [{"player": r.player, "points": str(r.points)} for r in rows]})


def finish(log: Log, tournament: Tournament, game: str, seats: Sequence[str], number: int, rng: random.Random) -> None:
    played = result(game, seats, [rng.randint(0, 3) for _ in seats], number)
    tournament.results.append(played)
    log.games[game] = audit.GameRecord(played.seats, played.places, played.scores)
    log.add("game_finished", {"game": game, "round": number, "seats": list(seats), "places": list(played.places),
                              "scores": list(played.scores)})


def swiss_log(tournament: Tournament, rounds: int, seed_of_rng: int, tamper: int | None = None) -> Log:
    """A Swiss played out as the server would log it, each round paired by `pair_swiss`; round `tamper`'s tables
    logged (and played) with one seat changed (when it seats anyone: `Log.tampered` says)."""
    rng, log = random.Random(seed_of_rng), Log()
    server = opening(log, tournament, "swiss", rng)
    seed = Seeds(server, tuple(bytes.fromhex(line["data"]["client_seed"]) for line in log.lines[1:-1])).game_seed()
    for number in range(1, rounds + 1):
        if number > 1 and len(tournament.still_in) > 2 and rng.random() < 0.3:
            name = rng.choice(tournament.still_in)
            tournament.entrants = [replace(e, withdrawn=e.withdrawn or e.player == name) for e in tournament.entrants]
            log.add("withdrawn", {"player": name, "why": "asked"})
        drawn = tournament.pair(seed)
        tables, byes = [list(t) for t in drawn.tables], list(drawn.byes)
        if number == tamper:
            log.tampered = change_one_seat(tables, byes, rng)
        games = [f"r{number}g{k}" for k in range(len(tables))]
        log.add("round_paired", {
            "round": number, "tables": [{"game": g, "seats": s} for g, s in zip(games, tables, strict=True)],
            "byes": byes,
        })
        tournament.rounds = number
        for name in byes:
            tournament.byes[name] = tournament.byes.get(name, 0) + 1
        for game, seats in zip(games, tables, strict=True):
            finish(log, tournament, game, seats, number, rng)
    ending(log, tournament, seed, server)
    return log


def change_one_seat(tables: list[list[str]], byes: list[str], rng: random.Random) -> bool:
    """Swap one person seated with one of another table or one with a bye, or (one table, no bye) two different seats
    of their table. False: nobody is seated, nothing changed."""
    people = [(t, s) for t, table in enumerate(tables) for s, name in enumerate(table) if not is_bot(name)]
    if not people:
        return False
    (t1, s1) = rng.choice(people)
    if byes and rng.random() < 0.3:
        k = rng.randrange(len(byes))
        tables[t1][s1], byes[k] = byes[k], tables[t1][s1]
        return True
    others = [(t, s) for t, s in people if t != t1]
    others = others or [(t1, s) for s, name in enumerate(tables[t1]) if name != tables[t1][s1]]
    (t2, s2) = rng.choice(others)
    tables[t1][s1], tables[t2][s2] = tables[t2][s2], tables[t1][s1]
    return True


@settings(max_examples=max(1, EXAMPLES // 2), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tournaments(most=24, withdrawals=False), st.integers(1, 4), st.integers(0, 2**32), st.data())
def test_the_audit_passes_a_swiss_paired_by_the_pure_functions_and_finds_one_seat_changed(
    tournament: Tournament, rounds: int, seed: int, data: st.DataObject
) -> None:
    honest = swiss_log(Tournament(tournament.settings, list(tournament.entrants)), rounds, seed)
    checked = audit.check(honest.lines, honest.games)
    assert checked.problems == [] and checked.fair is True and checked.head_hash == honest.lines[-1]["hash"]
    tamper = data.draw(st.integers(1, rounds), label="round changed")
    forged = swiss_log(Tournament(tournament.settings, list(tournament.entrants)), rounds, seed, tamper=tamper)
    assume(forged.tampered)  # that round seated somebody
    paired = [line for line in forged.lines if line["type"] == "round_paired"]
    found = audit.check(forged.lines, forged.games)
    assert found.problems == [f"event {paired[tamper - 1]['seq']}: round {tamper}'s tables are not those its inputs give"]
    assert found.fair is False


def test_the_audit_passes_an_arena_paired_by_the_pure_functions_and_finds_one_seat_changed() -> None:
    honest = arena_log(tamper_from=None)
    found = audit.check(honest.lines, honest.games)
    assert found.problems == [] and found.fair is True
    forged = arena_log(tamper_from=3)
    paired = next(line for line in forged.lines if line["type"] == "round_paired" and line["data"].get("tampered"))
    found = audit.check(forged.lines, forged.games)
    round_ = paired["data"]["round"]
    assert found.problems == [f"event {paired['seq']}: round {round_}'s tables are not those its inputs give"]
    assert found.fair is False


def arena_log(tamper_from: int | None) -> Log:
    """An arena of 11 at tables of 3 (smaller tables, no bots) paired 8 times by `pair_arena`, games ending at random
    between pairings; the first pairing from `tamper_from` on that forms a table is logged with one seat changed."""
    log, tournament, rng = Log(), Tournament(Settings(3, True, False), entrants(11)), random.Random(8)
    server = opening(log, tournament, "arena", rng)
    seed = Seeds(server, tuple(bytes.fromhex(line["data"]["client_seed"]) for line in log.lines[1:-1])).game_seed()
    since = dict.fromkeys(tournament.still_in, 0.0)
    last: dict[str, frozenset[str]] = {}
    running: list[tuple[str, list[str]]] = []
    for number in range(1, 9):
        now = 40.0 * number
        while running and rng.random() < 0.6:
            game, seats = running.pop(rng.randrange(len(running)))
            finish(log, tournament, game, seats, number - 1, rng)
            since.update(dict.fromkeys(people_of(seats), now - rng.choice([1.0, 30.0])))
        rows = {r.player: r for r in tournament.table(seed)}
        pool = [Waiter(p, rows[p].points, rows[p].rating, rows[p].draw, at, last.get(p, frozenset()))
                for p, at in since.items()]
        drawn = pair_arena(pool, tournament.settings, Stream(seed, f"pairing:{number}"), now=now, wait_limit=20.0)
        tables = [list(t) for t in drawn.tables]
        tampered = tamper_from is not None and number >= tamper_from and bool(tables)
        if tampered:
            change_one_seat(tables, [], rng)
            tamper_from = None
        games = [f"a{number}g{k}" for k in range(len(tables))]
        log.add("round_paired", {
            "round": number, "now": now, "wait_limit": 20.0, "pool": [{"player": w.player, "since": w.since} for w in pool],
            "tables": [{"game": g, "seats": s} for g, s in zip(games, tables, strict=True)], "tampered": tampered,
        })
        for game, seats in zip(games, tables, strict=True):
            running.append((game, seats))
            for name in people_of(seats):
                since.pop(name)
                last[name] = frozenset(seats) - {name}
    for game, seats in running:
        finish(log, tournament, game, seats, 8, rng)
    ending(log, tournament, seed, server)
    return log
