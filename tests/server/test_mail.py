"""E-mail (docs/API.md: Playing by day; GET/PATCH /api/me): an address is used only once the link mailed to it is
opened; every kind of notification reaches the mail server once, at most one mail per game per gap; a mail's
unsubscribe link and the account's settings switch kinds off; hostile input changes nothing; a mail server that
is down loses nothing.

A real SMTP server (aiosmtpd, on 127.0.0.1 and a free port) receives the mails; the tests read the links in them.
"""

from __future__ import annotations

import base64
import email
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from email import policy
from email.message import EmailMessage
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from aiosmtpd.controller import Controller
from django.contrib.auth import get_user_model
from django.core import signing
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from games.people import inbox, mail, mail_links
from games.people.models import NOTIFICATION_KINDS, Account, Notification
from tests.server.helpers import API, assert_error, body, create_game, register

pytestmark = pytest.mark.django_db

ME = f"{API}/me"
CONFIRM = f"{API}/me/email/confirm"
UNSUBSCRIBE = f"{API}/me/unsubscribe"
PUBLIC = "https://ttr.example"
GAP = 3600



class Handler:
    """aiosmtpd's handler: keeps every message it is given (after `delay` seconds, to make senders overlap)."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.delay = 0.0
        self.refused: set[str] = set()  # addresses answered "550 no such user"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if address in self.refused:
            return "550 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.delay:
            time.sleep(self.delay)  # blocks the server's loop: a slow server
        message = email.message_from_bytes(envelope.original_content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        return "250 OK"


class MailServer:
    def __init__(self) -> None:
        self.handler = Handler()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.controller: Controller | None = None

    @property
    def messages(self) -> list[EmailMessage]:
        return self.handler.messages

    def start(self) -> None:
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if m["To"] == address]


@pytest.fixture
def smtp(settings: Any) -> Iterator[MailServer]:
    server = MailServer()
    server.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", server.port
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_USE_TLS, settings.EMAIL_TIMEOUT = False, 5
    settings.TTR_PUBLIC_URL = PUBLIC
    settings.TTR_MAIL_GAP_SECONDS = GAP
    yield server
    server.stop()


def text_of(message: EmailMessage) -> str:
    return str(message.get_content())


def link(message: EmailMessage, page: str, kind: str | None = None) -> str:
    """The message's link to `page` (for unsubscribe links: the one for `kind`)."""
    prefix = f"{kind.replace('_', ' ')}: " if kind else ""
    match = re.search(rf"{re.escape(prefix)}({re.escape(PUBLIC)}/{page}\?\S+)", text_of(message))
    assert match, text_of(message)
    return match.group(1)


def link_token(message: EmailMessage, page: str, kind: str | None = None) -> str:
    return parse_qs(urlsplit(link(message, page, kind)).query)["token"][0]


def user_id(client: APIClient) -> int:
    return int(get_user_model().objects.get(username=client.username).pk)  # type: ignore[attr-defined]


def set_email(client: APIClient, address: str, capture: Any) -> Any:
    with capture(execute=True):  # the confirmation is queued after the commit (and runs inline: eager Celery)
        return client.patch(ME, {"email": address}, format="json")


def confirmed(client: APIClient, address: str, smtp: MailServer, capture: Any) -> int:
    """Set and confirm the client's address through the API and the mailed link; the user's id."""
    assert set_email(client, address, capture).status_code == 200
    response = APIClient().post(CONFIRM, {"token": link_token(smtp.to(address)[-1], "confirm-email")}, format="json")
    assert body(response) == {"email": address}
    return user_id(client)


def notify_of(user: int, kind: str, text: str, game: str | None) -> Notification:
    row = inbox.send(user, kind, f"test:{text}", text, game)
    assert row is not None
    return row


def mail_of(rows: list[Notification]) -> list[str]:
    return [Notification.objects.get(pk=row.pk).mail for row in rows]


