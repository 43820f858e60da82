"""Daily clocks (games/clocks/time_banks.py, docs/RULES.md X-TIME-1): a move's days, then the bank; vacations stop the clock.
Pure: rows and vacations in, banks and deadlines out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from games.clocks.time_banks import Row, banks_left, deadlines, merged, paused, run_until

T0 = datetime(2026, 1, 1, tzinfo=UTC)
DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def setup_rows(kept_at: dict[int, float]) -> list[Row]:
    """A two-seat game's first events, then each seat's setup tickets_kept at the given hour."""
    rows = [Row(1, None, "game_started", T0), Row(2, 0, "tickets_dealt", T0), Row(3, 1, "tickets_dealt", T0)]
    for seq, (seat, hours) in enumerate(sorted(kept_at.items(), key=lambda item: item[1]), start=4):
        rows.append(Row(seq, seat, "tickets_kept", at(hours)))
    return rows


def test_x_time_1_a_setup_decision_within_its_day_leaves_the_bank_whole() -> None:
    left, setup = banks_left(setup_rows({0: 5, 1: 23}), 2, DAY, 3 * DAY, {})
    assert left == [3 * DAY, 3 * DAY] and not setup


def test_x_time_1_setup_runs_from_event_1_for_every_seat_and_the_excess_comes_from_the_bank() -> None:
    left, _ = banks_left(setup_rows({0: 2, 1: 30}), 2, DAY, 3 * DAY, {})
    assert left == [3 * DAY, 3 * DAY - 6 * HOUR]  # seat 1 took 30 h: 6 h past its day


def test_x_time_1_after_setup_a_decision_runs_from_the_event_before_it() -> None:
    rows = setup_rows({0: 1, 1: 2})
    rows.append(Row(6, 0, "card_drawn", at(2 + 40)))  # seat 0 took 40 h: 16 h from the bank
    rows.append(Row(7, 0, "card_drawn", at(2 + 40)))
    rows.append(Row(8, 1, "route_claimed", at(42 + 10)))  # seat 1 took 10 h
    left, setup = banks_left(rows, 2, DAY, 3 * DAY, {})
    assert not setup and left == [3 * DAY - 16 * HOUR, 3 * DAY]


def test_x_time_1_the_bank_never_goes_below_nothing_and_a_timeout_empties_it() -> None:
    rows = setup_rows({0: 1, 1: 2})
    rows.append(Row(6, 0, "turn_timed_out", at(2 + 24 * 10)))
    left, _ = banks_left(rows, 2, DAY, 3 * DAY, {})
    assert left[0] == timedelta(0)
    rows = [*setup_rows({0: 1, 1: 2}), Row(6, 1, "card_drawn", at(2 + 3))]
    rows.append(Row(7, 0, "seat_resigned", at(200)))  # not a decision of seat 0: nothing charged
    assert banks_left(rows, 2, DAY, 3 * DAY, {})[0] == [3 * DAY, 3 * DAY]


def test_x_time_1_a_vacation_stops_the_clock() -> None:
    rows = [*setup_rows({0: 1, 1: 2}), Row(6, 0, "card_drawn", at(2 + 40))]
    vacation = {0: [(at(10), at(30))]}  # 20 h of the 40 were vacation: 20 h used, within the day
    assert banks_left(rows, 2, DAY, 3 * DAY, vacation)[0][0] == 3 * DAY
    # the open decision's deadline moves by the vacation that falls inside it
    open_rows = setup_rows({0: 1, 1: 2})
    plain = deadlines(open_rows, 2, [1], DAY, DAY, {})[1]
    assert plain == at(2) + 2 * DAY
    assert deadlines(open_rows, 2, [1], DAY, DAY, {1: [(at(5), at(15))]})[1] == plain + 10 * HOUR
    assert deadlines(open_rows, 2, [1], DAY, DAY, {1: [(at(100), at(115))]})[1] == plain  # after it: nothing


def test_x_time_1_in_the_setup_every_seat_decides_from_event_1_with_its_own_vacations() -> None:
    rows = setup_rows({})
    times = deadlines(rows, 2, [0, 1], DAY, 2 * DAY, {1: [(at(1), at(3))]})
    assert times == {0: T0 + 3 * DAY, 1: T0 + 3 * DAY + 2 * HOUR}
    warn = deadlines(rows, 2, [0], DAY, 2 * DAY, {}, share=0.8)
    assert warn[0] == T0 + 0.8 * 3 * DAY


def test_x_time_1_an_operators_grant_adds_its_time_to_the_seats_bank() -> None:
    rows = [*setup_rows({0: 1, 1: 2}), Row(6, 1, "time_granted", at(3), granted=5 * HOUR)]
    left, _ = banks_left(rows, 2, DAY, 3 * DAY, {})
    assert left == [3 * DAY, 3 * DAY + 5 * HOUR]
    assert deadlines(rows, 2, [0], DAY, 3 * DAY, {})[0] == at(2) + 4 * DAY  # seat 0's decision: from event 5 on


def test_x_time_1_what_happens_beside_the_moves_neither_ends_nor_restarts_a_decision() -> None:
    """A resignation, an operator's replacement or grant (to another seat) appended while seat 0 decides leaves
    seat 0's decision running from the event that opened it, and charges no seat for it."""
    rows = [*setup_rows({0: 1, 1: 2}), Row(6, 1, "card_drawn", at(3)), Row(7, 1, "card_drawn", at(3))]
    plain = deadlines(rows, 2, [0], DAY, 3 * DAY, {})
    aside = [Row(8, 1, "seat_resigned", at(30)), Row(9, 1, "seat_replaced", at(31)),
             Row(10, 1, "time_granted", at(32), granted=HOUR)]
    assert plain == {0: at(3) + 4 * DAY}
    assert deadlines([*rows, *aside], 2, [0], DAY, 3 * DAY, {}) == plain
    assert banks_left([*rows, *aside], 2, DAY, 3 * DAY, {})[0] == [3 * DAY, 3 * DAY + HOUR]  # nobody charged
    rows.append(Row(11, 0, "route_claimed", at(3 + 30)))  # seat 0's move ends its decision at its own time: 30 h
    assert banks_left([*rows[:-1], *aside, rows[-1]], 2, DAY, 3 * DAY, {})[0][0] == 3 * DAY - 6 * HOUR


intervals = st.lists(
    st.tuples(st.integers(0, 500), st.integers(1, 100)).map(lambda p: (at(p[0]), at(p[0] + p[1]))), max_size=6
)


@given(intervals, st.integers(0, 300), st.integers(0, 400))
def test_x_time_1_run_until_spends_exactly_the_allowance_outside_the_vacations(
    pauses: list[tuple[datetime, datetime]], start: int, hours: int
) -> None:
    opened, allowance = at(start), timedelta(hours=hours)
    end = run_until(opened, allowance, pauses)
    assert end >= opened + allowance
    assert end - opened - paused(opened, end, merged(pauses)) == allowance
    for pause_start, pause_end in merged(pauses):
        assert not pause_start < end < pause_end or end == opened + allowance  # never ends inside a vacation
