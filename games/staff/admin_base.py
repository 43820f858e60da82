"""What the admin's pages share: Django's admin classes typed by model, and the read-only admin of rows nobody edits
by hand (games/staff/admin.py, games/staff/chat_admin.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

_M = TypeVar("_M", bound=Model)
_P = TypeVar("_P", bound=Model)

if TYPE_CHECKING:
    from django.contrib.admin import ModelAdmin as ModelAdmin
    from django.contrib.admin import TabularInline as TabularInline
else:  # django-stubs' admin classes take the model as a type argument; Django's own cannot be subscripted

    class ModelAdmin(admin.ModelAdmin, Generic[_M]):
        pass

    class TabularInline(admin.TabularInline, Generic[_M, _P]):
        pass


class ReadOnlyAdmin(ModelAdmin[_M]):
    """Rows nobody edits by hand: events are append-only; ratings derive from the rated games (`recompute_ratings`)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False
