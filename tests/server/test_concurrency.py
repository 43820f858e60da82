"""Concurrent writers on PostgreSQL: of many moves at one expected_seq exactly one wins, the rest get 409
stale_seq, and the log stays gapless (docs/DESIGN.md: a move is one transaction behind a conditional UPDATE).

Real threads, each with its own database connection, committing for real (transactional test)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from games.store.models import Event, Game, Seat
from tests.server.helpers import body, check_verified, create_game, register, seated_game, url

THREADS = 20



@pytest.fixture
def postgres_only(on_postgres: bool) -> None:
    if not on_postgres:
        pytest.skip(
            "needs PostgreSQL (run under ./scripts/test-env): SQLite serialises all writers with one database lock, "
            "so there is no row-level race to test"
        )


def race(requests: list[Callable[[APIClient], Any]], tokens: list[str]) -> list[tuple[int, Any]]:
    """Run each request in its own thread, all released at once; (status, JSON body) per request."""
    barrier = threading.Barrier(len(requests))
    results: list[tuple[int, Any] | None] = [None] * len(requests)
    failures: list[BaseException] = []

    def work(i: int) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {tokens[i]}")
            barrier.wait(timeout=30)
            response = requests[i](client)
            results[i] = (response.status_code, json.loads(response.content))
        except BaseException as error:  # a 500 raises in the test client: report it
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures, failures
    assert all(r is not None for r in results)
    return [r for r in results if r is not None]


def post_move(game_id: str, seq: int, move: dict[str, Any]) -> Callable[[APIClient], Any]:
    payload = {"expected_seq": seq, "move": move}
    return lambda client: client.post(url(game_id, "moves"), payload, format="json")


def assert_gapless(game_id: str) -> int:
    seqs = list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("seq", flat=True))
    game = Game.objects.get(pk=game_id)
    assert seqs == list(range(1, len(seqs) + 1)), "a gap or a duplicate in the log"
    assert game.seq == len(seqs)
    hashes = list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("prev_hash", "hash"))
    assert all(prev == hashes[i - 1][1] for i, (prev, _) in enumerate(hashes) if i)
    assert game.head_hash == hashes[-1][1]
    return game.seq


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres_only")
def test_twenty_moves_at_one_seq_one_wins() -> None:
    table = seated_game("c", "europe", 5)
    tokens_by_seat = [c.token for c in table.clients]  # type: ignore[attr-defined]
    rounds = 0
    while rounds < 8:
        state = table.state()
        seq, deciders = state["seq"], state["view"]["deciding_seats"]
        # several seats at once during setup, then one seat: the same move sent twenty times (a retry storm)
        seats = [deciders[i % len(deciders)] for i in range(THREADS)]
        moves = {seat: table.get(seat, "legal-moves")["moves"][0] for seat in set(seats)}
        requests = [post_move(table.game_id, seq, moves[seat]) for seat in seats]
        results = race(requests, [tokens_by_seat[seat] for seat in seats])
        won = [data for status, data in results if status == 201]
        lost = [data for status, data in results if status != 201]
        assert len(won) == 1, results
        assert len(lost) == THREADS - 1
        new_seq = won[0]["seq"]
        assert new_seq == seq + len(won[0]["events"]) > seq
        for status, data in results:
            if status != 201:
                assert status == 409 and data["code"] == "stale_seq", (status, data)
                assert data["seq"] == new_seq
        assert assert_gapless(table.game_id) == new_seq
        rounds += 1
    assert table.state()["view"]["phase"] != "setup_tickets"
    check_verified(APIClient(), table.game_id, table.seq())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres_only")
def test_racing_for_one_seat() -> None:
    owner = register("owner")
    game = create_game(owner, "usa", 5)
    joiners = [register(f"j{i}") for i in range(10)]
    results = race(
        [lambda client: client.post(url(game["id"], "join"), {"seat": 3}, format="json")] * len(joiners),
        [c.token for c in joiners],  # type: ignore[attr-defined]
    )
    assert sorted(status for status, _ in results) == [200] + [409] * 9, results
    assert all(data["code"] == "seat_taken" for status, data in results if status == 409)
    seat = Seat.objects.get(game_id=game["id"], number=3)
    assert seat.user is not None
    assert body(owner.get(url(game["id"])))["seats"][3]["username"] == seat.user.username
    assert Seat.objects.filter(game_id=game["id"], user__isnull=False).count() == 2
