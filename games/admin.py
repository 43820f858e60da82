"""Django admin: users come from django.contrib.auth; games and seats editable; events and ratings read-only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from games.models import BotAccount, Event, Game, Rating, RatingChange, Seat

_M = TypeVar("_M", bound=Model)
_P = TypeVar("_P", bound=Model)

if TYPE_CHECKING:
    from django.contrib.admin import ModelAdmin, TabularInline
else:  # django-stubs' admin classes take the model as a type argument; Django's own cannot be subscripted

    class ModelAdmin(admin.ModelAdmin, Generic[_M]):
        pass

    class TabularInline(admin.TabularInline, Generic[_M, _P]):
        pass


class SeatInline(TabularInline[Seat, Game]):
    model = Seat
    extra = 0
    readonly_fields = ("client_seed",)  # in the log from the deal (X-RNG-2): changing it here would change nothing


@admin.register(Game)
class GameAdmin(ModelAdmin[Game]):
    list_display = ("id", "map", "players", "status", "ranked", "seq", "created_by", "created_at")
    list_filter = ("map", "status", "ranked")
    readonly_fields = ("seq", "head_hash", "started_at", "finished_at")
    exclude = ("server_seed",)  # secret until the game is over (X-RNG-2): not shown, never edited, even by staff
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(ModelAdmin[Seat]):
    list_display = ("game", "number", "user", "bot")


class ReadOnlyAdmin(ModelAdmin[_M]):
    """Rows nobody edits by hand: events are append-only; ratings derive from the rated games (`recompute_ratings`)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin[Event]):
    list_display = ("game", "seq", "type", "seat", "created_at")
    list_filter = ("type",)
    readonly_fields = [f.name for f in Event._meta.fields]


@admin.register(BotAccount)
class BotAccountAdmin(ReadOnlyAdmin[BotAccount]):
    list_display = ("level", "user")


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin[Rating]):
    list_display = ("user", "map", "mu", "sigma", "games", "wins")
    list_filter = ("map",)
    search_fields = ("user__username",)


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin[RatingChange]):
    list_display = ("id", "game", "user", "map", "place", "mu_before", "mu_after", "at")
    list_filter = ("map",)
    search_fields = ("user__username",)