def test_an_address_is_used_only_once_the_link_mailed_to_it_is_opened(
    smtp: MailServer, django_capture_on_commit_callbacks: Any
) -> None:
    ada = register("ada")
    game = create_game(ada)["id"]
    me = body(ada.get(ME))
    assert me == {
        "username": "ada", "email": None, "email_pending": None,
        "notify": {kind: True for kind in NOTIFICATION_KINDS}, "language": None,
        "vacation": {"until": None, "days_left": 30}, "muted": [], "queue": None,
    }

    response = set_email(ada, "ada@example.org", django_capture_on_commit_callbacks)
    assert response.status_code == 200
    assert body(response)["email"] is None and body(response)["email_pending"] == "ada@example.org"
    [confirmation] = smtp.to("ada@example.org")
    assert "confirm" in confirmation["Subject"].lower()
    token = link_token(confirmation, "confirm-email")

    waiting = notify_of(user_id(ada), "your_turn", "Your turn in the Europe game", game)
    assert mail.send_pending() == 0
    assert mail_of([waiting]) == ["skipped"]
    assert len(smtp.messages) == 1

    response = APIClient().post(CONFIRM, {"token": token}, format="json")  # no login: the link is opened from a mail
    assert body(response) == {"email": "ada@example.org"}
    assert body(ada.get(ME))["email"] == "ada@example.org" and body(ada.get(ME))["email_pending"] is None
    assert body(APIClient().post(CONFIRM, {"token": token}, format="json")) == {"email": "ada@example.org"}  # twice: ok

    later = notify_of(user_id(ada), "your_turn", "Your turn again", game)
    assert mail.send_pending() == 1
    assert mail_of([waiting, later]) == ["skipped", "sent"]
    assert "Your turn again" in text_of(smtp.messages[-1]) and "Your turn in the" not in text_of(smtp.messages[-1])


def test_every_kind_reaches_the_mail_server_exactly_once(smtp: MailServer, django_capture_on_commit_callbacks: Any) -> None:
    ada = register("ada")
    user = confirmed(ada, "ada@example.org", smtp, django_capture_on_commit_callbacks)
    before = len(smtp.messages)
    games = {kind: create_game(ada)["id"] for kind in NOTIFICATION_KINDS}
    rows = [notify_of(user, kind, f"news of kind {kind}", games[kind]) for kind in NOTIFICATION_KINDS]

    assert mail.send_pending() == len(NOTIFICATION_KINDS)
    assert mail.send_pending() == 0
    mails = smtp.messages[before:]
    assert len(mails) == len(NOTIFICATION_KINDS)
    for kind in NOTIFICATION_KINDS:
        [message] = [m for m in mails if f"news of kind {kind}" in text_of(m)]
        assert message["To"] == "ada@example.org"
        assert message["Subject"] == f"Ticket to Ride: news of kind {kind}"
        assert f"{PUBLIC}/games/{games[kind]}" in text_of(message)
        token = link_token(message, "unsubscribe", kind)
        assert signing.loads(token, salt=mail_links.UNSUBSCRIBE_SALT) == {"u": user, "k": kind}
        assert message["List-Unsubscribe"].strip() == f"<{link(message, 'unsubscribe', kind)}>"
        assert message["Auto-Submitted"] == "auto-generated"
    assert set(mail_of(rows)) == {"sent"}
    assert all(row.mailed_at is not None for row in Notification.objects.filter(pk__in=[r.pk for r in rows]))


def test_one_mail_per_game_per_gap(smtp: MailServer, django_capture_on_commit_callbacks: Any) -> None:
    ada = register("ada")
    user = confirmed(ada, "ada@example.org", smtp, django_capture_on_commit_callbacks)
    game, other = create_game(ada)["id"], create_game(ada)["id"]
    before = len(smtp.messages)
    first = [notify_of(user, "your_turn", "Your turn (1)", game), notify_of(user, "clock_running_out", "Hurry", game)]
    now = timezone.now()

    assert mail.send_pending(now=now) == 1
    [both] = smtp.messages[before:]
    assert "Your turn (1)" in text_of(both) and "Hurry" in text_of(both)
    assert both["Subject"] == "Ticket to Ride: 2 notifications in your Europe game"
    assert link_token(both, "unsubscribe", "your_turn") and link_token(both, "unsubscribe", "clock_running_out")
    assert both["List-Unsubscribe"].count("<") == 2

    second = notify_of(user, "rematch_offered", "Rematch (2)", game)
    third = notify_of(user, "game_ended", "The end (3)", game)
    elsewhere = notify_of(user, "your_turn", "Your turn elsewhere", other)  # another game: its own gap
    assert mail.send_pending(now=now + timedelta(minutes=59)) == 1
    assert mail_of([second, third, elsewhere]) == ["pending", "pending", "sent"]
    assert "Your turn elsewhere" in text_of(smtp.messages[-1])
    assert mail.send_pending(now=now + timedelta(minutes=59, seconds=59)) == 0

    assert mail.send_pending(now=now + timedelta(seconds=GAP + 1)) == 1
    assert mail_of([*first, second, third]) == ["sent"] * 4
    latest = text_of(smtp.messages[-1])
    assert "Rematch (2)" in latest and "The end (3)" in latest and "Your turn (1)" not in latest
    assert len(smtp.messages) == before + 3


