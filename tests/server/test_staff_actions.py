"""What staff may do to a game is an event in its log, never an edit (games/staff/operator_actions.py,
games/staff/admin.py): the
admin's "abort" asks for a reason and a confirmation, then appends `game_aborted` (the operator's account id and
the reason) in the hash chain; the game is over, unscored and unrated, and still verifies. The admin cannot change
a game, a seat or an event, and neither can the ORM change an event."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games.play import scoring
from games.play.models import Rating, RatingChange
from games.staff import operator_actions
from games.store.models import AppendOnlyError, Event, Game
from games.store.service_error import ServiceError
from games.trust.verify import verify_game
from tests.server.helpers import audit_lines, body, create_game, register, url

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/games/game/"


def staff_client(name: str) -> tuple[Client, int]:
    staff = get_user_model().objects.create_user(name, password="staff-password-1", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)
    return client, staff.pk


def ranked_game() -> str:
    ann, bob = register("abort-ann"), register("abort-bob")
    game = create_game(ann, "europe", 2, ranked=True)
    bob.post(url(game["id"], "join"), {}, format="json")
    assert body(ann.post(url(game["id"], "start"), {}, format="json"))["status"] == "active"
    return str(game["id"])


def test_staff_abort_a_game_through_the_admin_with_a_reason_and_it_ends_unrated_in_the_log() -> None:
    game_id = ranked_game()
    admin, staff_id = staff_client("op-ada")
    selected = {"action": "abort_games", "_selected_action": [game_id]}
    asked = admin.post(CHANGELIST, selected)
    assert asked.status_code == 200 and b"Reason (required" in asked.content  # the confirmation page
    assert Game.objects.get(pk=game_id).status == Game.Status.ACTIVE  # nothing yet
    admin.post(CHANGELIST, {**selected, "confirmed": "yes", "reason": "   "}, follow=True)
    assert Game.objects.get(pk=game_id).status == Game.Status.ACTIVE  # no reason, no abort
    done = admin.post(CHANGELIST, {**selected, "confirmed": "yes", "reason": "both players asked"}, follow=True)
    assert done.status_code == 200 and b"aborted" in done.content

    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED and game.scored_at is not None
    lines = audit_lines(Client(), game_id)  # public now that the game is over
    assert [line["type"] for line in lines[-2:]] == ["game_aborted", "seeds_revealed"]
    assert lines[-2]["data"] == {"type": "game_aborted", "v": 1, "staff": staff_id, "reason": "both players asked"}
    report = verify_game(game)
    assert report["ok"] is True and report["fair"] is True, report
    assert not scoring.game_score_and_rate(game_id)  # never scored, never rated
    assert not Event.objects.filter(game_id=game_id, type="game_scored").exists()
    assert not RatingChange.objects.filter(game_id=game_id).exists() and not Rating.objects.exists()
    assert "checkpoint" in lines[-1]  # its record is complete: signed
    assert body(Client().get(url(game_id, "state")))["view"]["phase"] == "finished"


def test_only_staff_abort_only_a_game_in_play() -> None:
    game_id = ranked_game()
    person = get_user_model().objects.get(username="abort-ann")
    with pytest.raises(ServiceError) as refused:
        operator_actions.game_abort(game_id, staff=person, reason="I am losing")
    assert refused.value.code == "not_staff"
    staff = get_user_model().objects.create_user("op-bo", is_staff=True)
    operator_actions.game_abort(game_id, staff=staff, reason="a test")
    with pytest.raises(ServiceError) as again:
        operator_actions.game_abort(game_id, staff=staff, reason="a test")
    assert again.value.code == "not_active"


def test_the_admin_changes_no_game_seat_or_event_and_the_orm_changes_no_event() -> None:
    game_id = ranked_game()
    admin, _ = staff_client("op-cy")
    event = Event.objects.filter(game_id=game_id).order_by("seq").first()
    assert event is not None
    game_page = admin.get(f"/admin/games/game/{game_id}/change/")
    assert game_page.status_code == 200  # shown, read-only, with a link to its log
    assert f"/admin/games/game/{game_id}/events/".encode() in game_page.content
    assert admin.post(f"/admin/games/game/{game_id}/change/", {"seq": 99, "status": "finished"}).status_code == 403
    log = admin.get(f"/admin/games/game/{game_id}/events/")  # events: a page of the game's (their key is (game, seq))
    assert log.status_code == 200 and f'data-seq="{event.seq}"'.encode() in log.content
    assert event.hash.encode() in log.content
    assert admin.post(f"/admin/games/game/{game_id}/events/", {"seq": 99}).status_code == 405  # nothing to post
    assert admin.get("/admin/games/game/not-a-game/events/").status_code == 404
    assert Client().get(f"/admin/games/game/{game_id}/events/").status_code == 302  # to the admin's login
    assert admin.get("/admin/games/event/").status_code == 404  # no admin of events' own
    assert Game.objects.get(pk=game_id).status == Game.Status.ACTIVE
    event.seat = 1
    with pytest.raises(AppendOnlyError):
        event.save()
    with pytest.raises(AppendOnlyError):
        event.delete()


def test_an_aborted_games_score_says_it_is_never_coming() -> None:
    game_id = ranked_game()
    staff = get_user_model().objects.create_user("op-di", is_staff=True)
    operator_actions.game_abort(game_id, staff=staff, reason="server moved")
    answer = Client().get(url(game_id, "score"))
    assert answer.status_code == 409
    assert body(answer)["code"] == "not_scored" and body(answer)["end_reason"] == "aborted"  # the page stops waiting


def test_staff_give_a_seat_to_a_bot_or_to_another_person_and_the_log_says_who_and_why(
    django_capture_on_commit_callbacks: Any,
) -> None:
    from games.store.models import Seat

    game_id = ranked_game()
    admin, staff_id = staff_client("op-ed")
    selected = {"action": "replace_seat", "_selected_action": [game_id]}
    asked = admin.post(CHANGELIST, selected)
    assert asked.status_code == 200 and b"Give a seat of" in asked.content
    before = Game.objects.get(pk=game_id).seq
    with django_capture_on_commit_callbacks(execute=True):  # after the commit: the bot's turns (eager tasks here)
        admin.post(CHANGELIST, {**selected, "confirmed": "yes", "seat": "1", "bot": "greedy", "reason": "abandoned"})
    rows = list(Event.objects.filter(game_id=game_id, seq__gt=before).order_by("seq"))
    assert rows[0].type == "seat_replaced"
    expected = {"type": "seat_replaced", "v": 1, "seat": 1, "by": "bot:greedy", "staff": staff_id, "reason": "abandoned"}
    assert rows[0].data == expected
    assert Seat.objects.get(game_id=game_id, number=1).stand_in == "greedy"  # Bob is rated as one who left
    assert any(row.type == "tickets_kept" and row.seat == 1 for row in rows[1:])  # the bot took its decision at once

    carl = register("abort-carl")
    admin.post(CHANGELIST, {**selected, "confirmed": "yes", "seat": "0", "username": "abort-carl", "reason": "Ann asked"})
    assert Seat.objects.get(game_id=game_id, number=0).user.username == "abort-carl"
    moves = body(carl.get(url(game_id, "legal-moves")))["moves"]
    assert moves and body(carl.get(url(game_id, "state")))["view"]["your_seat"] == 0
    assert verify_game(Game.objects.get(pk=game_id))["ok"] is True

    staff = get_user_model().objects.get(username="op-ed")
    for kwargs, code in (
        ({"bot": "greedy", "username": "abort-carl"}, "invalid"), ({"username": "nobody-at-all"}, "not_found"),
        ({"username": "abort-carl"}, "already_seated"), ({"bot": "greedy", "seat": 7}, "no_such_seat"),
    ):
        with pytest.raises(ServiceError) as refused:
            operator_actions.seat_replace(game_id, **{"seat": 0, "staff": staff, "reason": "x", **kwargs})
        assert refused.value.code == code, kwargs
