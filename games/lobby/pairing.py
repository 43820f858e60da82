"""Matchmaking: which waiting players sit down together. Pure (standard library only): no database, no clock.

The rule, as players see it:

- **Who can meet.** Players meet only if they chose the same map, the same kind of game (ranked or not) and the
  same speed (live or daily), and accept a common table size: a table of n seats is formed only from players who
  all ticked n.
- **How far apart in rating.** Ratings are the conservative ones shown on the leaderboard (mu - 3 sigma; a new
  player has 0). The highest and lowest rating at a table may differ by at most the *gap* of its member who has
  waited least: 3 points at once, widening by 3 points a minute of waiting (`allowed_gap`). Nobody is seated with
  a player further away than their own gap allows; waiting longer only ever widens the search.
- **Longest waiting first.** Players are served in the order they joined. The longest-waiting player still
  unseated gets the largest table size they accept that can be filled with humans, with the players whose
  ratings are nearest theirs (one by one, nearest first, skipping anyone whose own gap or the table's gap so far
  would be exceeded). Largest first because Ticket to Ride plays best with more players and it seats the queue
  fastest; the gap already bounds how far apart a larger table may be. So when two tables could each use the same
  player, that player goes to the table of whoever has waited longer.
- **Humans before bots.** Every table of humans is formed first. Only then, a player who said bots may fill the
  empty seats after some waiting (`bots_after`), who has waited that long and who is still unseated, is seated
  with whatever unseated compatible players are near their rating and have also waited past their own
  `bots_after`, and bots in the seats left over: at the size seating the most of those players, the smallest
  such size (a table has at least 2 seats, so one player and one bot is a table). Players served in join order
  here too.

Speed: players are split by (map, ranked, speed); each part is kept sorted by rating once per table size, as a
doubly linked list from which seated players are unlinked, so a search steps only over unseated players and
stops as soon as the rating spread leaves the gap. A search looks at no more than `LOOK` candidates, which keeps
a run over a crowded queue near-linear; what one run misses, the next run (a few seconds later) tries again.
`problem` checks a table against the rule; every table `form_tables` returns passes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

GAP_BASE = 3.0  # rating points any two players may differ by at once
GAP_PER_MINUTE = 3.0  # the accepted gap widens by this much each minute a player waits
SIZES = frozenset({2, 3, 4, 5})
LOOK = 64  # candidates a search examines at most for one table size


@dataclass(frozen=True, slots=True)
class Waiting:
    id: int  # queue entry id
    rating: float  # the player's conservative rating on the map (mu - 3 sigma); new players 0.0
    since: float  # when they joined, seconds (epoch)
    map: str  # "europe" | "usa"
    counts: frozenset[int]  # table sizes accepted, subset of {2,3,4,5}
    ranked: bool
    speed: str  # "live" | "daily"
    bots_after: float | None  # seconds of waiting after which the player accepts bots in the empty seats; None: never


@dataclass(frozen=True, slots=True)
class Table:
    members: tuple[int, ...]  # Waiting ids, longest-waiting first
    players: int  # the table size (members + bots)
    bots: int  # seats filled with bots


def allowed_gap(waited_seconds: float, base: float = GAP_BASE, per_minute: float = GAP_PER_MINUTE) -> float:
    """The rating gap a player accepts after waiting this long (a clock running backwards counts as no wait)."""
    return base + per_minute * max(waited_seconds, 0.0) / 60.0


def bots_allowed(player: Waiting, now: float) -> bool:
    return player.bots_after is not None and now - player.since >= player.bots_after


def problem(
    table: Table, waiting: Mapping[int, Waiting], now: float, base: float = GAP_BASE, per_minute: float = GAP_PER_MINUTE
) -> str | None:
    """Why the table breaks the rule, or None when it keeps it."""
    if not table.members:
        return "no members"
    if len(set(table.members)) != len(table.members):
        return "a member seated twice"
    unknown = [m for m in table.members if m not in waiting]
    if unknown:
        return f"not waiting: {unknown}"
    members = [waiting[m] for m in table.members]
    fit = _fit_problem(table, members, now, base, per_minute)
    return _seats_problem(table, members) or _choices_problem(table, members) or fit


def _seats_problem(table: Table, members: list[Waiting]) -> str | None:
    if not 2 <= table.players <= 5:
        return f"{table.players} seats"
    if table.bots < 0 or len(members) + table.bots != table.players:
        return f"{len(members)} members and {table.bots} bots do not make {table.players} seats"
    return None


def _choices_problem(table: Table, members: list[Waiting]) -> str | None:
    if len({(m.map, m.ranked, m.speed) for m in members}) > 1:
        return "members chose different maps, ranked or speeds"
    refusing = [m.id for m in members if table.players not in m.counts]
    return f"{refusing} do not accept {table.players} seats" if refusing else None


def _fit_problem(table: Table, members: list[Waiting], now: float, base: float, per_minute: float) -> str | None:
    spread = max(m.rating for m in members) - min(m.rating for m in members)
    gap = min(allowed_gap(now - m.since, base, per_minute) for m in members)
    if spread > gap:
        return f"rating spread {spread:.2f} over the allowed gap {gap:.2f}"
    if table.bots and not all(bots_allowed(m, now) for m in members):
        return "bots before every member accepts them"
    return None


def form_tables(
    waiting: Sequence[Waiting], now: float, base: float = GAP_BASE, per_minute: float = GAP_PER_MINUTE
) -> list[Table]:
    """Disjoint tables that keep the rule, humans-only tables first, each part of the queue in join order."""
    parts: dict[tuple[str, bool, str], list[Waiting]] = {}
    for player in {player.id: player for player in waiting}.values():  # ids are unique; if not, the last one counts
        parts.setdefault((player.map, player.ranked, player.speed), []).append(player)
    queues = [_Queue(part, now, base, per_minute) for part in parts.values()]
    tables = [table for queue in queues for table in queue.human_tables()]
    return tables + [table for queue in queues for table in queue.bot_tables(now)]


class _Line:
    """The players of one part accepting one table size, by rating, as a linked list seated players leave."""

    def __init__(self, players: list[int], rating: list[float]) -> None:
        players = sorted(players, key=rating.__getitem__)
        self.who = players
        self.rating = [rating[p] for p in players]
        self.at = {p: i for i, p in enumerate(players)}
        self.prev = list(range(-1, len(players) - 1))
        self.next = list(range(1, len(players) + 1))

    def remove(self, player: int) -> None:
        i = self.at[player]
        before, after = self.prev[i], self.next[i]
        if before >= 0:
            self.next[before] = after
        if after < len(self.who):
            self.prev[after] = before

    def gather(self, anchor: int, size: int, gap: list[float], eligible: list[bool]) -> list[int]:
        """Up to `size` players with the anchor: nearest rating first, each kept if the table stays in its gap."""
        who, rating, prev, nxt, end = self.who, self.rating, self.prev, self.next, len(self.who)
        at = self.at[anchor]
        centre = low = high = rating[at]
        limit = gap[anchor]
        group = [anchor]
        left, right, looked = prev[at], nxt[at], 0
        while len(group) < size and looked < LOOK:
            if left >= 0 and high - rating[left] > limit:
                left = -1  # everyone further down would stretch the table past its gap
            if right < end and rating[right] - low > limit:
                right = end
            if left < 0 and right >= end:
                break
            if right >= end or (left >= 0 and centre - rating[left] <= rating[right] - centre):
                i, left = left, prev[left]
            else:
                i, right = right, nxt[right]
            looked += 1
            player, r = who[i], rating[i]
            spread = max(high, r) - min(low, r)
            if spread <= gap[player] and eligible[player]:
                group.append(player)
                low, high, limit = min(low, r), max(high, r), min(limit, gap[player])
        return group


class _Queue:
    """One part of the queue: one map, ranked or not, one speed."""

    def __init__(self, players: list[Waiting], now: float, base: float, per_minute: float) -> None:
        self.players = sorted(players, key=lambda p: (p.since, p.id))  # join order: who is served first
        self.gap = [allowed_gap(now - p.since, base, per_minute) for p in self.players]
        self.counts = [sorted(p.counts & SIZES) for p in self.players]
        self.seated = [False] * len(self.players)
        rating = [p.rating for p in self.players]
        self.lines = {size: _Line(self._accepting(size), rating) for size in SIZES}

    def _accepting(self, size: int) -> list[int]:
        return [i for i, counts in enumerate(self.counts) if size in counts]

    def human_tables(self) -> Iterable[Table]:
        everyone = [True] * len(self.players)  # seated players are unlinked from every line: a search never meets them
        for anchor, counts in enumerate(self.counts):
            if self.seated[anchor]:
                continue
            for size in reversed(counts):
                group = self.lines[size].gather(anchor, size, self.gap, everyone)
                if len(group) == size:
                    yield self._seat(group, size)
                    break

    def bot_tables(self, now: float) -> Iterable[Table]:
        ready = [bots_allowed(p, now) for p in self.players]
        for anchor, counts in enumerate(self.counts):
            if self.seated[anchor] or not ready[anchor] or not counts:
                continue
            options = [(self.lines[size].gather(anchor, size, self.gap, ready), size) for size in counts]
            group, size = max(options, key=lambda option: (len(option[0]), -option[1]))
            yield self._seat(group, size)

    def _seat(self, group: list[int], size: int) -> Table:
        for player in group:
            self.seated[player] = True
            for count in self.counts[player]:
                self.lines[count].remove(player)
        members = tuple(self.players[p].id for p in sorted(group))  # join order is index order
        return Table(members=members, players=size, bots=size - len(group))