def test_a_shorter_gap_setting_and_notifications_without_a_game(
    smtp: MailServer, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    ada = register("ada")
    user = confirmed(ada, "ada@example.org", smtp, django_capture_on_commit_callbacks)
    game = create_game(ada)["id"]
    before = len(smtp.messages)
    settings.TTR_MAIL_GAP_SECONDS = 0.5
    notify_of(user, "your_turn", "Your turn (1)", game)
    assert mail.send_pending() == 1
    notify_of(user, "your_turn", "Your turn (2)", game)
    assert mail.send_pending() == 0
    time.sleep(0.6)
    assert mail.send_pending() == 1

    # without a game: one mail a batch, whatever the gap
    notify_of(user, "game_formed", "A table is ready", None)
    notify_of(user, "invitation", "bob invites you", None)
    assert mail.send_pending() == 1
    gameless = text_of(smtp.messages[-1])
    assert "A table is ready" in gameless and "bob invites you" in gameless and f"{PUBLIC}/games/" not in gameless
    notify_of(user, "invitation", "cy invites you", None)
    assert mail.send_pending() == 1
    assert len(smtp.messages) == before + 4


def test_the_unsubscribe_link_of_a_mail_switches_its_kind_off(
    smtp: MailServer, django_capture_on_commit_callbacks: Any
) -> None:
    ada = register("ada")
    user = confirmed(ada, "ada@example.org", smtp, django_capture_on_commit_callbacks)
    game = create_game(ada)["id"]
    notify_of(user, "your_turn", "Your turn (1)", game)
    assert mail.send_pending() == 1
    token = link_token(smtp.messages[-1], "unsubscribe", "your_turn")

    response = APIClient().post(UNSUBSCRIBE, {"token": token}, format="json")  # no login
    assert body(response) == {"kind": "your_turn", "notify": False}
    assert body(ada.get(ME))["notify"] == {kind: kind != "your_turn" for kind in NOTIFICATION_KINDS}
    assert body(APIClient().post(UNSUBSCRIBE, {"token": token}, format="json"))["notify"] is False  # twice: ok

    later = notify_of(user, "your_turn", "Your turn (2)", game)
    ended = notify_of(user, "game_ended", "The game is over", game)
    assert mail.send_pending(now=timezone.now() + timedelta(seconds=GAP + 1)) == 1
    assert mail_of([later, ended]) == ["skipped", "sent"]
    assert "Your turn (2)" not in text_of(smtp.messages[-1])


def test_switching_a_kind_off_in_the_settings_skips_it(smtp: MailServer, django_capture_on_commit_callbacks: Any) -> None:
    ada = register("ada")
    user = confirmed(ada, "ada@example.org", smtp, django_capture_on_commit_callbacks)
    game = create_game(ada)["id"]
    response = ada.patch(ME, {"notify": {"game_ended": False, "your_turn": True}, "language": "cs"}, format="json")
    assert body(response)["notify"]["game_ended"] is False and body(response)["language"] == "cs"
    assert body(ada.get(ME))["notify"] == {kind: kind != "game_ended" for kind in NOTIFICATION_KINDS}
    before = len(smtp.messages)
    off, on = notify_of(user, "game_ended", "Over", game), notify_of(user, "your_turn", "Go", game)
    read = notify_of(user, "rematch_offered", "Again?", game)
    inbox.mark_read(user, [read.pk])  # seen on the site already: not mailed
    assert mail.send_pending() == 1
    assert mail_of([off, on, read]) == ["skipped", "sent", "skipped"]
    assert "Over" not in text_of(smtp.messages[-1]) and len(smtp.messages) == before + 1

    assert body(ada.patch(ME, {"notify": {"game_ended": True}}, format="json"))["notify"]["game_ended"] is True
    assert body(ada.patch(ME, {"language": None}, format="json"))["language"] is None
    response = set_email(ada, "", django_capture_on_commit_callbacks)  # "" removes the address: nothing is mailed
    assert body(response)["email"] is None and body(response)["email_pending"] is None
    gone = notify_of(user, "game_ended", "Over again", None)
    assert mail.send_pending() == 0 and mail_of([gone]) == ["skipped"]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"email": "not-an-address"}, "email"),
        ({"email": "ada@"}, "email"),
        ({"email": 12}, "email"),
        ({"email": None}, "email"),
        ({"email": "a" * 250 + "@example.org"}, "email"),
        ({"email": "ada@example.org\r\nBcc: eve@example.org"}, "email"),
        ({"notify": {"no_such_kind": False}}, "notify"),
        ({"notify": {"your_turn": "no"}}, "notify"),
        ({"notify": {"your_turn": 0}}, "notify"),
        ({"notify": ["your_turn"]}, "notify"),
        ({"language": "de"}, "language"),
        ({"language": 1}, "language"),
    ],
)
def test_bad_settings_are_refused_naming_the_field_and_change_nothing(
    payload: dict[str, Any], field: str, smtp: MailServer, django_capture_on_commit_callbacks: Any
) -> None:
    ada = register("ada")
    before = body(ada.get(ME))
    with django_capture_on_commit_callbacks(execute=True):
        response = ada.patch(ME, payload, format="json")
    assert assert_error(response, 400, "invalid")["field"] == field
    assert body(ada.get(ME)) == before
    assert smtp.messages == []


