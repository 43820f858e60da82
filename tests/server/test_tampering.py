"""The log is append-only and tamper-evident: the database refuses edits (PostgreSQL trigger), the model refuses
them in code, and any edit made behind both (trigger disabled) is found by verify, naming the seq."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction
from rest_framework.test import APIClient

from games.store.event_log import row_hash
from games.store.models import AppendOnlyError, Event, Game
from tests.server.helpers import (
    Table,
    append_only_trigger_disabled,
    body,
    check_verified,
    finish_by_services,
    seated_game,
    tamper,
    url,
)

pytestmark = pytest.mark.django_db



@pytest.fixture
def table() -> Table:
    """A started Europe game with a few turns played: tickets kept, cards drawn blind."""
    table = seated_game("t", "europe", 2)
    for seat in (0, 1):
        table.play(seat, table.get(seat, "legal-moves")["moves"][0])
    for _ in range(4):
        seat = table.state()["view"]["current_seat"]
        table.play(seat, {"type": "draw_card", "source": "deck"})
    return table


def verify_problems(table: Table) -> list[str]:
    report = body(APIClient().get(url(table.game_id, "verify")))
    assert report["ok"] is False, report
    assert report["problems"]
    return list(report["problems"])


def command_problems(table: Table) -> str:
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_game", table.game_id, stdout=out)
    text = out.getvalue()
    assert f"{table.game_id} FAILED" in text
    return text


def row(table: Table, seq: int) -> Event:
    return Event.objects.get(game_id=table.game_id, seq=seq)


def first(table: Table, kind: str) -> Event:
    return Event.objects.filter(game_id=table.game_id, type=kind).order_by("seq").first()  # type: ignore[return-value]


def test_the_database_refuses_to_change_events(table: Table, on_postgres: bool) -> None:
    if not on_postgres:
        pytest.skip("needs PostgreSQL (run under ./scripts/test-env): the append-only trigger exists only there")
    target = first(table, "card_drawn")
    before = (target.data, target.hash)
    attempts = [
        lambda: Event.objects.filter(pk=target.pk).update(data={"type": "card_drawn", "forged": True}),  # (game, seq)
        lambda: Event.objects.filter(game_id=table.game_id).update(hash="0" * 64),
        lambda: Event.objects.filter(pk=target.pk).delete(),
        lambda: connection.cursor().execute(
            "UPDATE games_event SET seat = 1 WHERE game_id = %s AND seq = %s", [target.game_id, target.seq]
        ),
        lambda: connection.cursor().execute("DELETE FROM games_event WHERE game_id = %s", [table.game_id.replace("-", "")]),
    ]
    for attempt in attempts:
        with pytest.raises(DatabaseError) as info, transaction.atomic():
            attempt()
        assert "append-only" in str(info.value)
    target.refresh_from_db()
    assert (target.data, target.hash) == before
    assert Event.objects.filter(game_id=table.game_id).count() == table.seq()
    check_verified(APIClient(), table.game_id, table.seq())


def test_the_model_refuses_to_change_events(table: Table) -> None:
    target = first(table, "tickets_kept")
    target.data = {**target.data, "kept_count": 99}
    with pytest.raises(AppendOnlyError):
        target.save()
    with pytest.raises(AppendOnlyError):
        target.delete()
    check_verified(APIClient(), table.game_id, table.seq())


def test_an_edited_event_fails_verification(table: Table) -> None:
    target = first(table, "card_drawn")
    other = "red" if target.data["card"] != "red" else "blue"
    tamper(table.game_id, target.seq, data={**target.data, "card": other})
    problems = verify_problems(table)
    assert any(p.startswith(f"seq {target.seq}: the row was altered") for p in problems), problems
    assert any(p.startswith(f"seq {target.seq}: the commitment") for p in problems), problems
    assert all(p.startswith(f"seq {target.seq}:") for p in problems), problems
    assert f"seq {target.seq}: the row was altered" in command_problems(table)


def test_a_rehashed_edit_still_breaks_the_chain(table: Table) -> None:
    """A forger who also recomputes the edited row's own hash is caught by the next row's prev_hash."""
    target = first(table, "tickets_kept")
    kept = target.data["kept"]
    data = {**target.data, "kept": kept[:-1], "returned": [*target.data["returned"], kept[-1]]}
    digest = row_hash(
        target.prev_hash, target.seq, target.type, target.seat, data, target.commitment, target.salt, target.created_at
    )
    tamper(table.game_id, target.seq, data=data, hash=digest)
    problems = verify_problems(table)
    assert f"seq {target.seq + 1}: prev_hash does not match the hash of seq {target.seq}" in problems, problems
    assert any(p.startswith(f"seq {target.seq}: the commitment") for p in problems), problems
    assert f"seq {target.seq + 1}: prev_hash" in command_problems(table)


def test_a_removed_event_is_found(table: Table) -> None:
    target = first(table, "card_drawn")
    with append_only_trigger_disabled():
        Event.objects.filter(pk=target.pk).delete()
    problems = verify_problems(table)
    assert any(p.startswith(f"seq {target.seq + 1}: expected seq {target.seq}") for p in problems), problems
    assert f"expected seq {target.seq}" in command_problems(table)


def test_a_forged_final_score_with_a_consistent_chain_is_found(on_postgres: bool) -> None:
    """Rewrite the winner's total and re-hash the row and the game's head: the chain holds, the replay does not."""
    table = seated_game("f", "usa", 2)
    finish_by_services(table.game_id, random.Random(3))
    check_verified(APIClient(), table.game_id, table.seq())
    last = Event.objects.filter(game_id=table.game_id).order_by("-seq").first()
    assert last is not None and last.type == "game_scored"
    data = dict(last.data)
    losers = [s["seat"] for s in data["scores"] if s["seat"] not in data["winner_seats"]]
    loser = losers[0] if losers else data["scores"][0]["seat"]
    data["scores"] = [{**s, "total": s["total"] + 100} if s["seat"] == loser else s for s in data["scores"]]
    data["winner_seats"] = [loser]
    digest = row_hash(last.prev_hash, last.seq, last.type, last.seat, data, last.commitment, last.salt, last.created_at)
    tamper(table.game_id, last.seq, data=data, hash=digest)
    Game.objects.filter(pk=table.game_id).update(head_hash=digest)
    problems = verify_problems(table)
    assert len(problems) == 1 and problems[0].startswith(f"seq {last.seq}: final scores"), problems
    assert f"seq {last.seq}: final scores" in command_problems(table)
