"""Staff grant a seat more time (games/staff/operator_actions.py `time_grant`, docs/RULES.md X-TIME-1): an event in the log
(`time_granted`: the seat, the seconds, the operator's account id, the reason), never an edit. A live game's decision
in progress runs that much longer; a daily game's seat has that much more in its bank. What is appended beside the
moves (a grant, a resignation) never restarts the clock of the seat deciding."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games.play import sweep
from games.staff import operator_actions
from games.store.models import Event, Game
from games.store.service_error import ServiceError
from games.trust.verify import verify_game
from tests.server.helpers import Table, audit_lines, body, deciding_seats, seated_game, url
from tests.server.test_staff_actions import CHANGELIST, staff_client

pytestmark = pytest.mark.django_db


def past_setup(table: Table) -> int:
    """Every seat keeps its first offer of tickets; the seat deciding then."""
    for seat in range(len(table.clients)):
        table.play(seat, table.get(seat, "legal-moves")["moves"][0])
    deciders = deciding_seats(table)
    assert len(deciders) == 1 and table.state()["view"]["phase"] != "setup_tickets"
    return deciders[0]


def deadline(table: Table, seat: int) -> datetime:
    return datetime.fromisoformat(table.state(seat)["view"]["deadline"])


def test_x_time_1_staff_grant_the_seat_deciding_minutes_through_the_admin_and_the_sweep_waits_for_them() -> None:
    table = seated_game("tg-live-", "europe", 2, turn_seconds=60)
    seat = past_setup(table)
    before, seq = deadline(table, seat), table.seq()
    admin, staff_id = staff_client("op-time")
    selected = {"action": "grant_time", "_selected_action": [table.game_id]}
    asked = admin.post(CHANGELIST, selected)
    assert asked.status_code == 200 and b"more time" in asked.content and b"decision in progress" in asked.content
    assert table.seq() == seq  # nothing yet
    done = admin.post(
        CHANGELIST, {**selected, "confirmed": "yes", "seat": str(seat), "minutes": "5", "reason": "a power cut"},
        follow=True,
    )
    assert b"5 more minutes" in done.content

    granted = Event.objects.get(game_id=table.game_id, seq=seq + 1)
    assert (granted.type, granted.seat) == ("time_granted", seat)
    assert granted.data == {"type": "time_granted", "v": 1, "seat": seat, "seconds": 300, "staff": staff_id,
                            "reason": "a power cut"}
    assert deadline(table, seat) == before + timedelta(minutes=5)  # the decision goes on from where it opened
    shown = table.get(1 - seat, "events", after=seq)["events"]
    assert [e["type"] for e in shown] == ["time_granted"] and shown[0]["data"]["reason"] == "a power cut"

    game = Game.objects.get(pk=table.game_id)
    assert sweep.time_out(game, now=before + timedelta(seconds=1)) == 0  # not late now
    assert table.seq() == seq + 1
    assert sweep.time_out(game, now=before + timedelta(minutes=5, seconds=1)) >= 1
    late = Event.objects.get(game_id=table.game_id, seq=seq + 2)
    assert (late.type, late.seat) == ("turn_timed_out", seat)
    assert verify_game(Game.objects.get(pk=table.game_id))["ok"] is True


def test_x_time_1_a_resignation_while_a_seat_decides_leaves_that_seats_clock_running_as_it_was() -> None:
    table = seated_game("tg-resign-", "europe", 2, turn_seconds=60)
    seat = past_setup(table)
    before = deadline(table, seat)
    assert table.clients[1 - seat].post(url(table.game_id, "resign"), {}, format="json").status_code == 200
    assert Event.objects.filter(game_id=table.game_id).latest("seq").type == "seat_resigned"
    assert deadline(table, seat) == before


def test_x_time_1_a_daily_games_grant_goes_into_the_bank_of_any_seat(settings: Any) -> None:
    table = seated_game("tg-daily-", "europe", 2, speed="daily", days_per_move=1, bank_days=2)
    seat = past_setup(table)
    banks = table.state()["view"]["banks"]
    staff = get_user_model().objects.create_user("op-bank", is_staff=True)
    operator_actions.time_grant(table.game_id, seat=1 - seat, seconds=3 * 3600, staff=staff, reason="travelling")
    after = table.state()["view"]["banks"]
    assert after[str(1 - seat)] == banks[str(1 - seat)] + 3 * 3600 and after[str(seat)] == banks[str(seat)]


def test_only_staff_grant_a_time_that_a_clock_can_use() -> None:
    staff = get_user_model().objects.create_user("op-no", is_staff=True)
    live = seated_game("tg-refused-", "europe", 2, turn_seconds=60)
    seat = past_setup(live)
    untimed = seated_game("tg-untimed-", "europe", 2)
    player = get_user_model().objects.get(username="tg-refused-0")
    seq = live.seq()
    for game_id, kwargs, code in (
        (live.game_id, {"staff": player}, "not_staff"),
        (live.game_id, {"seconds": 0}, "invalid"),
        (live.game_id, {"seconds": operator_actions.MOST_SECONDS + 1}, "invalid"),
        (live.game_id, {"reason": " "}, "invalid"),
        (live.game_id, {"seat": 2}, "no_such_seat"),
        (live.game_id, {"seat": 1 - seat}, "not_deciding"),
        (untimed.game_id, {}, "no_clock"),
    ):
        with pytest.raises(ServiceError) as refused:
            operator_actions.time_grant(game_id, **{"seat": seat, "seconds": 60, "staff": staff, "reason": "x", **kwargs})
        assert refused.value.code == code, kwargs
    assert live.seq() == seq  # nothing written
    operator_actions.game_abort(live.game_id, staff=staff, reason="over")
    with pytest.raises(ServiceError) as over:
        operator_actions.time_grant(live.game_id, seat=seat, seconds=60, staff=staff, reason="late")
    assert over.value.code == "not_active"
    assert "deadline" not in body(untimed.clients[0].get(url(untimed.game_id, "state")))["view"]  # no clock


def test_every_operators_action_is_in_the_audit_log_and_the_replay_and_the_game_still_verifies(
    django_capture_on_commit_callbacks: Any,
) -> None:
    table = seated_game("tg-all-", "europe", 2, turn_seconds=60)
    seat = past_setup(table)
    staff = get_user_model().objects.create_user("op-all", is_staff=True)
    operator_actions.time_grant(table.game_id, seat=seat, seconds=90, staff=staff, reason="a slow link")
    with django_capture_on_commit_callbacks(execute=True):
        operator_actions.seat_replace(table.game_id, seat=1 - seat, staff=staff, reason="gone", bot="greedy")
    operator_actions.game_abort(table.game_id, staff=staff, reason="a test of the record")
    lines = audit_lines(table.clients[0], table.game_id)
    actions = {line["type"]: line for line in lines if line["type"] in ("time_granted", "seat_replaced", "game_aborted")}
    assert list(actions) == ["time_granted", "seat_replaced", "game_aborted"]
    assert all(line["data"]["staff"] == staff.pk for line in actions.values())
    for line in actions.values():  # the replay stands at each of them, as every player saw it
        replay = table.clients[1].get(url(table.game_id, "replay"), {"at": line["seq"]})
        assert replay.status_code == 200 and body(replay)["seq"] == line["seq"]
    report = verify_game(Game.objects.get(pk=table.game_id))
    assert report["ok"] is True and report["events"] == len(lines), report
