"""A round of a Swiss and a pairing of an arena's pool, as pure functions of the standings, the history and the seed
(docs/TOURNAMENTS.md). The server pairs with them; `verify` calls them again on what the tournament's log holds and
compares. Pure: no framework, no clock (an arena's `now` is an argument, written into the log with the pairing).

- **Swiss (T-SWISS-1).** Everyone still in (not withdrawn) is ordered by standing (points, then the tie-breaks),
  then by rating; T-PAIR-1 gives the tables, the byes go to the lowest in that order who have had the fewest byes,
  and T-PAIR-2/3 seat the rest.
- **Arena (T-ARENA-1).** The people waiting in the pool, ordered by points, then rating, then the seed's draw, are
  seated at full tables in that order, never with anyone who was at their previous table. Whoever has waited
  `wait_limit` seconds and still has no table is seated at a smaller table (allowed) or with bots (allowed) with
  the others left over; otherwise they wait for more people.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from games.engine.seeds import Stream
from games.tournaments import seating
from games.tournaments.standings import Standing


@dataclass(frozen=True, slots=True)
class Settings:
    table_size: int
    smaller_tables: bool
    bots_fill: bool
    bot_level: str = "greedy"


@dataclass(frozen=True, slots=True)
class Pairing:
    tables: tuple[tuple[str, ...], ...]  # each table's seats in seat order: players and "bot:<level>"
    byes: tuple[str, ...] = ()


def pair_swiss(
    standings: Sequence[Standing], met: seating.Met, settings: Settings, stream: Stream
) -> Pairing:
    """T-SWISS-1: the next round's tables for everyone in `standings` not withdrawn."""
    order = [row for row in _by_standing(standings) if not row.withdrawn]
    plan = seating.table_plan(
        len(order), settings.table_size, smaller_tables=settings.smaller_tables, bots_fill=settings.bots_fill
    )
    byes: list[str] = []
    if plan.byes:  # the lowest with the fewest byes sit out
        lowest = sorted(range(len(order)), key=lambda i: (order[i].byes, -i))[: plan.byes]
        byes = [order[i].player for i in sorted(lowest)]
    names = [row.player for row in order if row.player not in byes]
    groups = seating.seat(names, plan.sizes, met)
    tables = tuple(
        tuple(seating.seat_order(stream, group, bots, settings.bot_level))
        for group, bots in zip(groups, plan.bots, strict=True)
    )
    return Pairing(tables, tuple(byes))


def _by_standing(standings: Sequence[Standing]) -> list[Standing]:
    # Every key descending; a stable sort in reverse keeps equals in their order, as ascending on negated keys does.
    return sorted(standings, key=lambda r: (r.points, r.opponents_points, r.score_total, r.rating, r.draw), reverse=True)


@dataclass(frozen=True, slots=True)
class Waiter:
    player: str
    points: Fraction
    rating: float
    draw: int
    since: float  # when they entered the pool, seconds since the epoch
    last_table: frozenset[str]  # the people of their previous table (empty before their first game)


def pair_arena(
    pool: Sequence[Waiter], settings: Settings, stream: Stream, *, now: float, wait_limit: float
) -> Pairing:
    """T-ARENA-1: the tables to form now from the people waiting in the pool (those not seated keep waiting)."""
    order = sorted(pool, key=lambda w: (-w.points, -w.rating, -w.draw))
    left = list(order)
    groups: list[tuple[list[Waiter], int]] = []
    while True:
        group = _compatible(left, settings.table_size)
        if group is None:
            break
        groups.append((group, 0))
        left = [w for w in left if w not in group]
    overdue = [w for w in left if now - w.since >= wait_limit]
    if overdue:
        groups.extend(_leftover_tables(left, settings))
    tables = tuple(
        tuple(seating.seat_order(stream, [w.player for w in group], bots, settings.bot_level))
        for group, bots in groups
    )
    return Pairing(tables)


def _compatible(left: Sequence[Waiter], size: int) -> list[Waiter] | None:
    """The first table of `size` in order whose members were at none of each other's previous tables."""
    for start, anchor in enumerate(left):
        group = [anchor]
        for other in left[start + 1:]:
            if all(_may_meet(other, member) for member in group):
                group.append(other)
                if len(group) == size:
                    return group
    return None


def _may_meet(one: Waiter, other: Waiter) -> bool:
    return one.player not in other.last_table and other.player not in one.last_table


def _leftover_tables(left: list[Waiter], settings: Settings) -> list[tuple[list[Waiter], int]]:
    """Tables for the people left when one of them is overdue: smaller tables of those who may meet, or bots. Someone
    who can make no table (everyone left was at their previous one, and no bots) keeps waiting, and the others are
    still seated among themselves."""
    tables: list[tuple[list[Waiter], int]] = []
    rest = list(left)
    while rest:
        group = [rest[0]]
        for other in rest[1:]:
            if len(group) < settings.table_size and all(_may_meet(other, m) for m in group):
                group.append(other)
        bots = settings.table_size - len(group) if settings.bots_fill else 0
        if len(group) >= 2 and settings.smaller_tables:
            bots = 0
        if len(group) + bots < 2 or (len(group) + bots < settings.table_size and not settings.smaller_tables):
            rest = rest[1:]
            continue
        tables.append((group, bots))
        taken = {w.player for w in group}
        rest = [w for w in rest if w.player not in taken]
    return tables
