"""Longest path (C-LNG-1, E-STA-5) and connectivity against brute force on many small random networks."""

from __future__ import annotations

import random

import pytest

from games.engine.paths import components, joined, longest_trail


def brute_longest_trail(edges: list[tuple[int, int, int]]) -> int:
    """Every trail from every city, no pruning."""
    best = 0

    def walk(v: int, used: frozenset[int], length: int) -> None:
        nonlocal best
        best = max(best, length)
        for i, (a, b, w) in enumerate(edges):
            if i not in used and v in (a, b):
                walk(b if v == a else a, used | {i}, length + w)

    for v in {x for a, b, _ in edges for x in (a, b)}:
        walk(v, frozenset(), 0)
    return best


def random_network(rng: random.Random, cities: int, routes: int) -> list[tuple[int, int, int]]:
    edges = []
    for _ in range(routes):
        a, b = rng.randrange(cities), rng.randrange(cities)
        if a == b and rng.random() < 0.8:
            continue
        edges.append((a, b, rng.randint(1, 6)))
    return edges


@pytest.mark.parametrize("seed", range(400))
def test_c_lng_1_longest_trail_matches_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    edges = random_network(rng, rng.randint(2, 7), rng.randint(1, 9))
    assert longest_trail(edges) == brute_longest_trail(edges)


def test_c_lng_1_loops_and_revisits_count() -> None:
    # A figure eight through city 0: both loops and the tail, passing 0 twice.
    edges = [(0, 1, 2), (1, 2, 2), (2, 0, 2), (0, 3, 3), (3, 4, 3), (4, 0, 3), (0, 5, 1)]
    assert longest_trail(edges) == 16


def test_c_lng_1_a_route_is_never_used_twice() -> None:
    # A star: the best trail takes the two longest arms, never an arm back.
    assert longest_trail([(0, 1, 4), (0, 2, 3), (0, 3, 2)]) == 7


def test_c_lng_1_separate_pieces_do_not_add_up() -> None:
    assert longest_trail([(0, 1, 4), (2, 3, 5)]) == 5
    assert longest_trail([]) == 0


def test_components_join_exactly_the_connected_cities() -> None:
    piece = components([("a", "b"), ("b", "c"), ("d", "e")])
    assert joined(piece, "a", "c")
    assert not joined(piece, "a", "d")
    assert not joined(piece, "a", "z")
    assert joined(piece, "z", "z")
