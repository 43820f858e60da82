"""Who sits with whom, for both formats (docs/TOURNAMENTS.md, T-PAIR-1 to T-PAIR-4). Pure: no framework.

- **Table sizes (T-PAIR-1).** `table_plan` splits n people into tables of the chosen size. With smaller tables
  allowed, into as few tables as the size permits, as even as can be (37 at 4: seven of 4 and three of 3); without,
  into full tables and a remainder that bots fill (one table of the remainder and bots) or that sits out with byes.
  A table is never of one person: that person plays bots (bots allowed) or has a bye.
- **By standing (T-PAIR-2).** People are taken in their order (standing, then rating, then the seed's draw); the
  first one not yet seated opens the next table, the largest first, and is joined by the next ones in order.
- **Repeats only when unavoidable (T-PAIR-3).** Two people who have met before are seated together only when no
  seating avoids it: for up to `EXACT_LIMIT` people the search is exhaustive (the fewest repeated meetings, then the
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
    return _repair(_greedy(order, sizes, met), met)


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


def _greedy(order: Sequence[str], sizes: Sequence[int], met: Met) -> list[list[str]]:
    left = list(order)
    tables: list[list[str]] = []
    for size in sizes:
        group = [left.pop(0)]
        while len(group) < size:
            window = left[:LOOK]
            pick = min(range(len(window)), key=lambda i: (sum(met.get(frozenset((window[i], m)), 0) for m in group), i))
            group.append(left.pop(pick))
        tables.append(group)
    return tables


def _repair(tables: list[list[str]], met: Met) -> list[list[str]]:
    """Swap two people of two tables while that lowers the repeats of the pair of tables (nearest tables first)."""
    improved = True
    while improved:
        improved = False
        for i, table in enumerate(tables):
            if repeats(table, met) == 0:
                continue
            nearest = sorted(range(max(0, i - REACH), min(len(tables), i + REACH + 1)), key=lambda k: abs(k - i))
            for j in nearest:
                if j != i and _swap_lowers(tables, i, j, met):
                    improved = True
                    break
    return tables


def _swap_lowers(tables: list[list[str]], i: int, j: int, met: Met) -> bool:
    before = repeats(tables[i], met) + repeats(tables[j], met)
    for a in range(len(tables[i])):
        for b in range(len(tables[j])):
            one, two = list(tables[i]), list(tables[j])
            one[a], two[b] = two[b], one[a]
            if repeats(one, met) + repeats(two, met) < before:
                tables[i], tables[j] = one, two
                return True
    return False


def seat_order(stream: Stream, people: Sequence[str], bots: int, level: str) -> list[str]:
    """T-PAIR-4: the table's seats, people and `bots` bots of `level`, in an order drawn from `stream`."""
    seats = [*people, *[f"bot:{level}"] * bots]
    stream.shuffle(seats)
    return seats
