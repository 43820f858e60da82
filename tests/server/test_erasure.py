"""Erasure never strands a game (finding 3 of #30; games/staff/erasure.py): whatever moment of a game's life a person is
erased at (open before its start, the ticket choice, mid-game, a daily game), their seat is left (open) or played
by the game's fallback bot (in play), a game they created passes on or goes, their invitations, queue entry and
rematch acceptances are withdrawn, and every game still reaches its end and verifies.

Games are driven as tests/server/test_full_game.py drives them, but synchronously: the people's moves through the
services, each commit's callbacks run at once (`committed`), so the bots' task (eager in tests) plays their turns."""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import TestCase
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games.engine import legal_moves
from games.engine.moves import ClaimRoute
from games.lobby.models import QueueEntry
from games.people.models import Notification
from games.play import bot_turns, services
from games.play.models import Invitation, RematchOffer
from games.staff import privacy
from games.store import states
from games.store.models import Event, Game, Seat
from games.store.service_error import ServiceError
from games.trust.verify import verify_game
from tests.server.helpers import PASSWORD, assert_error, body, create_game, register, url

pytestmark = pytest.mark.django_db

_names = itertools.count()


@contextmanager
def committed() -> Iterator[None]:
    """Run what the block's transactions leave for after their commit (the bots' task, eager here) at its end, as a
    real commit would; the test's own transaction is never committed."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        yield


def person(prefix: str) -> User:
    return User.objects.create_user(f"{prefix}{next(_names)}", password=PASSWORD)


def erase(user: User) -> None:
    with committed():
        privacy.erase(user)


def hasty_move(state: Any, seat: int, rng: random.Random) -> Any:
    """The longest route the seat can claim (the game ends sooner: the test is about who plays, not how well),
    else a random legal move."""
    moves = legal_moves(state, seat)
    claims = [m for m in moves if isinstance(m, ClaimRoute)]
    if claims:
        return max(claims, key=lambda m: (state.board.routes[m.route].length, rng.random()))
    return rng.choice(moves)


def play_people(game_id: Any, erased: User, rng: random.Random, moves: int = 5000) -> int:
    """The people left (not the erased one, not a seat a bot plays) play until the game ends (the bots play theirs
    after each commit), or for `moves`. A game that waits for nobody who can move is stranded: the test fails."""
    seats = Game.objects.get(pk=game_id).seat_list  # who plays which seat changes only by the erasure, not here
    people = {s.number for s in seats if s.user_id and s.user_id != erased.pk and not s.played_by_bot}
    for played in range(moves):
        game = Game.objects.get(pk=game_id)
        if game.status == Game.Status.FINISHED:
            return played
        state = states.state_at(game.pk, game.seq)
        deciding = [seat for seat in state.deciders() if seat in people]
        assert deciding, f"stranded at seq {game.seq}: it waits for seats {state.deciders()}, which nobody plays"
        seat = rng.choice(deciding)
        with committed():
            bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=hasty_move(state, seat, rng))
    return moves


def assert_finished_and_verified(game_id: Any, erased: User, *, over_before: bool = False) -> None:
    """The game ended, was scored and verifies; the erased person's seat was the fallback bot's (unless the game was
    `over_before` the erasure)."""
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED and game.scored_at is not None
    report = verify_game(game)
    assert report["ok"] is True and report["fair"] is True, report
    assert over_before or not [s for s in game.seat_list if s.user_id == erased.pk and not s.played_by_bot]


def test_a_person_erased_after_joining_an_open_private_game_leaves_it_and_the_game_reaches_its_end() -> None:
    """Finding 3 of #30: B joins A's private 3-seat game without a clock, B is erased, A starts: B's seat had to
    choose tickets and never did (the game stayed at seq 11). Now B's seat is free when A starts."""
    ann, bob = register("fin3-ann"), register("fin3-bob")
    game = create_game(ann, "usa", 3, private=True)
    link = body(ann.get(url(game["id"])))["invite"]
    assert body(bob.post(url(game["id"], "join"), {"invite": link}, format="json"))["status"] == "open"
    bob_user = User.objects.get(username="fin3-bob")
    assert bob.delete("/api/me", {"password": PASSWORD}, format="json").status_code == 204
    seats = body(ann.get(url(game["id"])))["seats"]
    assert [s["username"] for s in seats] == ["fin3-ann", None, None]  # Bob left the game he had not begun
    with committed():
        started = ann.post(url(game["id"], "start"), {"fill_with_bots": "random"}, format="json")
    assert started.status_code == 200, started.content
    play_people(game["id"], bob_user, random.Random(30))
    assert_finished_and_verified(game["id"], bob_user)


