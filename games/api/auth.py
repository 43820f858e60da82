"""Accounts: register, token, session login and logout. Throttled (scope "auth")."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model, login, logout
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.authtoken.models import Token
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from games.api.errors import error
from games.api.serializers import CredentialsSerializer


class AuthThrottle(ScopedRateThrottle):
    scope_attr = "throttle_scope"

    def get_rate(self) -> str | None:
        return getattr(settings, "AUTH_THROTTLE_RATE", None) or super().get_rate()


class _AuthView(APIView):
    permission_classes = [permissions.AllowAny]
    throttle_classes = [AuthThrottle]
    throttle_scope = "auth"

    def credentials(self, request: Request) -> dict[str, Any]:
        serializer = CredentialsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)


class RegisterView(_AuthView):
    @extend_schema(request=CredentialsSerializer, responses={201: dict, 400: dict})
    def post(self, request: Request) -> Response:
        data = self.credentials(request)
        User = get_user_model()
        user = User(username=data["username"])
        try:
            User.username_validator(data["username"])
            validate_password(data["password"], user)
        except DjangoValidationError as problem:
            return error("invalid", " ".join(problem.messages), status.HTTP_400_BAD_REQUEST)
        user.set_password(data["password"])
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:
            return error("username_taken", "that username is taken", status.HTTP_400_BAD_REQUEST)
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"username": user.username, "token": token.key}, status=status.HTTP_201_CREATED)


class TokenView(_AuthView):
    @extend_schema(request=CredentialsSerializer, responses={200: dict, 400: dict})
    def post(self, request: Request) -> Response:
        data = self.credentials(request)
        user = authenticate(request, username=data["username"], password=data["password"])
        if user is None:
            return error("bad_credentials", "wrong username or password", status.HTTP_400_BAD_REQUEST)
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


class LoginView(_AuthView):
    @extend_schema(request=CredentialsSerializer, responses={200: dict, 400: dict})
    def post(self, request: Request) -> Response:
        data = self.credentials(request)
        user = authenticate(request, username=data["username"], password=data["password"])
        if user is None:
            return error("bad_credentials", "wrong username or password", status.HTTP_400_BAD_REQUEST)
        login(request._request, user)
        return Response({"username": user.get_username()})


class LogoutView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(request=None, responses={200: dict})
    def post(self, request: Request) -> Response:
        logout(request._request)
        return Response({"ok": True})
