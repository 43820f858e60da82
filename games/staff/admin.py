"""Django admin: users come from django.contrib.auth; games, seats, events and ratings are read-only. What staff may
do to a game is an action that appends an event (games/staff/operator_actions.py), asked for with a reason and confirmed.

Events are not a model of the admin's: their key is (game, seq) (the table is partitioned by game) and Django's admin
refuses a model with a composite primary key. A game's log is a read-only page of the game's instead
(`/admin/games/game/<id>/events/`, linked from the game's page), every row of it with every field."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponseBase, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from games.play.models import Rating, RatingChange
from games.staff import chat_admin, operator_actions, tournament_admin  # noqa: F401  (the admins register themselves)
from games.staff.admin_base import ModelAdmin, ReadOnlyAdmin, TabularInline
from games.store.models import BOT_LEVELS, BotAccount, Event, Game, Seat
from games.store.service_error import ServiceError


class SeatInline(TabularInline[Seat, Game]):
    model = Seat
    extra = 0
    can_delete = False
    readonly_fields = [f.name for f in Seat._meta.fields]

    def has_add_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:  # (a seat, or its game)
        return False


def _confirmation(
    modeladmin: ModelAdmin[Game], request: HttpRequest, template: str, title: str, **context: object
) -> TemplateResponse:
    """The page an action shows before it acts: what it will do, and the form for the reason (and the rest)."""
    context |= {
        **modeladmin.admin_site.each_context(request), "title": title,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME, "opts": modeladmin.model._meta,
    }
    return TemplateResponse(request, f"admin/games/game/{template}.html", context)


def _one_game(modeladmin: ModelAdmin[Game], request: HttpRequest, queryset: QuerySet[Game]) -> Game | None:
    games = list(queryset[:2])
    if len(games) != 1:
        modeladmin.message_user(request, "choose exactly one game", messages.ERROR)
        return None
    return games[0]


def _confirmed(request: HttpRequest) -> bool:
    return request.POST.get("confirmed") == "yes"


@admin.action(description="Abort the selected games (unrated; asks for a reason first)")
def abort_games(modeladmin: ModelAdmin[Game], request: HttpRequest, queryset: QuerySet[Game]) -> TemplateResponse | None:
    if not _confirmed(request):
        return _confirmation(modeladmin, request, "abort", "Abort games", games=list(queryset))
    for game in queryset:
        try:
            operator_actions.game_abort(game.pk, staff=request.user, reason=request.POST.get("reason", ""))  # type: ignore[arg-type]
        except ServiceError as refused:
            modeladmin.message_user(request, f"{game}: {refused.detail}", messages.ERROR)
        else:
            modeladmin.message_user(request, f"{game}: aborted", messages.SUCCESS)
    return None


@admin.action(description="Replace a seat's occupant (one game; asks who, and why, first)")
def replace_seat(modeladmin: ModelAdmin[Game], request: HttpRequest, queryset: QuerySet[Game]) -> TemplateResponse | None:
    if (game := _one_game(modeladmin, request, queryset)) is None:
        return None
    if not _confirmed(request):
        return _confirmation(
            modeladmin, request, "replace_seat", "Replace a seat's occupant", game=game, levels=BOT_LEVELS
        )
    post = request.POST
    try:
        seat = int(post.get("seat", ""))
        operator_actions.seat_replace(
            game.pk, seat=seat, staff=request.user, reason=post.get("reason", ""),  # type: ignore[arg-type]
            bot=post.get("bot") or None, username=(post.get("username") or "").strip() or None,
        )
    except (ServiceError, ValueError) as refused:
        modeladmin.message_user(request, f"{game}: {getattr(refused, 'detail', 'the seat is a number')}", messages.ERROR)
    else:
        modeladmin.message_user(request, f"{game}: seat {seat} replaced", messages.SUCCESS)
    return None


@admin.action(description="Grant a seat more time (one game; asks which seat, how much and why first)")
def grant_time(modeladmin: ModelAdmin[Game], request: HttpRequest, queryset: QuerySet[Game]) -> TemplateResponse | None:
    if (game := _one_game(modeladmin, request, queryset)) is None:
        return None
    if not _confirmed(request):
        return _confirmation(
            modeladmin, request, "grant_time", "Grant a seat more time", game=game,
            most_minutes=operator_actions.MOST_SECONDS // 60,
        )
    post = request.POST
    try:
        seat, minutes = int(post.get("seat", "")), int(post.get("minutes", ""))
        operator_actions.time_grant(
            game.pk, seat=seat, seconds=minutes * 60, staff=request.user, reason=post.get("reason", ""),  # type: ignore[arg-type]
        )
    except (ServiceError, ValueError) as refused:
        detail = getattr(refused, "detail", "the seat and the minutes are whole numbers")
        modeladmin.message_user(request, f"{game}: {detail}", messages.ERROR)
    else:
        modeladmin.message_user(request, f"{game}: seat {seat} has {minutes} more minutes", messages.SUCCESS)
    return None


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin[Game]):
    """A game is changed only by what its log records: a move, or an operator's action (`actions`)."""

    list_display = ("id", "map", "players", "status", "ranked", "seq", "created_by", "created_at")
    list_filter = ("map", "status", "ranked")
    exclude = ("server_seed",)  # secret until the game is over (X-RNG-2): not shown, even to staff
    readonly_fields = ("event_log",)
    inlines = [SeatInline]
    actions = [abort_games, replace_seat, grant_time]

    @admin.display(description="log")
    def event_log(self, game: Game) -> str:
        return format_html('<a href="{}">{} events</a>', reverse("admin:games_game_events", args=[game.pk]), game.seq)

    def get_urls(self) -> list[URLPattern]:
        events = path(
            "<path:object_id>/events/", self.admin_site.admin_view(self.events_view), name="games_game_events"
        )
        return [events, *super().get_urls()]

    def events_view(self, request: HttpRequest, object_id: str) -> HttpResponseBase:
        """The game's log, read-only: each row with every field (what the event admin showed)."""
        return _events_page(self, request, object_id)


def _events_page(modeladmin: GameAdmin, request: HttpRequest, object_id: str) -> HttpResponseBase:
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])
    if not modeladmin.has_view_permission(request):
        raise PermissionDenied
    try:
        game = get_object_or_404(Game, pk=object_id)
    except (ValueError, TypeError, ValidationError) as bad:  # not a game id at all
        raise Http404 from bad
    rows = Event.objects.filter(game_id=game.pk).order_by("seq")  # the key's order: one partition, one index range
    context = {
        **modeladmin.admin_site.each_context(request), "title": f"Log of {game}", "game": game, "rows": rows,
        "opts": modeladmin.model._meta,
    }
    return TemplateResponse(request, "admin/games/game/events.html", context)


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin[Seat]):
    list_display = ("game", "number", "user", "bot")


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
