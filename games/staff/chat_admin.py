"""The chat's moderation in the Django admin (games/table/chat.py): reports to read, lines to hide (hidden for everyone,
kept for the record), people to bar from writing. Lines and reports are never edited by hand."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest

from games.staff.admin_base import ModelAdmin, ReadOnlyAdmin
from games.table import chat
from games.table.models import ChatBan, ChatMessage, ChatReport


def _staff(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


def _hide(modeladmin: ModelAdmin[Any], request: HttpRequest, line_ids: QuerySet[Any, int]) -> None:
    hidden = chat.hide(list(line_ids), staff=_staff(request))
    modeladmin.message_user(request, f"{hidden} line(s) hidden", messages.SUCCESS)


def _ban(modeladmin: ModelAdmin[Any], request: HttpRequest, author_ids: QuerySet[Any, Any], reason: str) -> None:
    for author in User.objects.filter(pk__in=author_ids):
        chat.ban(author, staff=_staff(request), reason=reason)
    modeladmin.message_user(request, "barred from chat", messages.SUCCESS)


@admin.action(description="Hide the selected lines for everyone (kept for the record)")
def hide_lines(modeladmin: ModelAdmin[ChatMessage], request: HttpRequest, queryset: QuerySet[ChatMessage]) -> None:
    _hide(modeladmin, request, queryset.values_list("pk", flat=True))


@admin.action(description="Bar the authors of the selected lines from writing in chat")
def ban_authors(modeladmin: ModelAdmin[ChatMessage], request: HttpRequest, queryset: QuerySet[ChatMessage]) -> None:
    _ban(modeladmin, request, queryset.values("user_id"), "barred from the admin's chat lines")


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin[ChatMessage]):
    list_display = ("id", "game", "user", "channel", "text", "created_at", "hidden_at")
    list_filter = ("channel", ("hidden_at", admin.EmptyFieldListFilter))
    search_fields = ("text", "user__username")
    actions = [hide_lines, ban_authors]


@admin.action(description="Hide the reported lines for everyone")
def hide_reported(modeladmin: ModelAdmin[ChatReport], request: HttpRequest, queryset: QuerySet[ChatReport]) -> None:
    _hide(modeladmin, request, queryset.values_list("message_id", flat=True))


@admin.action(description="Bar the reported lines' authors from writing in chat")
def ban_reported(modeladmin: ModelAdmin[ChatReport], request: HttpRequest, queryset: QuerySet[ChatReport]) -> None:
    _ban(modeladmin, request, queryset.values("message__user_id"), "barred after a report")


@admin.register(ChatReport)
class ChatReportAdmin(ReadOnlyAdmin[ChatReport]):
    list_display = ("id", "reported_text", "author", "reporter", "reason", "created_at", "hidden")
    list_select_related = ("message", "message__user", "reporter")
    actions = [hide_reported, ban_reported]

    @admin.display(description="line")
    def reported_text(self, report: ChatReport) -> str:
        return report.message.text

    @admin.display(description="author")
    def author(self, report: ChatReport) -> str:
        return report.message.user.username

    @admin.display(boolean=True)
    def hidden(self, report: ChatReport) -> bool:
        return report.message.hidden_at is not None


@admin.register(ChatBan)
class ChatBanAdmin(ReadOnlyAdmin[ChatBan]):
    """Bans come from the actions above; lifting one is deleting it."""

    list_display = ("user", "by", "reason", "created_at")

    def has_delete_permission(self, request: HttpRequest, obj: ChatBan | None = None) -> bool:
        return bool(request.user.is_staff)
