"""Django admin: users come from django.contrib.auth; games and seats editable; events and ratings read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from games.models import BotAccount, Event, Game, Rating, RatingChange, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "map", "players", "status", "ranked", "seq", "created_by", "created_at")
    list_filter = ("map", "status", "ranked")
    readonly_fields = ("seq", "head_hash", "started_at", "finished_at")
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("game", "number", "user", "bot")


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows nobody edits by hand: events are append-only; ratings derive from the rated games (`recompute_ratings`)."""

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("game", "seq", "type", "seat", "created_at")
    list_filter = ("type",)
    readonly_fields = [f.name for f in Event._meta.fields]


@admin.register(BotAccount)
class BotAccountAdmin(ReadOnlyAdmin):
    list_display = ("level", "user")


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ("user", "map", "mu", "sigma", "games", "wins")
    list_filter = ("map",)
    search_fields = ("user__username",)


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ("id", "game", "user", "map", "place", "mu_before", "mu_after", "at")
    list_filter = ("map",)
    search_fields = ("user__username",)
