"""Checking a game's record: the hash chain, the commitments, a full replay, the final scores.

`verify_game` never trusts a cache or a snapshot: it reads every row, re-hashes it, replays the whole log
through the engine, and recomputes the final scores from the replayed board. Then it plays the game again under
the rules, each move decided anew, and compares every event with the log's (games/engine/replayed.py, as the
offline verifiers do): with the orders derived from the seeds once the log reveals them, with the log's own
shuffles before. While the game runs, a difference is told by its seq and field alone, never the hidden values.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from games.engine import Event as EngineEvent
from games.engine import State, fairness, final_score, redact
from games.engine import evolve_in_place as apply
from games.engine.codec import event_from_dict, event_to_dict
from games.engine.events import GameEndedV1, GameScored, GameStarted, SeedsRevealed
from games.engine.evolve import initial_state
from games.engine.hash_chain import GENESIS_HASH, commitment_of, hidden_fields
from games.engine.replayed import log_replayed
from games.store.event_log import row_hash
from games.store.models import Event, Game
from games.trust.shapes import Verification


def verify_game(game: Game) -> dict[str, Any]:
    """The game's verification as plain data (`manage.py verify_game`)."""
    report = verification(game)
    return {**dataclasses.asdict(report), "problems": list(report.problems)}


def verification(game: Game) -> Verification:
    rows = list(Event.objects.filter(game=game).order_by("seq"))
    problems = chain_problems(rows)
    try:
        events = [event_from_dict(row.data) for row in rows]
    except (KeyError, TypeError, ValueError) as error:
        events = None
        problems.append(f"an event cannot be read: {error!r}")
    fair = None
    if events is not None:
        problems += _replay_problems(rows, events) or _rules_problems(events, game.status == Game.Status.FINISHED)
        fair = _fairness(events, problems)
    head = rows[-1].hash if rows else GENESIS_HASH
    if head != game.head_hash or (rows[-1].seq if rows else 0) != game.seq:
        problems.append(f"the game row says seq {game.seq} / head {game.head_hash[:12]}, the log disagrees")
    return Verification(ok=not problems, events=len(rows), head_hash=head, problems=tuple(problems), fair=fair)


def _fairness(events: list[EngineEvent], problems: list[str]) -> bool | None:
    """Every random outcome recomputed from the seeds the log reveals (X-RNG-2): None for a game without fair
    chance, or one whose server seed is not revealed yet (it is not over)."""
    verdict = fairness.log_checked(events)
    if verdict is None or not any(isinstance(event, SeedsRevealed) for event in events):
        return None
    if not verdict.fair:
        problems.append(f"chance: {verdict.problem}")
    return verdict.fair


def _rules_problems(events: list[EngineEvent], finished: bool) -> list[str]:
    """The first event that is not what the rules give; its values only once the game is over (nothing is
    hidden then), its seq and field before."""
    seeds = fairness.revealed_seeds(events)
    difference = log_replayed(events, seeds.game_seed() if seeds is not None else None).difference
    if difference is None:
        return []
    if finished:
        return [f"seq {difference.seq}: the rules give another event: {difference}"]
    return [f"seq {difference.seq}: the rules give another {difference.field} of {difference.type} than the log holds"]


def chain_problems(rows: list[Event]) -> list[str]:
    problems, prev = [], GENESIS_HASH
    for expected_seq, row in enumerate(rows, start=1):
        if row.seq != expected_seq:
            problems.append(f"seq {row.seq}: expected seq {expected_seq} (a gap or a removed event)")
        if row.prev_hash != prev:
            problems.append(f"seq {row.seq}: prev_hash does not match the hash of seq {row.seq - 1}")
        digest = row_hash(
            row.prev_hash, row.seq, row.type, row.seat, row.data, row.commitment, row.salt, row.created_at,
            row.reason,
        )
        if digest != row.hash:
            problems.append(f"seq {row.seq}: the row was altered (its hash does not match its content)")
        if row.commitment and not _commitment_holds(row):
            problems.append(f"seq {row.seq}: the commitment does not match the hidden outcome")
        prev = row.hash
    return problems


def _commitment_holds(row: Event) -> bool:
    event = event_from_dict(row.data)
    hidden = hidden_fields(row.data, event_to_dict(redact(event, None)))
    return commitment_of(row.salt, hidden) == row.commitment


def _replay_problems(rows: list[Event], events: list[EngineEvent]) -> list[str]:
    if not rows:
        return []
    if not isinstance(events[0], GameStarted):
        return ["seq 1: the log does not start with game_started"]
    state = initial_state(events[0])
    for row, event in zip(rows[1:], events[1:], strict=True):
        if event.type != row.type:
            return [f"seq {row.seq}: the row's type {row.type!r} differs from its data's {event.type!r}"]
        try:
            if isinstance(event, GameScored | GameEndedV1):
                problem = _score_problem(state, event, row.seq)
                if problem:
                    return [problem]
            apply(state, event)
        except Exception as error:  # any failure to replay is a finding, not a crash
            return [f"seq {row.seq}: the engine cannot replay this event ({error!r})"]
    return []


def _score_problem(state: State, event: GameScored | GameEndedV1, seq: int) -> str | None:
    if isinstance(event, GameScored) and (not state.finished or state.scores):
        return f"seq {seq}: a game is scored once, after it ended"
    result = final_score(
        state.board, state.player_count, state.route_owner, state.station_owner,
        [p.tickets for p in state.players],
    )
    if result.scores != event.scores or result.winner_seats != event.winner_seats:
        recomputed = [dataclasses.asdict(s)["total"] for s in result.scores]
        logged = [s.total for s in event.scores]
        return f"seq {seq}: final scores {logged} differ from the recomputed {recomputed}"
    return None
