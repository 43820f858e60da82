"""The game endpoints check the token in the statement that reads the game (games/store/game_rows.py): every answer is the
one DRF's token check gives, for a token that is wrong, expired, of an inactive user, or good on a missing game."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.server.helpers import assert_error, body, seated_game, url

pytestmark = pytest.mark.django_db
MISSING = "00000000-0000-4000-8000-000000000000"


def with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_good_token_reads_the_game_as_its_seat() -> None:
    table = seated_game("gt-a")
    key = Token.objects.get(user__username="gt-a1").key
    state = body(with_token(key).get(url(table.game_id, "state")))
    assert state["view"]["your_seat"] == 1 and state["seq"] == table.seq()


@pytest.mark.parametrize("tail", ["state", "legal-moves", "events"])
def test_an_unknown_token_is_refused_before_the_game_is_looked_up(tail: str) -> None:
    table = seated_game("gt-b")
    for game_id in (table.game_id, MISSING):
        error = assert_error(with_token("f" * 40).get(url(game_id, tail)), 401, "authentication_failed")
        assert error["detail"] == "Invalid token."


def test_an_expired_token_and_an_inactive_user_are_refused_and_a_good_token_on_no_game_is_404() -> None:
    table = seated_game("gt-c")
    token = Token.objects.get(user__username="gt-c0")
    Token.objects.filter(pk=token.pk).update(created=token.created - timedelta(days=400))
    expired = assert_error(with_token(token.key).get(url(table.game_id, "state")), 401, "authentication_failed")
    assert "expired" in expired["detail"]
    other = Token.objects.get(user__username="gt-c1")
    User.objects.filter(pk=other.user_id).update(is_active=False)
    inactive = assert_error(with_token(other.key).get(url(table.game_id, "legal-moves")), 401, "authentication_failed")
    assert inactive["detail"] == "User inactive or deleted."
    fresh = seated_game("gt-d")
    key = Token.objects.get(user__username="gt-d0").key
    assert_error(with_token(key).get(url(MISSING, "state")), 404, "not_found")
    move = {"expected_seq": fresh.seq(), "move": {"type": "draw_card", "source": "deck"}}
    assert_error(with_token(key).post(url(MISSING, "moves"), move, format="json"), 404, "not_found")
