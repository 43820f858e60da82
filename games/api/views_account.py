"""The account's own settings (docs/API.md, Table talk and languages): GET/PATCH /api/me, and the two links mails carry,
opened without logging in: /api/me/email/confirm and /api/me/unsubscribe, each with the token of its link.

Thin views over games/people/preferences.py; the request and answer serializers, strict and exact for the schema, are here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import permissions, serializers
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle

from games.api.authentication import signed_in
from games.api.bodies import ApiView
from games.api.error_responses import error, error_responses
from games.api.fields import ObjectSerializer, StrictCharField, StrictChoiceField
from games.api.replica_reads import reads_may_lag
from games.api.responses import ErrorSerializer
from games.api.serializers import valid_body
from games.api.typed_json import to_json
from games.api.views_auth import AuthThrottle
from games.clocks import vacations
from games.clocks.shapes import VacationStatus
from games.lobby import matchmaker
from games.lobby.shapes import QueueStatus
from games.people import mail_links, password_guard, preferences
from games.people.models import NOTIFICATION_KINDS
from games.people.shapes import LANGUAGES, AccountSettings
from games.play.shapes import fields_of
from games.staff import privacy
from games.store.service_error import ServiceError
from games.store.shape_marks import Schema

ADDRESS_MAX = 254
TOKEN_MAX = 1000
INVALID_TOKEN = OpenApiResponse(
    ErrorSerializer, description="a link that is not valid, has expired or is stale (`invalid_token`): it names "
    "nothing to do"
)


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "format": "email", "maxLength": ADDRESS_MAX},
            {"type": "string", "enum": [""]},
        ],
        "description": "the address to mail notifications to, used once confirmed by the link mailed to it; "
        '"" removes it',
    }
)
class AddressField(serializers.EmailField):
    default_error_messages = {"invalid": 'must be an e-mail address, or "" to remove it'}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=ADDRESS_MAX, allow_blank=True, trim_whitespace=False, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


@extend_schema_field(
    {
        "type": "object",
        "properties": {kind: {"type": "boolean"} for kind in NOTIFICATION_KINDS},
        "additionalProperties": False,
        "description": "kinds of notification to mail (true) or not (false); kinds left out keep their setting",
    }
)
class NotifyField(serializers.Field[dict[str, bool], object, dict[str, bool], object]):
    default_error_messages = {
        "invalid": "must be an object of kinds and true or false",
        "unknown_kind": f"the kinds are {', '.join(NOTIFICATION_KINDS)}",
    }

    def to_internal_value(self, data: Any) -> dict[str, bool]:
        if not isinstance(data, dict) or not all(isinstance(on, bool) for on in data.values()):
            self.fail("invalid")
        if not set(data) <= set(NOTIFICATION_KINDS):
            self.fail("unknown_kind")
        return dict(data)

    def to_representation(self, value: dict[str, bool]) -> dict[str, bool]:
        return value


class MeUpdateSerializer(ObjectSerializer):
    email = AddressField(required=False)
    notify = NotifyField(required=False)
    language = StrictChoiceField(
        LANGUAGES, required=False, allow_null=True, help_text="null: the request's Accept-Language decides"
    )


class LinkTokenSerializer(ObjectSerializer):
    token = StrictCharField(
        min_length=1, max_length=TOKEN_MAX, trim_whitespace=False, help_text="the `token` of the link's query string"
    )


@dataclass(frozen=True, kw_only=True)
class Me(AccountSettings):
    """Your own settings, your vacation and your queue entry."""

    vacation: Annotated[VacationStatus, Schema("your daily clocks' vacation (POST /api/me/vacation)")]
    queue: Annotated[
        QueueStatus | None, Schema("your queue entry as GET /api/queue answers it; null: not in the queue")
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class Confirmed:
    email: Annotated[str, Schema("the address confirmed: notifications are mailed to it now", format="email")]


@dataclass(frozen=True, slots=True, kw_only=True)
class Unsubscribed:
    kind: Annotated[str, Schema(enum=NOTIFICATION_KINDS)]
    notify: Annotated[bool, Schema("always false: this kind is no longer mailed")]


class PasswordSerializer(ObjectSerializer):
    password = StrictCharField(max_length=128, trim_whitespace=False, write_only=True)


class MeView(ApiView):
    body_methods = frozenset({"patch", "delete"})
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="me_retrieve", responses={200: Me, **error_responses(401)},
        description="Your own settings: the e-mail address (confirmed, and one waiting for its link), which "
        "notifications are mailed, the language; and your queue entry (`queue`, null when not in the queue).",
    )
    def get(self, request: Request) -> Response:
        user = signed_in(request.user)
        return _me(user, preferences.settings_of(user))

    @extend_schema(
        operation_id="me_update", request=MeUpdateSerializer,
        responses={200: Me, **error_responses(400, 401, 403, 413, 415, 429)},
        description="Change your settings; fields left out stay. A new address is mailed a link (valid "
        f"{mail_links.CONFIRM_DAYS} days) and used once it is opened; until then `email_pending` shows it. Confirmation "
        "mails are limited per account and per address: past the limit 429 `too_many_mails`, nothing changed or sent.",
    )
    def patch(self, request: Request) -> Response:
        user = signed_in(request.user)
        return _me(user, preferences.account_update(user, valid_body(MeUpdateSerializer, request.data)))


    @extend_schema(
        operation_id="me_destroy", request=PasswordSerializer,
        responses={204: None, **error_responses(400, 401, 413, 415, 429)},
        description="Erase your personal data: your name becomes a pseudonym, your e-mail address, settings, sessions, "
        "tokens and notifications go, your seats in games still running are resigned (the game's fallback bot plays on), "
        "your seats in games not started are freed, a game you created and nobody started passes to the next person "
        "seated (deleted if nobody is), your invitations, queue entry and rematch acceptances are withdrawn. Every "
        "game log, audit export and rating history still verifies (they name seats and account ids, never a person). "
        "Wrong password: 400 `bad_credentials`.",
    )
    def delete(self, request: Request) -> Response:
        user = signed_in(request.user)
        password = valid_body(PasswordSerializer, request.data)["password"]
        if not password_guard.password_matches(request._request, user, password):
            return error("bad_credentials", "that is not your password: nothing was erased", 400, field="password")
        privacy.erase(user)
        return Response(status=204)

    def get_throttles(self) -> list[BaseThrottle]:
        """The password check is throttled as a login is; reading and changing settings are not."""
        return [AuthThrottle()] if self.request.method == "DELETE" else super().get_throttles()


class ExportView(ApiView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        responses={200: OpenApiResponse(description="everything stored about you, as JSON"), **error_responses(401)},
        description="Everything stored about you: your account and settings, your seats, ratings and rating history, "
        "notifications, queue entry, vacations, invitations and when your tokens were made (not the tokens).",
    )
    @reads_may_lag("person")
    def get(self, request: Request) -> Response:
        return Response(privacy.export(signed_in(request.user)))


def _me(user: User, settings: AccountSettings) -> Response:
    return Response(to_json(Me(**fields_of(settings), vacation=vacations.status(user), queue=_queue(user))))


def _queue(user: User) -> QueueStatus | None:
    """GET /api/queue's answer, or None where it answers 404 `not_queued`: a client reads it here without a 404."""
    try:
        return matchmaker.status(matchmaker.entry_of(user))
    except ServiceError:
        return None