def test_a_game_the_erased_person_created_passes_to_the_next_seated_person_and_its_old_invitations_are_void() -> None:
    """Finding 3 of #30: a game the erased person created stayed open, its old link still seated people, and its
    start was 403 `not_creator` for everyone. Now it passes to the person in the lowest seat left, with a new link;
    the old link and the erased person's invitations by name are refused with a JSON 403."""
    bob, ann, cy, dee = (register(f"made-{name}") for name in ("bob", "ann", "cy", "dee"))
    game = create_game(bob, "europe", 4, private=True)
    old_link = body(bob.get(url(game["id"])))["invite"]
    assert bob.post(url(game["id"], "invite"), {"username": "made-cy"}, format="json").status_code in (200, 201)
    cy_token = Invitation.objects.get(game_id=game["id"], invitee__username="made-cy").token
    assert ann.post(url(game["id"], "join"), {"invite": old_link}, format="json").status_code == 200
    old_link = body(bob.get(url(game["id"])))["invite"]  # the link that replaced the one Ann used
    bob_user = User.objects.get(username="made-bob")
    assert bob.delete("/api/me", {"password": PASSWORD}, format="json").status_code == 204

    summary = body(ann.get(url(game["id"])))
    assert summary["created_by"] == "made-ann" and summary["status"] == "open"
    assert [s["username"] for s in summary["seats"]] == [None, "made-ann", None, None]
    assert summary["invite"] and summary["invite"] != old_link  # Ann passes on a new link
    refused = assert_error(dee.post(url(game["id"], "join"), {"invite": old_link}, format="json"), 403, "invite_invalid")
    assert refused["field"] == "invite"
    assert_error(cy.post(url(game["id"], "join"), {"invite": cy_token}, format="json"), 403, "invite_invalid")
    assert not Notification.objects.filter(user__username="made-cy", kind="invitation").exists()
    assert dee.post(url(game["id"], "join"), {"invite": summary["invite"]}, format="json").status_code == 200
    with committed():
        started = ann.post(url(game["id"], "start"), {"fill_with_bots": "random"}, format="json")
    assert started.status_code == 200, started.content  # not 403 not_creator
    play_people(game["id"], bob_user, random.Random(31))
    assert_finished_and_verified(game["id"], bob_user)


def test_a_game_only_the_erased_person_had_joined_goes_with_them() -> None:
    """Finding 3 of #30: with nobody else seated there is nobody to pass the game to: it is deleted (404), its
    link with it."""
    bob, ann = register("alone-bob"), register("alone-ann")
    game = create_game(bob, "usa", 3, private=True)
    link = body(bob.get(url(game["id"])))["invite"]
    assert bob.post(url(game["id"], "bots"), {"level": "random"}, format="json").status_code == 200
    assert bob.delete("/api/me", {"password": PASSWORD}, format="json").status_code == 204
    assert_error(APIClient().get(url(game["id"])), 404, "not_found")
    assert_error(ann.post(url(game["id"], "join"), {"invite": link}, format="json"), 404, "not_found")


