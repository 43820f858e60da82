"""Graph questions about one player's routes: which cities are joined, and the longest continuous path.

The longest continuous path (C-LNG-1) is the longest *trail*: a walk that may pass a city many times but
uses each route at most once, weighted by route length. Finding it is NP-hard in general, but player
networks are small, and three facts keep the exact search cheap:

- Each connected piece is searched on its own, and a piece no heavier than the best found is skipped.
- A piece with 0 or 2 odd-degree cities has an Euler trail: its whole weight is the answer.
- Otherwise a longest trail starts (and ends) at an odd-degree city, so only those are tried; chains of
  degree-2 cities are first merged into single weighted edges, and the search is bounded both by the
  weight still reachable from where it stands and by the best any trail of the piece could reach.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping

Edge = tuple[Hashable, Hashable, int]  # (city, city, length)


def components(edges: Iterable[tuple[Hashable, Hashable]]) -> dict[Hashable, Hashable]:
    """A representative city for every city the edges touch: two cities are joined iff they share one."""
    parent: dict[Hashable, Hashable] = {}

    def find(x: Hashable) -> Hashable:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    for a, b in edges:
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return {x: find(x) for x in parent}


def joined(component: Mapping[Hashable, Hashable], a: Hashable, b: Hashable) -> bool:
    """Whether `a` and `b` lie in the same piece of a `components` map (a city is joined to itself)."""
    if a == b:
        return True
    ca = component.get(a)
    return ca is not None and ca == component.get(b)


def longest_trail(edges: Iterable[Edge]) -> int:
    """The total length of the longest trail (no edge used twice) through the given weighted edges."""
    pieces: dict[Hashable, list[Edge]] = {}
    edge_list = list(edges)
    component = components((a, b) for a, b, _ in edge_list)
    for edge in edge_list:
        pieces.setdefault(component[edge[0]], []).append(edge)
    best = 0
    for piece in sorted(pieces.values(), key=lambda p: -sum(e[2] for e in p)):
        if sum(e[2] for e in piece) <= best:
            break
        best = max(best, _piece_longest(piece, best))
    return best


def _piece_longest(piece: list[Edge], known: int) -> int:
    ids: dict[Hashable, int] = {}
    ends: list[tuple[int, int, int]] = []
    for a, b, w in piece:
        ends.append((ids.setdefault(a, len(ids)), ids.setdefault(b, len(ids)), w))
    total = sum(w for _, _, w in ends)
    odd = _odd_vertices(ends, len(ids))
    if len(odd) <= 2:
        return total
    ends = _merge_chains(ends, len(ids))
    return _Search(ends, len(ids), total, len(odd), known).run(_odd_vertices(ends, len(ids)))


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


class _Search:
    """Depth-first search over trails from odd-degree cities, with used edges kept as a bit mask."""

    def __init__(self, ends: list[tuple[int, int, int]], n: int, total: int, odd_count: int, known: int):
        self.adjacent: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]  # (bit, other end, weight)
        for i, (a, b, w) in enumerate(ends):
            self.adjacent[a].append((1 << i, b, w))
            if a != b:
                self.adjacent[b].append((1 << i, a, w))
        for options in self.adjacent:
            options.sort(key=lambda o: -o[2])
        self.weights = [w for _, _, w in ends]
        # Every odd city but the two ends keeps an unused edge, and one edge spares at most two of them.
        self.ceiling = total - ((odd_count - 2 + 1) // 2) * min(self.weights)
        self.best = known

    def run(self, starts: list[int]) -> int:
        for start in starts:
            if self.best >= self.ceiling:
                break
            self._walk(start, 0, 0)
        return self.best

    def _reachable(self, v: int, used: int) -> int:
        """The weight of unused edges in the piece of unused edges around `v`."""
        seen_edges = used
        weight = 0
        stack = [v]
        seen = {v}
        adjacent = self.adjacent
        while stack:
            x = stack.pop()
            for bit, y, w in adjacent[x]:
                if not seen_edges & bit:
                    seen_edges |= bit
                    weight += w
                    if y not in seen:
                        seen.add(y)
                        stack.append(y)
        return weight

    def _walk(self, v: int, used: int, length: int) -> None:
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
