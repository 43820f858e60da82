"""The checks of one game line of a dump (docs/AUDIT.md, "The game line"), all of it from the line alone:

- its audit log: the hash chain, the commitments, the signed checkpoint (its key valid when the game was scored),
  the rules replayed move by move to the game's end, the chance derived from the revealed seeds
  (games/audit/log_checks.py);
- the summary's id and seq are the log's, `checkpoint` is the last audit line's, `seeds` is what the log reveals;
- its rating changes: a ranked, scored game rates every seat once and an unranked or aborted game none; each
  seat's place is its place in `game_scored` (the rules' order: the higher total first, ties broken as the rules
  break them, tied seats sharing a place), players who resigned after everyone else; and each account's after is
  recomputed from its before and the places (games/audit/ratings.py, within RATING_TOLERANCE).

What it cannot check alone, the chaining of ratings from game to game and the line's place in its month's
manifest, it hands back (`GameChecked`) to the dump's verifier.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.audit.keys import KeyRing
from games.audit.log_checks import (
    READ_ERRORS,
    chain_problems,
    checkpoint_problems,
    commitment_problems,
    decoded_events,
    fairness_problems,
    rules_problems,
)
from games.audit.ratings import Entry, Prior, rated
from games.engine import Event, SeatScore
from games.engine import events as ev
from games.engine.fairness import revealed_seeds
from games.engine.seeds import Seeds

FORMAT = "ttr-game/1"
RATING_TOLERANCE = 1e-9  # a recomputed mu or sigma within this of the dump's holds (the floats agree to the bit
# where the verifier runs the server's Python; another libm's exp may differ in the last bit)


@dataclass(frozen=True)
class RatingStep:
    """One account's rating change in one game, for chaining it to the account's previous one on the map."""

    order: int
    user: int
    map: str
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass(frozen=True)
class GameChecked:
    """What one line's checks found: the game's id, its log's last seq and head hash, when it finished, how many
    events it holds, the problems (each a text naming what failed) and the rating changes to chain."""

    id: str
    seq: int | None
    head_hash: str | None
    finished_at: str | None
    events: int
    problems: tuple[str, ...]
    ratings: tuple[RatingStep, ...]


def line_checked(text: str | bytes, ring: KeyRing) -> GameChecked:
    """Every check of one game line (a JSON object) that needs nothing but the line and the keys."""
    try:
        line = json.loads(text)
    except ValueError as error:
        return GameChecked("unknown", None, None, None, 0, (f"the line is not JSON ({error})",), ())
    game = line.get("game") if isinstance(line, dict) else None
    game_id = str(game.get("id")) if isinstance(game, dict) else "unknown"
    try:
        return _checked(line, game_id, ring)
    except READ_ERRORS as error:
        return GameChecked(game_id, None, None, None, 0, (f"the line cannot be read ({error!r})",), ())
    except Exception as error:  # the line is untrusted: whatever it makes a check raise, that check fails
        return GameChecked(game_id, None, None, None, 0, (f"the checks stopped on this line ({error!r})",), ())


def _checked(line: dict[str, Any], game_id: str, ring: KeyRing) -> GameChecked:
    problems: list[str] = []
    if line.get("format") != FORMAT:
        problems.append(f"format {line.get('format')!r}, expected {FORMAT!r}")
    game, audit = line["game"], line["audit"]
    if not isinstance(game, dict) or not isinstance(audit, list) or not all(isinstance(a, dict) for a in audit):
        raise TypeError("game is not an object or audit not a list of objects")
    problems += chain_problems(audit)
    problems += checkpoint_problems(audit, ring)
    last_checkpoint = audit[-1].get("checkpoint") if audit else None
    if line.get("checkpoint") != last_checkpoint:
        problems.append("checkpoint: not the one on the audit log's last line")
    if isinstance(last_checkpoint, dict) and str(last_checkpoint.get("game")) != game_id:
        problems.append(f"checkpoint: it signs game {last_checkpoint.get('game')}, the line is game {game_id}")
    if game.get("seq") != len(audit):
        problems.append(f"the summary says seq {game.get('seq')}, the audit log holds {len(audit)} events")
    steps: list[RatingStep] = []
    events, unreadable = decoded_events(audit)
    problems += unreadable
    if events is not None:
        problems += commitment_problems(audit, events)
        problems += rules_problems(events)
        problems += fairness_problems(events)[1]
        problems += seeds_problems(line.get("seeds"), events)
        found, steps = rating_problems(line.get("ratings"), game, events)
        problems += found
    finished_at = line.get("finished_at")
    if not isinstance(finished_at, str):
        problems.append(f"finished_at {finished_at!r} is not a time")
        finished_at = None
    last = audit[-1] if audit else {}
    return GameChecked(
        game_id, last.get("seq"), last.get("hash"), finished_at, len(audit), tuple(problems), tuple(steps)
    )


# The fields `seeds` may hold, each with what the log's seeds give for it; the first two must be there.
def _seed_fields(seeds: Seeds, committed: ev.SeedsCommitted | None) -> dict[str, object]:
    fields: dict[str, object] = {
        "server_seed": seeds.server.hex(),
        "client_seeds": [seed.hex() for seed in seeds.clients],
        "server_seed_hash": seeds.server_hash,
        "game_seed": seeds.game_seed().hex(),
    }
    if committed is not None:
        fields["first_seat_drawn"] = committed.first_seat_drawn
    return fields


REQUIRED_SEED_FIELDS = ("server_seed", "client_seeds")


def seeds_problems(claimed: object, events: Sequence[Event]) -> list[str]:
    """The line's `seeds` against the seeds the log reveals (null when it reveals none): `server_seed` and
    `client_seeds` (hex) must be there, and any of `server_seed_hash`, `game_seed`, `first_seat_drawn` that is
    there must be what the log's seeds give."""
    seeds = revealed_seeds(events)
    if seeds is None:
        return [] if claimed is None else ["seeds: the line gives seeds, the log reveals none"]
    if not isinstance(claimed, dict):
        return [f"seeds: {claimed!r}, yet the log reveals the seeds"]
    committed = next((e for e in events if isinstance(e, ev.SeedsCommitted)), None)
    expected = _seed_fields(seeds, committed)
    problems = [f"seeds: no {name}" for name in REQUIRED_SEED_FIELDS if name not in claimed]
    for name, value in claimed.items():
        if name not in expected:
            problems.append(f"seeds: a field {name!r} the verifier does not know")
        elif value != expected[name]:
            problems.append(f"seeds: {name} is {value!r}, the log reveals {expected[name]!r}")
    return problems