def test_the_queue_entry_and_an_unformed_rematch_are_withdrawn() -> None:
    """Finding 3 of #30: a rematch the erased person had accepted would have formed a game with their seat in it
    (a person's, whom nobody plays); their queue entry would have seated them at a new table."""
    ann, bob = person("rq-ann"), person("rq-bob")
    game = services.game_create(ann, map_name="usa", players=2)
    services.game_join(game.pk, user=bob)
    services.game_start(game.pk, user=ann)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)  # over as far as the rematch is concerned
    from games.play import rematch

    rematch.rematch(game.pk, ann)
    QueueEntry.objects.create(user=ann, map="usa", counts=[2], since=game.created_at)
    erase(ann)
    assert not RematchOffer.objects.filter(finished=game).exists()
    assert not QueueEntry.objects.filter(user=ann).exists()
    offer = rematch.rematch(game.pk, bob)  # Bob may offer again: nobody waits for Ann, a bot takes her seat
    assert offer.game_id is not None
    seats = Seat.objects.filter(game_id=offer.game_id).order_by("number")
    assert [seat.user_id for seat in seats] == [None, bob.pk] and seats[0].bot == game.fallback_bot


def test_a_join_or_a_game_made_by_an_account_erased_meanwhile_is_refused() -> None:
    """Finding 3 of #30: a request that authenticated before its account was erased cannot seat it afterwards (the
    account row is locked and read again in the transaction that seats, in the order an erasure takes its locks)."""
    ann, bob = person("late-ann"), person("late-bob")
    game = services.game_create(ann, map_name="usa", players=3)
    erase(bob)
    with pytest.raises(ServiceError) as joined:
        services.game_join(game.pk, user=bob)
    assert (joined.value.code, joined.value.status) == ("authentication_failed", 401)
    with pytest.raises(ServiceError) as made:
        services.game_create(bob, map_name="usa", players=2)
    assert made.value.code == "authentication_failed"
    assert not Seat.objects.filter(user=bob).exists()


