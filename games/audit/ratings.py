"""The site's rating update in plain Python: openskill's Plackett-Luce model with its default parameters
(openskill 6, `PlackettLuce(mu=25, sigma=25/3)`: the site's RATING_MU and RATING_SIGMA, games/play/models.py), so
that a verifier of the dumps recomputes every rating change with the standard library alone.

`rated(priors, entries)` is games/play/ratings.py's `rated`: the match is one team of one per seat, in seat order,
each with its account's rating before the game; an account that holds several seats enters once per seat with
the same prior, and its result is the mean of its seats' results (mu and sigma each, in seat order).

`plackett_luce(ratings, ranks)` is openskill's `PlackettLuce.rate` for teams of one with ranks (no scores, no
weights, no balance, no sigma limit), each operation in openskill's order so that the floats agree:

1. every sigma is widened by tau: sqrt(sigma^2 + tau^2);
2. the players are sorted by rank (a stable sort: tied players keep their seat order);
3. c = sqrt(sum of (sigma^2 + beta^2)); for each rank q, sum_q = the sum of exp(mu_i / c) over the players i
   ranked at q or below; a_q = how many players share q's rank;
4. for each player i, over the players q ranked at i's rank or above, with p = exp(mu_i / c) / sum_q:
   omega_i = sum of ((1 - p) if q is i else -p) / a_q, times sigma_i^2 / c;
   delta_i = sum of p (1 - p) / a_q, times sigma_i^2 / c^2, times gamma = sigma_i / c;
5. mu_i += sigma_i^2 / sigma_i^2 * omega_i, sigma_i *= sqrt(max(1 - sigma_i^2 / sigma_i^2 * delta_i, kappa)),
   back in seat order.

(openskill then averages the mu changes of tied players; but it reads both sides of that difference from the same
updated objects, so the average is 0 and nothing changes: there is nothing of it to reproduce here.)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

RATING_MU = 25.0  # games/play/models.py
RATING_SIGMA = 25.0 / 3
BETA = 25.0 / 6.0  # openskill's defaults
KAPPA = 0.0001
TAU = 25.0 / 300.0

Prior = tuple[float, float]  # (mu, sigma)


@dataclass(frozen=True)
class Entry:
    """One seat of a rated game: whose account it rates, and its place (1 = first; tied seats share one)."""

    seat: int
    user_id: int
    place: int


def plackett_luce(ratings: Sequence[Prior], ranks: Sequence[int]) -> list[Prior]:
    """Each player's (mu, sigma) after a game of teams of one, from their (mu, sigma) before and their ranks
    (lower is better), in the players' order: openskill's PlackettLuce().rate([[r] for r in ratings], ranks)."""
    if len(ratings) != len(ranks):
        raise ValueError(f"{len(ratings)} ratings but {len(ranks)} ranks")
    tau_squared = TAU * TAU
    widened = [(mu, math.sqrt(sigma * sigma + tau_squared)) for mu, sigma in ratings]
    order = sorted(range(len(ratings)), key=lambda index: ranks[index])
    mus = [widened[index][0] for index in order]
    sigmas = [widened[index][1] for index in order]
    sorted_ranks = [int(ranks[index]) for index in order]
    variances = [(sigma * 1.0) ** 2 for sigma in sigmas]

    beta_squared = BETA**2
    collective = 0.0
    for variance in variances:
        collective += variance + beta_squared
    c = math.sqrt(collective)

    sum_q = [0.0] * len(mus)
    for i, mu in enumerate(mus):
        summed = math.exp(mu / c)
        for q, rank in enumerate(sorted_ranks):
            if sorted_ranks[i] >= rank:
                sum_q[q] += summed
    a = [sorted_ranks.count(rank) for rank in sorted_ranks]

    results: list[Prior] = []
    for i, (mu, sigma) in enumerate(zip(mus, sigmas, strict=True)):
        omega, delta = 0.0, 0.0
        mine = math.exp(mu / c)
        for q, rank in enumerate(sorted_ranks):
            if rank <= sorted_ranks[i]:
                p = mine / sum_q[q]
                delta += p * (1 - p) / a[q]
                if q == i:
                    omega += (1 - p) / a[q]
                else:
                    omega -= p / a[q]
        omega *= variances[i] / c
        delta *= variances[i] / c**2
        delta *= math.sqrt(variances[i]) / c
        share = sigma**2 / variances[i]
        if omega >= 0:
            new_mu = mu + share * omega * 1.0
            new_sigma = sigma * math.sqrt(max(1 - share * delta * 1.0, KAPPA))
        else:
            new_mu = mu + share * omega / 1.0
            new_sigma = sigma * math.sqrt(max(1 - share * delta / 1.0, KAPPA))
        results.append((new_mu, new_sigma))

    in_seat_order: list[Prior] = [(0.0, 0.0)] * len(results)
    for position, index in enumerate(order):
        in_seat_order[index] = results[position]
    return in_seat_order


def rated(priors: dict[int, Prior], entries: Iterable[Entry]) -> dict[int, Prior]:
    """Each account's (mu, sigma) after one game, from its (mu, sigma) before (games/play/ratings.py `rated`)."""
    ordered = sorted(entries, key=lambda entry: entry.seat)
    results = plackett_luce([priors[entry.user_id] for entry in ordered], [entry.place for entry in ordered])
    by_account: dict[int, list[Prior]] = {}
    for entry, result in zip(ordered, results, strict=True):
        by_account.setdefault(entry.user_id, []).append(result)
    return {
        user: (sum(mu for mu, _ in rs) / len(rs), sum(sigma for _, sigma in rs) / len(rs))
        for user, rs in by_account.items()
    }