class _LinkView(ApiView):
    """Opened from a mail: the token is the credential, so no login, no session (no CSRF) and no throttle."""

    authentication_classes: list[type[BaseAuthentication]] = []
    permission_classes = [permissions.AllowAny]


class EmailConfirmView(_LinkView):
    body_methods = frozenset({"post"})

    @extend_schema(
        operation_id="me_email_confirm", request=LinkTokenSerializer,
        responses={200: Confirmed, 404: INVALID_TOKEN, **error_responses(400, 413, 415)},
        description="Confirm an address with the token of the link mailed to it (no login needed).",
    )
    def post(self, request: Request) -> Response:
        email = preferences.email_confirm(valid_body(LinkTokenSerializer, request.data)["token"])
        return Response(to_json(Confirmed(email=email)))


class UnsubscribeView(_LinkView):
    body_methods = frozenset({"post"})

    @extend_schema(
        operation_id="me_unsubscribe", request=LinkTokenSerializer,
        responses={200: Unsubscribed, 404: INVALID_TOKEN, **error_responses(400, 413, 415)},
        description="Stop mailing the kind of notification the token of a mail's link names (no login needed).",
    )
    def post(self, request: Request) -> Response:
        kind = preferences.unsubscribe(valid_body(LinkTokenSerializer, request.data)["token"])
        return Response(to_json(Unsubscribed(kind=kind, notify=False)))
