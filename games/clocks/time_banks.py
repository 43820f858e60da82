"""Daily clocks (docs/RULES.md X-TIME-1, docs/API.md Playing by day): each decision has `days_per_move`; once they are
spent the seat draws on its bank of `bank_days`, and a seat whose bank is empty when its move's days are spent
has timed out. A player's vacations stop their clocks. Pure: the log's rows and the vacations in, times out.

What a seat spent is read from the log alone. In the setup phase every seat chooses its tickets from the first
event on, so a seat's setup decision runs from event 1 to its `tickets_kept` (or `turn_timed_out`). After it, a
decision runs from the event before to the seat's own next event: the rows of one move are written together, so
the gaps inside a move are nothing. A decision that ran longer than its days (less any vacation) took the
excess from the bank. What happens to a seat beside the moves (a resignation, an operator's replacement or grant
of time: `ASIDE`) neither ends the decision in progress nor starts one; a grant adds its seconds to the seat's bank.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

Interval = tuple[datetime, datetime]  # a vacation: [start, end)
NO_TIME = timedelta(0)

# Rows beside the moves: appended while a decision runs, they neither end it nor open another.
ASIDE = frozenset({"seat_resigned", "seat_replaced", "time_granted", "hint_used"})
# Rows with a seat that are not that seat's decision: no time is charged for them.
_NOT_A_DECISION = frozenset({"game_scored", "game_ended", "last_round_started"})


@dataclass(frozen=True, slots=True)
class Row:
    seq: int
    seat: int | None
    type: str
    at: datetime
    granted: timedelta = timedelta(0)  # a `time_granted` row's seconds


def opening(rows: Sequence[Row]) -> Row | None:
    """The row that opened the decision in progress after the setup: the last one that is not beside the moves."""
    return next((row for row in reversed(rows) if row.type not in ASIDE), None)


def paused(start: datetime, end: datetime, pauses: Sequence[Interval]) -> timedelta:
    """How much of [start, end) the vacations cover."""
    covered = NO_TIME
    for pause_start, pause_end in pauses:
        overlap = min(end, pause_end) - max(start, pause_start)
        if overlap > NO_TIME:
            covered += overlap
    return covered


def merged(pauses: Sequence[Interval]) -> list[Interval]:
    """The vacations sorted, overlapping ones joined."""
    out: list[Interval] = []
    for start, end in sorted(pauses):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def run_until(opened: datetime, allowance: timedelta, pauses: Sequence[Interval]) -> datetime:
    """When a clock started at `opened` with `allowance` on it runs out, standing still through the vacations."""
    moment, left = opened, allowance
    for start, end in merged(pauses):
        if end <= moment:
            continue
        if start >= moment + left:
            break
        if start > moment:
            left -= start - moment
        moment = end
    return moment + left


def banks_left(
    rows: Sequence[Row], players: int, per_move: timedelta, bank: timedelta, pauses: Mapping[int, Sequence[Interval]]
) -> tuple[list[timedelta], bool]:
    """Each seat's bank left after the decisions in `rows` (the log from event 1, in order), and whether the
    setup phase is still on (then every seat's open decision started at event 1)."""
    left = [bank] * players
    if not rows:
        return left, True
    first_at = rows[0].at
    kept: set[int] = set()
    charged: set[int] = set()
    setup = True
    previous = first_at

    def charge(seat: int, opened: datetime, closed: datetime) -> None:
        used = closed - opened - paused(opened, closed, pauses.get(seat, ()))
        if used > per_move:
            left[seat] = max(NO_TIME, left[seat] - (used - per_move))

    for row in rows:
        seat = row.seat
        if row.type in ASIDE:
            if seat is not None and 0 <= seat < players:
                left[seat] += row.granted
            continue
        if seat is not None and 0 <= seat < players:
            if setup:
                if row.type in ("tickets_kept", "turn_timed_out") and seat not in charged:
                    charge(seat, first_at, row.at)
                    charged.add(seat)
                if row.type == "tickets_kept":
                    kept.add(seat)
            elif row.type not in _NOT_A_DECISION:
                charge(seat, previous, row.at)
            if row.type == "turn_timed_out":
                left[seat] = NO_TIME  # the decision took every day the seat had
        if setup and len(kept) == players:
            setup = False
        previous = row.at
    return left, setup


def deadlines(
    rows: Sequence[Row], players: int, deciders: Sequence[int], per_move: timedelta, bank: timedelta,
    pauses: Mapping[int, Sequence[Interval]], share: float = 1.0,
) -> dict[int, datetime]:
    """When each deciding seat's decision times out (`share` < 1: when that share of its time is spent)."""
    if not rows:
        return {}
    left, setup = banks_left(rows, players, per_move, bank, pauses)
    opened = rows[0].at if setup else (opening(rows) or rows[0]).at
    return {
        seat: run_until(opened, (per_move + left[seat]) * share, pauses.get(seat, ())) for seat in deciders
    }