def final_scores(events: Sequence[Event]) -> ev.GameScored | ev.GameEndedV1 | None:
    """The log's final score (an old log's is inside its `game_ended`); None for a game not scored."""
    return next((e for e in reversed(events) if isinstance(e, ev.GameScored | ev.GameEndedV1)), None)


def resigned_seats(game: dict[str, Any], events: Sequence[Event]) -> tuple[set[int], list[str]]:
    """The seats whose players left (the summary's `resigned`: a stand-in bot finished for them), and where the
    log says otherwise: a seat whose last word in the log is `seat_resigned` left, one last given to another
    person (`seat_replaced` by "account:...") did not."""
    resigned = {int(seat["seat"]) for seat in game.get("seats") or () if seat.get("resigned")}
    last: dict[int, str] = {}
    for event in events:
        if isinstance(event, ev.SeatResigned):
            last[event.seat] = "resigned"
        elif isinstance(event, ev.SeatReplaced):
            last[event.seat] = "person" if event.by.startswith("account:") else "bot"
    problems = [
        f"ratings: the log says seat {seat} {'left' if word == 'resigned' else 'went to another person'}, "
        f"the summary says it {'did not' if word == 'resigned' else 'left'}"
        for seat, word in sorted(last.items())
        if (word == "resigned" and seat not in resigned) or (word == "person" and seat in resigned)
    ]
    return resigned, problems


