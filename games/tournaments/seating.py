"""Who sits with whom, for both formats (docs/TOURNAMENTS.md, T-PAIR-1 to T-PAIR-4). Pure: no framework.

- **Table sizes (T-PAIR-1).** `table_plan` splits n people into tables of the chosen size. With smaller tables
  allowed, into as few tables as the size permits, as even as can be (37 at 4: seven of 4 and three of 3); without,
  into full tables and a remainder that bots fill (one table of the remainder and bots) or that sits out with byes.
  A table is never of one person: that person plays bots (bots allowed) or has a bye.
- **By standing (T-PAIR-2).** People are taken in their order (standing, then rating, then the seed's draw); the
  first one not yet seated opens the next table, the largest first, and is joined by the next ones in order.
- **Repeats only when unavoidable (T-PAIR-3).** Two people who have met before are seated together only when no
  seating avoids it: for up to `EXACT_LIMIT` people the search is exhaustive over every seating at tables of these
  sizes, a person at a smaller table than the order gives them included (the fewest repeated meetings, then the
  seating nearest the order); for more, each table takes the first people in order who have met nobody at it, looking
  `LOOK` places ahead, and a repair pass then swaps people between tables (up to `REACH` tables away) while that
  lowers the repeats.
- **Seat order (T-PAIR-4)** at each table is a shuffle drawn from the tournament's seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from games.engine.seeds import Stream

EXACT_LIMIT = 12
LOOK = 48
EXACT_NODES = 200_000
REACH = 16  # the repair pass swaps with tables at most this many places away
Met = Mapping[frozenset[str], int]


@dataclass(frozen=True, slots=True)
class Plan:
    sizes: tuple[int, ...]  # people per table, largest first
    bots: tuple[int, ...]  # bots per table, same order
    byes: int  # people who sit out


def table_plan(n: int, size: int, *, smaller_tables: bool, bots_fill: bool) -> Plan:
    """T-PAIR-1: how `n` people are seated at tables of `size` (2..5)."""
    if n <= 0:
        return Plan((), (), 0)
    if n == 1:
        return Plan((1,), (size - 1,), 0) if bots_fill else Plan((), (), 1)
    full, rest = divmod(n, size)
    if rest == 0:
        return Plan((size,) * full, (0,) * full, 0)
    if smaller_tables:
        tables = full + 1
        small, bigger = divmod(n, tables)
        if small >= 2:
            sizes = (small + 1,) * bigger + (small,) * (tables - bigger)
            return Plan(sizes, (0,) * tables, 0)
    if bots_fill:
        return Plan((size,) * full + (rest,), (0,) * full + (size - rest,), 0)
    return Plan((size,) * full, (0,) * full, rest)


def repeats(table: Sequence[str], met: Met) -> int:
    """The meetings this table repeats: for every two people at it, how often they met before."""
    return sum(met.get(frozenset(pair), 0) for pair in combinations(table, 2))


def seat(order: Sequence[str], sizes: Sequence[int], met: Met) -> list[list[str]]:
    """T-PAIR-2 and T-PAIR-3: `order` (everyone to seat, best first) split into tables of `sizes`."""
    if sum(sizes) != len(order):
        raise ValueError(f"{len(order)} people for {sum(sizes)} seats")
    if len(order) <= EXACT_LIMIT:
        exact = _exact(order, sizes, met)
        if exact is not None:
            return exact
    near = _near(met)
    return _repair(_greedy(order, sizes, near), near)


def _exact(order: Sequence[str], sizes: Sequence[int], met: Met) -> list[list[str]] | None:
    """The seating with the fewest repeats, the first in order among equals (None: the search ran out of nodes).

    The first person not yet seated opens a table of each size still free in turn (the largest first: T-PAIR-2's
    seating is the first tried), so a person may sit at a smaller table when that avoids a repeat; of tables of one
    size they open the first free one, so no seating is tried twice. Tables come back in the order of `sizes`."""
    best: list[list[str]] | None = None
    best_cost = 1 << 60
    nodes = 0
    tables: list[list[str]] = [[] for _ in sizes]

    def search(left: list[str], cost: int) -> bool:
        nonlocal best, best_cost, nodes
        nodes += 1
        if nodes > EXACT_NODES:
            return True
        if cost >= best_cost:
            return False
        if not left:
            best, best_cost = [list(t) for t in tables], cost
            return cost == 0
        anchor, rest = left[0], left[1:]
        opened: set[int] = set()
        for table, size in enumerate(sizes):
            if tables[table] or size in opened:
                continue
            opened.add(size)
            for others in combinations(rest, size - 1):
                group = [anchor, *others]
                tables[table] = group
                remaining = [name for name in rest if name not in others]
                found = search(remaining, cost + repeats(group, met))
                tables[table] = []
                if found:
                    return True
        return False

    search(list(order), 0)
    return best if nodes <= EXACT_NODES or best is not None else None


Near = dict[str, dict[str, int]]  # each person's earlier meetings: whom they met, how often


def _near(met: Met) -> Near:
    near: Near = {}
    for pair, count in met.items():
        if count and len(pair) == 2:
            one, other = pair
            near.setdefault(one, {})[other] = count
            near.setdefault(other, {})[one] = count
    return near


def _greedy(order: Sequence[str], sizes: Sequence[int], near: Near) -> list[list[str]]:
    """Each table in turn: the first person left, then whoever of the next `LOOK` brings the fewest repeats (the first
    such). `brings` counts, for everyone, the meetings they would repeat at the table so far."""
    left = list(reversed(order))  # the next person last: popping near the end moves little
    tables: list[list[str]] = []
    for size in sizes:
        group = [left.pop()]
        brings = dict(near.get(group[0], {}))
        while len(group) < size:
            chosen = left.pop(_cheapest(left, brings))
            group.append(chosen)
            for other, count in near.get(chosen, {}).items():
                brings[other] = brings.get(other, 0) + count
        tables.append(group)
    return tables


def _cheapest(left: list[str], brings: Mapping[str, int]) -> int:
    """The index in `left` (the next person last) of the first of the next `LOOK` people who brings the fewest."""
    pick, fewest = len(left) - 1, -1
    for index in range(len(left) - 1, max(-1, len(left) - 1 - LOOK), -1):
        cost = brings.get(left[index], 0)
        if cost == 0:
            return index
        if fewest < 0 or cost < fewest:
            pick, fewest = index, cost
    return pick


def _repair(tables: list[list[str]], near: Near) -> list[list[str]]:
    """Swap two people of two tables while that lowers the repeats of the pair of tables (nearest tables first)."""
    costs = [_repeats(table, near) for table in tables]
    improved = True
    while improved:
        improved = False
        for i in range(len(tables)):
            if costs[i] == 0:
                continue
            nearest = sorted(range(max(0, i - REACH), min(len(tables), i + REACH + 1)), key=lambda k: abs(k - i))
            for j in nearest:
                if j != i and _swap_lowers(tables, costs, i, j, near):
                    improved = True
                    break
    return tables


def _repeats(table: Sequence[str], near: Near) -> int:
    return sum(_met_at(one, table[k + 1:], near) for k, one in enumerate(table))


def _met_at(person: str, others: Sequence[str], near: Near) -> int:
    mine = near.get(person)
    return sum(mine.get(other, 0) for other in others) if mine else 0


def _swap_lowers(tables: list[list[str]], costs: list[int], i: int, j: int, near: Near) -> bool:
    """The first swap of a person of table i with one of table j (in seat order) that lowers their repeats."""
    one, two = tables[i], tables[j]
    for a, x in enumerate(one):
        rest_one = one[:a] + one[a + 1:]
        x_here = _met_at(x, rest_one, near)
        for b, y in enumerate(two):
            rest_two = two[:b] + two[b + 1:]
            gain_one = _met_at(y, rest_one, near) - x_here
            gain_two = _met_at(x, rest_two, near) - _met_at(y, rest_two, near)
            if gain_one + gain_two < 0:
                one[a], two[b] = y, x
                costs[i] += gain_one
                costs[j] += gain_two
                return True
    return False


def seat_order(stream: Stream, people: Sequence[str], bots: int, level: str) -> list[str]:
    """T-PAIR-4: the table's seats, people and `bots` bots of `level`, in an order drawn from `stream`."""
    seats = [*people, *[f"bot:{level}"] * bots]
    stream.shuffle(seats)
    return seats
