"""A tournament's points, tie-breaks and ranking (docs/TOURNAMENTS.md, rules T-PTS-1 to T-PTS-4). Pure: no framework.

- **Points (T-PTS-1).** A game gives each person at the table one point for every other seat they finished ahead of
  and half a point for every seat they tied with, divided by the seats less one: a win is 1, last place 0, whatever
  the table's size, so tables of 2 to 5 weigh the same. Bots are seats like any other (finishing ahead of a bot
  counts), but a bot is never ranked.
- **Bye (T-PTS-2).** A Swiss round that cannot seat a person (the seats do not divide and bots may not fill) gives
  them a bye worth `BYE_POINTS` (a win), and no game; a person has at most one bye while another has none.
- **Tie-breaks (T-PTS-3)**, in this order: the sum of the points of every person met (once per game met, bots
  excluded), then the total of the person's game scores, then a draw from the tournament's seed (`draw_key`),
  so two people are never tied in the ranking.
- **Withdrawn (T-PTS-4)** people keep their points and their place in the standings, marked withdrawn.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from games.engine.seeds import Stream

BYE_POINTS = Fraction(1)
BOT = "bot:"  # a bot's seat at a table is named "bot:<level>"


def is_bot(name: str) -> bool:
    return name.startswith(BOT)


@dataclass(frozen=True, slots=True)
class Result:
    """One finished game of the tournament: every seat's name (a player or "bot:<level>"), place (1 first, ties
    share a place) and game score, in seat order."""

    game: str
    round: int
    seats: tuple[str, ...]
    places: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Entrant:
    player: str  # how the tournament's record names a person: their account id, as text
    rating: float  # the conservative rating on the tournament's map when they registered (0 for a new player)
    withdrawn: bool = False


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    player: str
    points: Fraction
    opponents_points: Fraction
    score_total: int
    games: int
    byes: int
    withdrawn: bool
    rating: float
    draw: int  # the seed's draw, the last tie-break


def game_points(places: Sequence[int], seat: int) -> Fraction:
    """T-PTS-1: the points of `seat` at a table whose places are `places`."""
    return Fraction(_halves(places, seat), 2 * (len(places) - 1))


def _halves(places: Sequence[int], seat: int) -> int:
    """Two for every other seat `seat` finished ahead of, one for every seat it tied with."""
    mine = places[seat]
    return sum(2 if place > mine else 1 for other, place in enumerate(places) if other != seat and place >= mine)


def draw_key(seed: bytes, player: str) -> int:
    """T-PTS-3's last tie-break: a 64-bit word of the seed's stream labelled with the player."""
    return Stream(seed, f"tiebreak:{player}").word()


def standings(
    entrants: Iterable[Entrant], results: Iterable[Result], byes: Mapping[str, int], seed: bytes
) -> list[Standing]:
    """Every entrant ranked by points, then T-PTS-3's tie-breaks; ranks 1, 2, 3... with no ties.

    Points are added up as whole multiples of one `unit` (1 / the least common multiple of every table's 2 * (seats
    - 1) and the bye's denominator): exact, as fractions are, and many times faster for a large tournament."""
    people = {entrant.player: entrant for entrant in entrants}
    results = list(results)
    unit = lcm(BYE_POINTS.denominator, *(2 * (len(result.seats) - 1) for result in results))
    bye = int(BYE_POINTS * unit)
    points = {name: bye * byes.get(name, 0) for name in people}
    scores = dict.fromkeys(people, 0)
    games = dict.fromkeys(people, 0)
    met: dict[str, list[str]] = {name: [] for name in people}
    for result in results:
        per_half = unit // (2 * (len(result.seats) - 1))
        for seat, name in enumerate(result.seats):
            if name not in people:
                continue
            points[name] += _halves(result.places, seat) * per_half
            scores[name] += result.scores[seat]
            games[name] += 1
            met[name].extend(other for other in result.seats if other != name and other in people)
    opponents = {name: sum(points[other] for other in met[name]) for name in people}
    draws = {name: draw_key(seed, name) for name in people}
    order = sorted(people, key=lambda name: (-points[name], -opponents[name], -scores[name], -draws[name]))
    return [
        Standing(
            rank, name, Fraction(points[name], unit), Fraction(opponents[name], unit), scores[name], games[name],
            byes.get(name, 0), people[name].withdrawn, people[name].rating, draws[name],
        )
        for rank, name in enumerate(order, start=1)
    ]


def meetings(results: Iterable[Result]) -> dict[frozenset[str], int]:
    """How many games each two people have played at the same table (bots left out)."""
    count: dict[frozenset[str], int] = {}
    for result in results:
        people = [name for name in result.seats if not is_bot(name)]
        for i, one in enumerate(people):
            for other in people[i + 1:]:
                pair = frozenset((one, other))
                count[pair] = count.get(pair, 0) + 1
    return count