def test_an_erasure_that_fails_half_way_leaves_the_account_and_its_games_as_they_were(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finding 3 of #30: the hand-over and the anonymisation are one transaction. A failure after the games were
    handed over (here: while the sessions are forgotten) leaves the seats, the log, the invitations, the queue entry
    and the account as they were."""
    ann, bob = person("half-ann"), person("half-bob")
    playing = services.game_create(ann, map_name="usa", players=2)
    services.game_join(playing.pk, user=bob)
    services.game_start(playing.pk, user=ann)
    waiting = services.game_create(ann, map_name="usa", players=3, private=True)
    link = Invitation.objects.get(game=waiting).token
    QueueEntry.objects.create(user=ann, map="usa", counts=[2], since=playing.created_at)
    seq = Game.objects.get(pk=playing.pk).seq

    def broken(user: User) -> None:
        raise RuntimeError("the session store failed")

    monkeypatch.setattr(privacy, "_forget_sessions", broken)
    with pytest.raises(RuntimeError), committed():
        privacy.erase(ann)
    ann.refresh_from_db()
    assert ann.username.startswith("half-ann") and ann.is_active
    assert Game.objects.get(pk=playing.pk).seq == seq and not Seat.objects.get(game=playing, user=ann).stand_in
    assert Game.objects.get(pk=waiting.pk).created_by == ann and Seat.objects.filter(game=waiting, user=ann).exists()
    assert Invitation.objects.filter(token=link, used_at__isnull=True).exists()
    assert QueueEntry.objects.filter(user=ann).exists()


def waiting_on_a_lock() -> bool:
    """Whether a session of this database waits for a lock (PostgreSQL)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")  # else a transaction reads its first look again and again
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        row = cursor.fetchone()
    return bool(row and row[0])


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_table_the_matchmaker_forms_while_the_person_is_erased_gets_its_seat_played_by_the_bot(
    on_postgres: bool,
) -> None:
    """Finding 3 of #30: the erasure withdraws the queue entry first, waiting for a matchmaker's run that holds it
    (games/lobby/matchmaker.py locks the rows of the table it seats), so the game that run formed is seen and its seat
    resigned, not left to a person nobody plays."""
    if not on_postgres:
        pytest.skip("needs PostgreSQL (run under ./scripts/test-env): SQLite serialises writers with one lock")
    from django.db import connection, transaction

    ann = person("race-ann")
    entry = QueueEntry.objects.create(user=ann, map="usa", counts=[2], since=ann.date_joined)
    locked, formed = threading.Event(), []

    def run_seating_the_table() -> None:  # as matchmaker.run seats one table, the erasure arriving meanwhile
        try:
            with transaction.atomic():
                QueueEntry.objects.select_for_update(skip_locked=True).get(pk=entry.pk)
                locked.set()
                deadline = time.monotonic() + 60
                while not waiting_on_a_lock():
                    assert time.monotonic() < deadline, "the erasure never waited for the queue entry"
                    time.sleep(0.05)  # polling for a state, with a deadline
                game = services.game_form(
                    [ann, "random"], map_name="usa", ranked=False, clock=services.TimeControl(), fallback_bot="random"
                )
                QueueEntry.objects.filter(pk=entry.pk).update(status=QueueEntry.Status.MATCHED, game=game)
                formed.append(game.pk)
        finally:
            connection.close()

    def erasing() -> None:
        try:
            privacy.erase(ann)
        finally:
            connection.close()

    seating = threading.Thread(target=run_seating_the_table)
    seating.start()
    assert locked.wait(60)
    eraser = threading.Thread(target=erasing)
    eraser.start()
    seating.join(120)
    eraser.join(120)
    assert formed and not QueueEntry.objects.filter(user=ann).exists()
    seat = Seat.objects.get(game_id=formed[0], user=ann)
    assert seat.stand_in == "random"
    assert Event.objects.filter(game_id=formed[0], type="seat_resigned").exists()


MOMENTS = st.one_of(
    st.just(("open", 0)),
    st.tuples(st.just("setup"), st.integers(0, 2)),  # the ticket choice, some seats having chosen
    st.tuples(st.just("mid"), st.integers(3, 40)),
)


# Each example is a whole game: no shrinking (a failure is reported as found, its seed with it, not after minutes).
@settings(
    max_examples=15, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    moment=MOMENTS, players=st.integers(2, 3), people=st.integers(1, 3), erased_seat=st.integers(0, 2),
    daily=st.booleans(), map_name=st.sampled_from(["usa", "europe"]), seed=st.integers(0, 2**16),
)
def test_erasure_at_any_moment_of_a_game_leaves_a_game_that_ends_and_verifies(
    moment: tuple[str, int], players: int, people: int, erased_seat: int, daily: bool, map_name: str, seed: int
) -> None:
    """Finding 3 of #30, as a property: erase a person at a random moment of a game's life (open, the ticket
    choice, mid-game; live or daily) and the game still ends, scored, and its log verifies; a game the erased
    person created and nobody else joined is gone."""
    people, erased_seat = min(people, players), min(erased_seat, min(people, players) - 1)
    rng = random.Random(seed)
    users = [person("prop") for _ in range(people)]
    clock = services.TimeControl("daily", None, 1, 3) if daily else None
    game = services.game_create(users[0], map_name=map_name, players=players, clock=clock, fallback_bot="greedy")
    for user in users[1:]:
        services.game_join(game.pk, user=user)
    erased = users[erased_seat]
    phase, moves = moment
    over_before = False  # the game ended before the erasure (a mid-game moment late enough)
    if phase == "open":
        erase(erased)
        if not Game.objects.filter(pk=game.pk).exists():
            assert people == 1  # nobody else to pass it to
            return
        starter = Game.objects.get(pk=game.pk).created_by
        assert starter != erased and Seat.objects.filter(game=game, user=starter).exists()
        with committed():
            services.game_start(game.pk, user=starter, fill_with_bots="greedy")
    else:
        with committed():
            services.game_start(game.pk, user=users[0], fill_with_bots="greedy")
        play_people(game.pk, User(pk=0), rng, moves)  # before the erasure, everyone plays
        over_before = Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
        erase(erased)
    play_people(game.pk, erased, rng)
    assert_finished_and_verified(game.pk, erased, over_before=over_before)