def test_settings_need_a_login() -> None:
    assert_error(APIClient().get(ME), 401, "not_authenticated")
    assert_error(APIClient().patch(ME, {"language": "en"}, format="json"), 401, "not_authenticated")


def _forged(token: str, **changes: Any) -> str:
    """The token with its payload changed but its signature kept (what an attacker can make)."""
    payload, rest = token.split(":", 1)
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    forged = base64.urlsafe_b64encode(json.dumps({**data, **changes}, separators=(",", ":")).encode()).rstrip(b"=")
    return f"{forged.decode()}:{rest}"


def test_bad_stale_and_forged_tokens_are_refused_and_change_nothing(
    smtp: MailServer, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    ada, bob = register("ada"), register("bob")
    ada_id = confirmed(ada, "ada@example.org", smtp, django_capture_on_commit_callbacks)
    bob_id = user_id(bob)
    set_email(bob, "bob@example.org", django_capture_on_commit_callbacks)
    old_token = link_token(smtp.to("bob@example.org")[-1], "confirm-email")
    set_email(bob, "bob@example.net", django_capture_on_commit_callbacks)  # a second address: the first link is stale
    unsubscribe_ada = mail_links.unsubscribe_token(ada_id, kind="your_turn")
    real = time.time()
    monkeypatch.setattr(signing.time, "time", lambda: real - (mail_links.CONFIRM_DAYS + 1) * 86400)
    expired = mail_links.confirmation_token(bob_id, address="bob@example.net")
    monkeypatch.undo()
    settings_before = {who.username: body(who.get(ME)) for who in (ada, bob)}  # type: ignore[attr-defined]

    for path, token in [
        (CONFIRM, "nonsense"),
        (CONFIRM, ""),
        (CONFIRM, old_token),  # an address no longer pending
        (CONFIRM, expired),
        (CONFIRM, unsubscribe_ada),  # a token made for another purpose
        (CONFIRM, _forged(old_token, e="bob@example.net")),
        # bob's link, for ada
        (CONFIRM, _forged(mail_links.confirmation_token(bob_id, address="bob@example.net"), u=ada_id)),
        (CONFIRM, mail_links.confirmation_token(ada_id, address="bob@example.net")),  # signed, but not ada's pending address
        (UNSUBSCRIBE, "nonsense"),
        (UNSUBSCRIBE, _forged(unsubscribe_ada, u=bob_id)),  # ada's link, for bob
        (UNSUBSCRIBE, _forged(unsubscribe_ada, k="game_ended")),
        (UNSUBSCRIBE, old_token),
        (UNSUBSCRIBE, mail_links.unsubscribe_token(ada_id, kind="no_such_kind")),
        (UNSUBSCRIBE, mail_links.unsubscribe_token(987654, kind="your_turn")),  # nobody
    ]:
        response = bob.post(path, {"token": token}, format="json")
        data = body(response)
        if token:
            assert response.status_code == 404 and data["code"] == "invalid_token", (path, token, data)
            assert data["field"] == "token" and data["detail"]
        else:
            assert_error(response, 400, "invalid")
    assert "expired" in body(APIClient().post(CONFIRM, {"token": expired}, format="json"))["detail"]
    for path, payload in [(CONFIRM, {}), (CONFIRM, {"token": 5}), (UNSUBSCRIBE, {"token": None}), (UNSUBSCRIBE, [])]:
        assert_error(APIClient().post(path, payload, format="json"), 400, "invalid")
    assert {who.username: body(who.get(ME)) for who in (ada, bob)} == settings_before  # type: ignore[attr-defined]
    assert Account.objects.get(user_id=bob_id).email == ""

    # the current link still works, and only for bob
    good = link_token(smtp.to("bob@example.net")[-1], "confirm-email")
    assert body(APIClient().post(CONFIRM, {"token": good}, format="json")) == {"email": "bob@example.net"}
    assert body(ada.get(ME))["email"] == "ada@example.org"


def test_a_mail_server_that_is_down_loses_nothing(smtp: MailServer, django_capture_on_commit_callbacks: Any) -> None:
    ada, bob = register("ada"), register("bob")
    ada_id = confirmed(ada, "ada@example.org", smtp, django_capture_on_commit_callbacks)
    bob_id = confirmed(bob, "bob@example.org", smtp, django_capture_on_commit_callbacks)
    game = create_game(ada)["id"]
    before = len(smtp.messages)
    rows = [notify_of(ada_id, "your_turn", "Your turn", game), notify_of(bob_id, "game_ended", "Over", game)]
    rows.append(notify_of(ada_id, "invitation", "cy invites you", None))

    smtp.stop()
    assert mail.send_pending() == 0  # raises nothing
    assert mail_of(rows) == ["pending"] * 3
    response = set_email(ada, "ada@example.net", django_capture_on_commit_callbacks)  # its link cannot go now
    assert response.status_code == 200 and body(response)["email_pending"] == "ada@example.net"

    smtp.start()
    assert mail.send_pending() == 3
    assert mail_of(rows) == ["sent"] * 3
    assert mail.send_pending() == 0
    assert len(smtp.messages) == before + 3
    assert len(smtp.to("ada@example.org")) == 1 + 2 and len(smtp.to("bob@example.org")) == 1 + 1


def test_an_address_the_server_refuses_holds_up_nobody(
    smtp: MailServer, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    ada, bob = register("ada"), register("bob")
    ada_id = confirmed(ada, "ada@example.org", smtp, django_capture_on_commit_callbacks)
    bob_id = confirmed(bob, "bob@example.org", smtp, django_capture_on_commit_callbacks)
    game = create_game(ada)["id"]
    smtp.handler.refused.add("ada@example.org")  # ada comes first in every batch
    refused, bobs = notify_of(ada_id, "your_turn", "Your turn", game), notify_of(bob_id, "your_turn", "Yours", game)
    assert mail.send_pending() == 1
    assert mail_of([refused, bobs]) == ["skipped", "sent"]

    # a batch takes the people with something to mail now: those the gap holds do not crowd out the others
    monkeypatch.setattr(mail, "PEOPLE_PER_BATCH", 1)
    smtp.handler.refused.clear()
    notify_of(ada_id, "your_turn", "Your turn (1)", game)
    assert mail.send_pending() == 1
    held = notify_of(ada_id, "your_turn", "Your turn (2)", game)
    waiting = notify_of(bob_id, "game_ended", "Over", None)
    assert mail.send_pending() == 1
    assert mail_of([held, waiting]) == ["pending", "sent"]


def test_the_mail_task_and_the_confirmation_task_run_and_beat_sends_the_mail_batch(
    smtp: MailServer, django_capture_on_commit_callbacks: Any
) -> None:
    from games import tasks
    from ttr_server.celery import app

    ada = register("ada")
    ada_id = confirmed(ada, "ada@example.org", smtp, django_capture_on_commit_callbacks)
    notify_of(ada_id, "your_turn", "Your turn", create_game(ada)["id"])
    assert tasks.mail_notifications.apply_async().get() == 1
    assert mail.mail_confirmation.apply_async((ada_id, "old@example.org")).get() is False
    assert {"task": tasks.mail_notifications.name, "schedule": 60.0} in app.conf.beat_schedule.values()


@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_never_mail_a_notification_twice(
    smtp: MailServer, on_postgres: bool
) -> None:
    if not on_postgres:
        pytest.skip("needs PostgreSQL (run under ./scripts/test-env): SQLite has no row locks to race for")
    people = [register(f"p{i}") for i in range(4)]
    ids = []
    for person in people:  # committed for real: the confirmation goes after the commit
        person.patch(ME, {"email": f"{person.username}@example.org"}, format="json")  # type: ignore[attr-defined]
        token = link_token(smtp.to(f"{person.username}@example.org")[-1], "confirm-email")  # type: ignore[attr-defined]
        assert APIClient().post(CONFIRM, {"token": token}, format="json").status_code == 200
        ids.append(user_id(person))
    games = [create_game(people[0])["id"] for _ in range(3)]
    texts = [f"news {user}-{g}-{n}" for user in ids for g in range(3) for n in range(2)]
    for text in texts:  # two kinds a game (a second "your turn" would mark the first read: see games/people/inbox.py)
        user, g, n = text.split()[1].split("-")
        notify_of(int(user), "rematch_offered" if int(n) else "game_ended", text, games[int(g)])
    before = len(smtp.messages)
    smtp.handler.delay = 0.05
    barrier, counts, failures = threading.Barrier(3), [], []

    def worker() -> None:
        try:
            barrier.wait(timeout=30)
            counts.append(mail.send_pending())
        except BaseException as error:
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures, failures
    mails = smtp.messages[before:]
    assert sum(counts) == len(mails)
    for text in texts:
        assert sum(f"- {text}" in text_of(m).splitlines() for m in mails) <= 1, text
    leftover = mail.send_pending()  # a worker passes by a person another is mailing: the next batch takes the rest
    mails = smtp.messages[before:]
    assert len(mails) == sum(counts) + leftover == len(ids) * len(games)
    for text in texts:
        assert sum(f"- {text}" in text_of(m).splitlines() for m in mails) == 1, text
    assert set(Notification.objects.values_list("mail", flat=True)) == {"sent"}


@pytest.mark.parametrize("page", ["/confirm-email?token=abc", "/unsubscribe?token=abc"])
def test_the_links_open_pages_of_the_web_client(page: str) -> None:
    response = APIClient().get(page)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")


def test_an_unsubscribe_link_works_for_someone_who_never_changed_a_setting() -> None:
    ada = register("ada")
    token = mail_links.unsubscribe_token(user_id(ada), kind="game_ended")
    response = APIClient().post(UNSUBSCRIBE, {"token": token}, format="json")
    assert body(response) == {"kind": "game_ended", "notify": False}
    assert body(ada.get(ME))["notify"]["game_ended"] is False


def test_a_tournament_table_is_mailed_in_czech_with_its_words(
    smtp: MailServer, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    from tests.server.test_i18n import ROOT, compiler, po_files

    for path in po_files():  # the .mo files as `make messages` builds them, read again by Django
        compiler().compile_po(path)
    settings.LOCALE_PATHS = [ROOT / "locale"]
    ada = register("ada")
    user = confirmed(ada, "ada@example.org", smtp, django_capture_on_commit_callbacks)
    Account.objects.filter(user_id=user).update(language="cs")
    game = create_game(ada)["id"]
    inbox.send(user, "tournament_table", "t", "Friday Swiss, round 2: your Europe table is ready.", game,
               tournament="e4b1c0de-0000-4000-8000-000000000000", round=2)
    assert mail.send_pending() == 1
    message = smtp.messages[-1]
    assert message["Subject"].strip() == "Ticket to Ride: Vaše další turnajová hra je připravena (2. kolo)."
    lines = text_of(message).splitlines()
    assert lines[0] == "- Vaše další turnajová hra je připravena (2. kolo)."
    assert any(line.startswith("  turnajová hra: ") and "/unsubscribe?token=" in line for line in lines), lines
    assert "round" not in text_of(message) and "tournament" not in text_of(message)
