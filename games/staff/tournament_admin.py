"""Tournaments in the Django admin: staff feature or unfeature them (listed first); nothing else of a tournament is
edited by hand: its log is the record (games/tournaments/log.py)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from games.staff.admin_base import ModelAdmin
from games.tournaments.models import Tournament


@admin.action(description="Feature the selected tournaments (listed first)")
def feature(modeladmin: ModelAdmin[Tournament], request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
    modeladmin.message_user(request, f"{queryset.update(featured=True)} featured", messages.SUCCESS)


@admin.action(description="Stop featuring the selected tournaments")
def unfeature(modeladmin: ModelAdmin[Tournament], request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
    modeladmin.message_user(request, f"{queryset.update(featured=False)} no longer featured", messages.SUCCESS)


@admin.register(Tournament)
class TournamentAdmin(ModelAdmin[Tournament]):
    list_display = ["name", "format", "map", "speed", "status", "starts_at", "featured", "private"]
    list_filter = ["status", "format", "featured"]
    search_fields = ["name"]
    actions = [feature, unfeature]
    exclude = ["server_seed", "seed"]  # the seed stays secret until the end, from staff too

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return False  # the list's actions change `featured`; nothing else is edited by hand

    def has_delete_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return False
