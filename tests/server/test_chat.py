"""Table talk (games/table/chat.py, docs/API.md Table talk and languages), through the services and the HTTP API: who writes
in which channel, the limits, mutes, reports, staff's hiding and bans, and that chat is never game state (not in
`/events`, `/audit` or a game's export) while a person's export and erasure include it."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.test import Client

from games.staff import privacy
from games.store.models import Game
from games.store.service_error import ServiceError
from games.table import chat
from games.table.models import ChatMessage, ChatReport
from tests.server.helpers import PASSWORD, audit_lines, body, finish_by_services, register, seated_game, url
from tests.server.test_staff_actions import staff_client

pytestmark = pytest.mark.django_db


def person(name: str) -> User:
    return get_user_model().objects.get(username=name)


def game_of(table: Any) -> Game:
    return Game.objects.get(pk=table.game_id)


def refused(code: str, call: Any, *args: Any, **kwargs: Any) -> ServiceError:
    with pytest.raises(ServiceError) as error:
        call(*args, **kwargs)
    assert error.value.code == code, (error.value.code, error.value.detail)
    return error.value


def test_players_write_at_the_table_and_spectators_in_their_own_channel_unless_the_creator_allows_it() -> None:
    table = seated_game("ch-a", "europe", 2)
    watcher = register("ch-a-watch")
    game = game_of(table)
    chat.post(game, user=person("ch-a0"), text="  good luck  ")
    chat.post(game, user=person("ch-a-watch"), text="nice opening")
    refused("spectator", chat.post, game, user=person("ch-a-watch"), text="psst", channel="table")
    refused("not_a_spectator", chat.post, game, user=person("ch-a1"), text="hi", channel="spectators")
    refused("invalid", chat.post, game, user=person("ch-a1"), text="hi", channel="everyone")

    def lines(client: Any) -> list[tuple[str, str, str]]:
        got = body(client.get(url(table.game_id, "chat")))["results"]
        return [(line["channel"], line["username"], line["text"]) for line in got]

    assert lines(table.clients[1]) == [("table", "ch-a0", "good luck")]  # trimmed; a player reads the table only
    both = [("table", "ch-a0", "good luck"), ("spectators", "ch-a-watch", "nice opening")]
    assert lines(watcher) == both and lines(Client()) == both  # a spectator (signed in or not) reads both
    first = body(watcher.get(url(table.game_id, "chat")))["results"][0]["id"]
    assert [line["text"] for line in body(watcher.get(url(table.game_id, "chat"), {"after": first}))["results"]] == [
        "nice opening"
    ]
    assert body(watcher.get(url(table.game_id, "chat"), {"after": "x"}))["field"] == "after"

    open_table = seated_game("ch-b", "europe", 2, spectators_at_table=True)
    assert body(open_table.clients[0].get(url(open_table.game_id)))["spectators_at_table"] is True
    chat.post(game_of(open_table), user=person("ch-a-watch"), text="may I?", channel="table")
    assert [line["text"] for line in body(open_table.clients[1].get(url(open_table.game_id, "chat")))["results"]] == [
        "may I?"
    ]


@pytest.mark.parametrize(
    "text",
    ["", "   ", "x" * 501, "bell\x07", "two\nlines", "tab\there", "evil\u202eKCITSPIL", "iso\u2066late", 42, None],
)
def test_a_line_is_plain_text_of_at_most_500_characters_without_control_characters(text: Any) -> None:
    table = seated_game(f"ch-t{abs(hash(str(text))) % 10**6}-", "usa", 2)
    error = refused("invalid", chat.post, game_of(table), user=person(f"{table.clients[0].username}"), text=text)
    assert error.extra["field"] == "text"
    assert not ChatMessage.objects.exists()


def test_markup_is_kept_as_the_text_it_is() -> None:
    table = seated_game("ch-m", "usa", 2)
    text = '<img src=x onerror="alert(1)"> & <b>bold</b> ' + "é" * 400
    chat.post(game_of(table), user=person("ch-m0"), text=text)
    assert body(table.clients[1].get(url(table.game_id, "chat")))["results"][0]["text"] == text  # the client shows text


def test_five_lines_in_ten_seconds_then_the_rate_limit() -> None:
    table = seated_game("ch-r", "usa", 2)
    for n in range(chat.RATE_MESSAGES):
        chat.post(game_of(table), user=person("ch-r0"), text=f"line {n}")
    error = refused("rate_limited", chat.post, game_of(table), user=person("ch-r0"), text="one more")
    assert error.status == 429
    chat.post(game_of(table), user=person("ch-r1"), text="the other player is not limited")


def test_a_muted_person_is_not_heard_by_the_muter_alone_and_a_mute_is_lifted(client: Client) -> None:
    table = seated_game("ch-u", "europe", 3)
    mute = table.clients[1].post("/api/users/ch-u0/mute")
    assert mute.status_code == 200 and body(mute) == {"username": "ch-u0", "muted": True}
    assert body(table.clients[1].get("/api/me"))["muted"] == ["ch-u0"]
    chat.post(game_of(table), user=person("ch-u0"), text="you will all lose")
    heard = lambda seat: [line["text"] for line in body(table.clients[seat].get(url(table.game_id, "chat")))["results"]]  # noqa: E731
    assert heard(1) == [] and heard(2) == ["you will all lose"]
    assert table.clients[1].delete("/api/users/ch-u0/mute").status_code == 200
    assert heard(1) == ["you will all lose"]
    assert body(table.clients[1].post("/api/users/ch-u1/mute"))["code"] == "yourself"
    assert table.clients[1].post("/api/users/nobody-here/mute").status_code == 404
    assert Client().post("/api/users/ch-u0/mute").status_code == 401


def test_a_report_reaches_staff_who_hide_the_line_for_everyone_and_bar_its_author() -> None:
    table = seated_game("ch-p", "europe", 2)
    line = chat.post(game_of(table), user=person("ch-p0"), text="rude words")
    answer = table.clients[1].post(f"/api/chat/{line.pk}/report", {"reason": "insults"}, format="json")
    assert answer.status_code == 200 and body(answer) == {"reported": True}
    assert table.clients[1].post(f"/api/chat/{line.pk}/report", {}, format="json").status_code == 200  # once
    assert ChatReport.objects.filter(message=line).count() == 1
    assert table.clients[1].post("/api/chat/999999/report", {}, format="json").status_code == 404

    admin, _ = staff_client("ch-staff")
    reports = admin.get("/admin/games/chatreport/")
    assert reports.status_code == 200 and b"rude words" in reports.content and b"insults" in reports.content
    done = admin.post(
        "/admin/games/chatreport/", {"action": "hide_reported", "_selected_action": [line.reports.get().pk]}, follow=True
    )
    assert done.status_code == 200
    for client in (table.clients[0], table.clients[1], Client()):
        assert body(client.get(url(table.game_id, "chat")))["results"] == []  # gone for everyone
    assert ChatMessage.objects.get(pk=line.pk).hidden_at is not None  # kept for the record
    admin.post("/admin/games/chatmessage/", {"action": "ban_authors", "_selected_action": [line.pk]}, follow=True)
    refused("chat_banned", chat.post, game_of(table), user=person("ch-p0"), text="again")
    refused("not_staff", chat.hide, [line.pk], staff=person("ch-p1"))


def test_chat_is_never_game_state_but_a_persons_export_has_it_and_erasure_removes_it() -> None:
    table = seated_game("ch-e", "usa", 2)
    chat.post(game_of(table), user=person("ch-e0"), text="secret-chat-words")
    finish_by_services(table.game_id, random.Random(3))
    events = body(table.clients[0].get(url(table.game_id, "events")))
    audit = audit_lines(table.clients[0], table.game_id)
    assert "secret-chat-words" not in str(events) and "secret-chat-words" not in str(audit)
    exported = body(table.clients[0].get("/api/me/export"))
    assert [line["text"] for line in exported["chat"]] == ["secret-chat-words"]
    gone = table.clients[0].delete("/api/me", {"password": PASSWORD}, format="json")
    assert gone.status_code == 204
    assert not ChatMessage.objects.filter(text="secret-chat-words").exists()
    assert privacy.PSEUDONYM_PREFIX in person_of_seat(table.game_id, 0)


def person_of_seat(game_id: str, seat: int) -> str:
    return str(Game.objects.get(pk=game_id).seat_list[seat].user.username)