def rated_places(scores: Sequence[SeatScore], resigned: set[int]) -> dict[int, int]:
    """Each seat's place for the ratings (games/play/scoring.py `rated_places`): the score's places among the
    players who stayed, then everyone who resigned, sharing the place after them."""
    stayed = {s.seat: s.place for s in scores if s.seat not in resigned}
    places = {seat: 1 + sum(1 for other in stayed.values() if other < place) for seat, place in stayed.items()}
    places.update(dict.fromkeys(resigned, len(stayed) + 1))
    return places


def _whole(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"ratings: {name} {value!r} is not a whole number")
    return value


def _real(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"ratings: {name} {value!r} is not a number")
    return float(value)


def rating_problems(
    ratings: object, game: dict[str, Any], events: Sequence[Event]
) -> tuple[list[str], list[RatingStep]]:
    """The game's rating changes against its score, each account's after recomputed from its before; the
    changes that can be chained to the account's others (`RatingStep`)."""
    if not isinstance(ratings, list):
        return [f"ratings: {ratings!r} is not a list"], []
    scored = final_scores(events)
    if not game.get("ranked") or scored is None:
        why = "an unranked" if not game.get("ranked") else "an unscored (aborted)"
        return ([f"ratings: {len(ratings)} rating changes for {why} game"] if ratings else []), []
    if not ratings:
        return ["ratings: none for a ranked game that was scored"], []
    resigned, problems = resigned_seats(game, events)
    places = rated_places(scored.scores, resigned)
    priors: dict[int, Prior] = {}
    entries: list[Entry] = []
    for change in ratings:
        user = _whole(change["user"], "user")
        if user in priors:
            problems.append(f"ratings: account {user} has two rating changes")
        priors[user] = (_real(change["mu_before"], "mu_before"), _real(change["sigma_before"], "sigma_before"))
        seat_places = {int(seat): _whole(place, "a seat's place") for seat, place in change["seat_places"].items()}
        if not seat_places:
            problems.append(f"ratings: account {user}'s change names no seat")
            continue
        for seat, place in sorted(seat_places.items()):
            if any(entry.seat == seat for entry in entries):
                problems.append(f"ratings: seat {seat} is rated twice")
            if places.get(seat) != place:
                problems.append(
                    f"ratings: seat {seat} (account {user}) is placed {place}, the score places it {places.get(seat)}"
                )
            entries.append(Entry(seat, user, place))
        best = min(seat_places.values())
        if change["place"] != best:
            problems.append(f"ratings: account {user}'s place is {change['place']}, its seats' best is {best}")
        if change["map"] != game.get("map"):
            problems.append(f"ratings: account {user} is rated on map {change['map']!r}, the game's is {game.get('map')!r}")
    rated_seats = sorted(entry.seat for entry in entries)
    if rated_seats != sorted(places):
        problems.append(f"ratings: the changes rate seats {rated_seats}, the game has seats {sorted(places)}")
    steps = [
        RatingStep(
            _whole(change["order"], "order"), _whole(change["user"], "user"), str(change["map"]),
            _real(change["mu_before"], "mu_before"), _real(change["sigma_before"], "sigma_before"),
            _real(change["mu_after"], "mu_after"), _real(change["sigma_after"], "sigma_after"),
        )
        for change in ratings
    ]
    if problems:  # the changes do not describe this game's seats: nothing sound to recompute (they still chain)
        return problems, steps
    after = rated(priors, entries)
    for step in steps:
        claimed = (step.mu_after, step.sigma_after)
        if not all(abs(c - a) <= RATING_TOLERANCE for c, a in zip(claimed, after[step.user], strict=True)):  # NaN too
            problems.append(
                f"ratings: account {step.user}'s (mu, sigma) after is {claimed}, its before "
                f"{(step.mu_before, step.sigma_before)} and the places give {after[step.user]}"
            )
    return problems, steps
