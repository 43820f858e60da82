"""Graph questions about one player's routes: which cities are joined, and the longest continuous path.

The longest continuous path (C-LNG-1) is the longest *trail*: a walk that may pass a city many times but
uses each route at most once, weighted by route length. Finding it is NP-hard in general; player networks
are small, and the exact answer is found cheaply like this:

- Each connected piece is searched on its own, heaviest first; a piece no heavier than the best is skipped.
- A piece with 0 or 2 odd-degree cities has an Euler trail: its whole weight is the answer.
- Otherwise chains of degree-2 cities are merged into single edges, and parity gives a bound: the edges a
  trail leaves unused have odd degree at every odd city but the trail's two ends, so they weigh at least
  a lightest matching of those cities by shortest distance (a lightest T-join). When removing such a
  T-join leaves one piece, that piece is an Euler trail meeting the bound: done, no search.
- Else a depth-first search from the odd cities (a longest trail starts at one) visits each (city, used
  routes) position once, pruned by the same parity bound applied to the unused routes around it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping

Edge = tuple[Hashable, Hashable, int]  # (city, city, length)


def components(edges: Iterable[tuple[Hashable, Hashable]]) -> dict[Hashable, Hashable]:
    """A representative city for every city the edges touch: two cities are joined iff they share one."""
    parent: dict[Hashable, Hashable] = {}  # union-find: each city's parent, a root its own
    for a, b in edges:
        ra = parent.setdefault(a, a)
        while parent[ra] != ra:
            parent[ra] = ra = parent[parent[ra]]  # (path halving: the roots stay)
        rb = parent.setdefault(b, b)
        while parent[rb] != rb:
            parent[rb] = rb = parent[parent[rb]]
        if ra != rb:
            parent[ra] = rb
    roots: dict[Hashable, Hashable] = {}
    for x in parent:
        root = x
        while parent[root] != root:
            root = parent[root]
        roots[x] = root
    return roots


def joined(component: Mapping[Hashable, Hashable], a: Hashable, b: Hashable) -> bool:
    """Whether `a` and `b` lie in the same piece of a `components` map (a city is joined to itself)."""
    if a == b:
        return True
    ca = component.get(a)
    return ca is not None and ca == component.get(b)


def longest_trail(edges: Iterable[Edge], shorter: int = 0) -> int:
    """The total length of the longest trail (no edge used twice) through the given weighted edges. Given
    `shorter`, one no longer than it may be answered by `shorter` itself: only a longer one is searched out."""
    pieces: dict[Hashable, list[Edge]] = {}
    edge_list = list(edges)
    component = components((a, b) for a, b, _ in edge_list)
    for edge in edge_list:
        pieces.setdefault(component[edge[0]], []).append(edge)
    best = shorter
    for piece in sorted(pieces.values(), key=lambda p: -sum(e[2] for e in p)):
        if sum(e[2] for e in piece) <= best:
            break
        best = max(best, _piece_longest(piece, best))
    return best


def _piece_longest(piece: list[Edge], known: int) -> int:
    """The longest trail of one connected piece if it is longer than `known`; else at most `known`."""
    ids: dict[Hashable, int] = {}
    ends: list[tuple[int, int, int]] = []
    for a, b, w in piece:
        ends.append((ids.setdefault(a, len(ids)), ids.setdefault(b, len(ids)), w))
    total = sum(w for _, _, w in ends)
    odd = _odd_vertices(ends, len(ids))
    if len(odd) <= 2:
        return total
    # The same piece comes up again (a bot scores many games that end alike): its answer is remembered, with
    # the `known` it was found under (an answer above it is the longest trail; one below it says no more).
    key = frozenset(Counter(piece).items())
    found = _FOUND.get(key)
    if found is not None and (found[0] > found[1] or known >= found[1]):
        return found[0]
    longest = _searched(ends, len(ids), odd, total, known)
    if len(_FOUND) >= FOUND_PIECES:
        _FOUND.clear()
    _FOUND[key] = (longest, known)
    return longest


FOUND_PIECES = 1024  # pieces remembered (then forgotten all at once)
_FOUND: dict[frozenset[tuple[Edge, int]], tuple[int, int]] = {}  # by piece (edges and how many): answer, `known`


def _searched(ends: list[tuple[int, int, int]], cities: int, odd: list[int], total: int, known: int) -> int:
    """`_piece_longest` of a piece with more than two odd cities, as city numbers."""
    ends, n, odd = _renumbered(_merge_chains(ends, cities), odd)
    parity = _Parity(ends, n, odd)
    ceiling = total - parity.least
    for join in parity.joins():
        # What a lightest T-join leaves has odd cities only at the two chosen ends, so each of its pieces
        # is an Euler trail: one piece reaches the bound; otherwise the heaviest is a good start.
        known = max(known, _heaviest_piece(ends, join))
        if known >= ceiling:
            return ceiling
    return _Search(ends, n, parity, ceiling, known).run(odd)


def _odd_vertices(ends: list[tuple[int, int, int]], n: int) -> list[int]:
    degree = [0] * n
    for a, b, _ in ends:
        degree[a] += 1
        degree[b] += 1
    return [v for v in range(n) if degree[v] % 2]


def _merge_chains(ends: list[tuple[int, int, int]], n: int) -> list[tuple[int, int, int]]:
    """Replace each city of degree 2 (not a loop) by one edge joining its two neighbours."""
    alive: dict[int, tuple[int, int, int]] = dict(enumerate(ends))
    incident: list[set[int]] = [set() for _ in range(n)]
    for i, (a, b, _) in alive.items():
        incident[a].add(i)
        incident[b].add(i)
    next_id = len(ends)
    for v in range(n):
        if len(incident[v]) != 2:
            continue
        i, j = incident[v]
        (a1, b1, w1), (a2, b2, w2) = alive[i], alive[j]
        x = b1 if a1 == v else a1
        y = b2 if a2 == v else a2
        if x == v or y == v:
            continue  # a loop at v: nothing to merge
        for k, (a, b) in ((i, (a1, b1)), (j, (a2, b2))):
            del alive[k]
            incident[a].discard(k)
            incident[b].discard(k)
        alive[next_id] = (x, y, w1 + w2)
        incident[x].add(next_id)
        incident[y].add(next_id)
        next_id += 1
    return list(alive.values())


def _renumbered(
    ends: list[tuple[int, int, int]], odd: list[int]
) -> tuple[list[tuple[int, int, int]], int, list[int]]:
    """The same edges over cities numbered 0..n-1 (merging chains leaves gaps)."""
    new: dict[int, int] = {}
    out = [(new.setdefault(a, len(new)), new.setdefault(b, len(new)), w) for a, b, w in ends]
    return out, len(new), [new[v] for v in odd]


class _Search:
    """Depth-first search over trails from odd-degree cities, with used edges kept as a bit mask."""

    def __init__(self, ends: list[tuple[int, int, int]], n: int, parity: _Parity, ceiling: int, known: int):
        self.adjacent: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]  # (bit, other end, weight)
        for i, (a, b, w) in enumerate(ends):
            self.adjacent[a].append((1 << i, b, w))
            if a != b:
                self.adjacent[b].append((1 << i, a, w))
        for options in self.adjacent:
            options.sort(key=lambda o: -o[2])
        self.parity = parity
        self.shift = n.bit_length()
        self.ceiling = ceiling
        self.best = known
        self.seen: set[int] = set()  # (used edges, city) already searched from, packed in one int

    def run(self, starts: list[int]) -> int:
        for start in starts:
            if self.best >= self.ceiling:
                break
            self._walk(start, 0, 0)
        return self.best

    def _reachable(self, v: int, used: int) -> int:
        """A bound on how far a trail can go on from `v`: the weight of the unused edges around `v`, less
        the lightest set of them that parity forces the trail to leave (see `_Parity`)."""
        counted = used
        weight = 0
        stack = [v]
        seen = 1 << v
        adjacent = self.adjacent
        odd_cities = 1 << v  # v flipped: the trail from v uses an odd number of its edges unless it ends there
        while stack:
            x = stack.pop()
            for bit, y, w in adjacent[x]:
                if not used & bit:
                    if x != y:
                        odd_cities ^= 1 << x
                    if not counted & bit:
                        counted |= bit
                        weight += w
                        if not seen >> y & 1:
                            seen |= 1 << y
                            stack.append(y)
        return weight - self.parity.leftover(odd_cities)

    def _walk(self, v: int, used: int, length: int) -> None:
        # Standing at v with the same edges used means the same length and the same ways on, whichever
        # order (or start) got here: search each such position once.
        key = used << self.shift | v
        if key in self.seen:
            return
        self.seen.add(key)
        if length > self.best:
            self.best = length
            if length >= self.ceiling:
                return
        if length + self._reachable(v, used) <= self.best:
            return
        for bit, w_end, w in self.adjacent[v]:
            if not used & bit:
                self._walk(w_end, used | bit, length + w)
                if self.best >= self.ceiling:
                    return


class _Parity:
    """The lightest sets of edges a trail can leave unused, found by the parity of degrees.

    In a trail every city but its two ends uses an even number of its edges, so the unused edges have odd
    degree exactly at the other odd cities: they form a T-join for T = the odd cities but two. The lightest
    T-join is a minimum matching of T by shortest distance, with each matched pair's shortest path.
    `least` is therefore a bound no trail can beat; `joins()` yields the lightest T-joins to try.
    """

    def __init__(self, ends: list[tuple[int, int, int]], n: int, odd: list[int]):
        inf = 1 << 60
        dist = [[inf] * n for _ in range(n)]
        hop: list[list[tuple[int, int]]] = [[(-1, -1)] * n for _ in range(n)]  # (next city, edge) towards j
        for v in range(n):
            dist[v][v] = 0
        for i, (a, b, w) in enumerate(ends):
            if a != b and w < dist[a][b]:
                dist[a][b] = dist[b][a] = w
                hop[a][b], hop[b][a] = (b, i), (a, i)
        for k in range(n):
            dk = dist[k]
            for i in range(n):
                dik = dist[i][k]
                if dik == inf:
                    continue
                di, hi, hik = dist[i], hop[i], hop[i][k]
                for j in range(n):
                    if dik + dk[j] < di[j]:
                        di[j] = dik + dk[j]
                        hi[j] = hik
        self.hop = hop
        self.dist = dist
        self.odd = odd
        self.leftovers: dict[int, int] = {0: 0, 1: 0, 2: 0}  # by (cities << 2 | ends)
        self.partner: dict[int, int] = {}  # the city matched with a set's lowest, -1 when that is the far end
        self.odd_cities = sum(1 << v for v in odd)
        self.least = self.leftover(self.odd_cities, 2)

    def leftover(self, cities: int, ends: int = 1) -> int:
        """The lightest weight a trail must leave unused among edges whose odd cities are `cities` (a bit
        mask of city numbers), `ends` of which may instead be the trail's ends: a lightest matching of the
        others by shortest distance in the whole piece (distances only grow as edges get used)."""
        key = cities << 2 | ends
        known = self.leftovers.get(key)
        if known is not None:
            return known
        low = (cities & -cities).bit_length() - 1
        rest = cities & ~(1 << low)
        best, partner = (self.leftover(rest, ends - 1), -1) if ends else (1 << 60, -2)
        row = self.dist[low]
        m = rest
        while m:
            j = (m & -m).bit_length() - 1
            m &= m - 1
            if row[j] < best:
                cost = row[j] + self.leftover(rest & ~(1 << j), ends)
                if cost < best:
                    best, partner = cost, j
        self.leftovers[key] = best
        self.partner[key] = partner
        return best

    def joins(self) -> Iterator[int]:
        """The lightest T-joins (as edge bit masks): the one found first, then one per first end."""
        yield self._join(self.odd_cities, 2)
        for v in self.odd:
            cities = self.odd_cities ^ (1 << v)
            if self.leftover(cities, 1) == self.least:
                yield self._join(cities, 1)

    def _join(self, cities: int, ends: int) -> int:
        edges = 0
        while cities:
            low = (cities & -cities).bit_length() - 1
            j = self.partner[cities << 2 | ends]
            cities &= ~(1 << low)
            if j < 0:
                ends -= 1
                continue  # low is an end of the trail
            cities &= ~(1 << j)
            u = low
            while u != j:
                u, e = self.hop[u][j]
                edges ^= 1 << e
        return edges


def _heaviest_piece(ends: list[tuple[int, int, int]], removed: int) -> int:
    kept = [(a, b, w) for i, (a, b, w) in enumerate(ends) if not removed >> i & 1]
    piece = components((a, b) for a, b, _ in kept)
    weight: dict[Hashable, int] = {}
    for a, _, w in kept:
        weight[piece[a]] = weight.get(piece[a], 0) + w
    return max(weight.values(), default=0)
