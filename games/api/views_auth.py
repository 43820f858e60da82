"""Accounts: register, token, session login and logout. Throttled (scope "auth": requests per client address, in
each process), and wrong passwords are limited per username and per address across processes
(games/people/password_guard.py: 429 `too_many_attempts`, even for the right password, until the window passes).

Usernames and token lifetimes follow games.people.accounts. Logging out ends the session and revokes the token the
request was made with, so a stolen or shared token can be killed; the next login issues a new one.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model, login, logout
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from games.api import responses as r
from games.api import serializers as s
from games.api.bodies import ApiView
from games.api.error_responses import error, error_responses
from games.api.fields import ObjectSerializer
from games.api.typed_json import to_json
from games.people import accounts, password_guard


class AuthThrottle(ScopedRateThrottle):
    scope_attr = "throttle_scope"

    def get_rate(self) -> str | None:
        return getattr(settings, "AUTH_THROTTLE_RATE", None) or super().get_rate()


class _AuthView(APIView):
    permission_classes = [permissions.AllowAny]
    throttle_classes = [AuthThrottle]
    throttle_scope = "auth"

    def credentials(
        self, request: Request, serializer_class: type[ObjectSerializer] = s.CredentialsSerializer
    ) -> dict[str, Any]:
        return s.valid_body(serializer_class, request.data)


class RegisterView(_AuthView):
    @extend_schema(
        request=s.RegisterSerializer,
        responses={201: r.Registered, **error_responses(400, 413, 415, 429)},
        description="Create an account (usernames: games.people.accounts rules; unique in any case and NFKC form).",
    )
    def post(self, request: Request) -> Response:
        data = self.credentials(request, s.RegisterSerializer)
        username = accounts.normalised(data["username"])
        if accounts.user_named(username) is not None:
            return error("username_taken", "that username is taken", status.HTTP_400_BAD_REQUEST, field="username")
        problem = accounts.username_problem(username)
        if problem:
            return error("invalid", problem, status.HTTP_400_BAD_REQUEST, field="username")
        user = get_user_model()(username=username)
        try:
            validate_password(data["password"], user)
        except DjangoValidationError as problem_:
            return error("invalid", " ".join(problem_.messages), status.HTTP_400_BAD_REQUEST, field="password")
        user.set_password(data["password"])
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:  # registered meanwhile, in some case (the lower-case unique index)
            return error("username_taken", "that username is taken", status.HTTP_400_BAD_REQUEST, field="username")
        token = accounts.token_for(user)
        return Response(to_json(r.Registered(username=user.username, token=token.key)), status=status.HTTP_201_CREATED)


class TokenView(_AuthView):
    @extend_schema(
        request=s.CredentialsSerializer,
        responses={200: r.Token, **error_responses(400, 413, 415, 429)},
        description=f"The account's API token: valid for {settings.TOKEN_LIFETIME_DAYS} days or until logout.",
    )
    def post(self, request: Request) -> Response:
        data = self.credentials(request)
        user = password_guard.authenticate(request._request, data["username"], data["password"])
        if user is None:
            return error("bad_credentials", "wrong username or password", status.HTTP_400_BAD_REQUEST)
        return Response(to_json(r.Token(token=accounts.token_for(user).key)))


class LoginView(_AuthView):
    @extend_schema(
        request=s.CredentialsSerializer,
        responses={200: r.LoggedIn, **error_responses(400, 413, 415, 429)},
        description="Start a browser session (cookie); API clients use /api/auth/token instead.",
    )
    def post(self, request: Request) -> Response:
        data = self.credentials(request)
        user = password_guard.authenticate(request._request, data["username"], data["password"])
        if user is None:
            return error("bad_credentials", "wrong username or password", status.HTTP_400_BAD_REQUEST)
        login(request._request, user)
        return Response(to_json(r.LoggedIn(username=user.get_username())))


class LogoutView(ApiView):  # takes no body (games/api/bodies.py)
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        request=None,
        responses={200: r.Ok, **error_responses(401, 403)},
        description="End the session and revoke the token this request was made with.",
    )
    def post(self, request: Request) -> Response:
        accounts.token_revoke(request.auth)
        logout(request._request)
        return Response(to_json(r.Ok(ok=True)))
