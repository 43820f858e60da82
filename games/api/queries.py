"""Query parameters of the API, parsed strictly and described in the schema (the same serializers do both), and the
schemas of the path parameters that are not game ids (the URL converters read those)."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request

from games.api.fields import INT64_MAX, ObjectSerializer, QueryBooleanField, QueryIntegerField, StrictChoiceField
from games.store.models import Game

MAX_PAGE_SIZE = 100
USERNAME_IN_PATH = {"type": "string", "minLength": 1, "maxLength": 150}  # the longest name an account can have
MESSAGE_ID_IN_PATH = {"type": "integer", "format": "int64", "minimum": 0, "maximum": INT64_MAX}


class GamesQuery(ObjectSerializer):
    status = StrictChoiceField(list(Game.Status.values), required=False, help_text="only games in this status")
    mine = QueryBooleanField(required=False, help_text="only games you have a seat in (1 or true)")
    page = QueryIntegerField(min_value=1, required=False)
    page_size = QueryIntegerField(min_value=1, max_value=MAX_PAGE_SIZE, required=False)


class NotificationsQuery(ObjectSerializer):
    unread = QueryBooleanField(required=False, help_text="only the notifications not read yet (1 or true)")


class EventsQuery(ObjectSerializer):
    after = QueryIntegerField(min_value=0, required=False, help_text="the events after this seq (default 0: all)")


class ChatQuery(ObjectSerializer):
    after = QueryIntegerField(min_value=0, required=False, help_text="the lines after this id (default 0: from the first)")


class ReplayQuery(ObjectSerializer):
    at = QueryIntegerField(min_value=0, help_text="the seq to show the game at (0 .. the game's seq)")


def parsed(query_class: type[ObjectSerializer], request: Request) -> dict[str, Any]:
    """The query parameters this serializer describes, or a 400 `invalid` naming the one at fault."""
    given, described = request.query_params, query_class().fields
    serializer = query_class(data={name: given[name] for name in given if name in described})
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class TournamentsQuery(ObjectSerializer):
    status = StrictChoiceField(["upcoming", "running", "finished"], required=False, help_text="default: upcoming")
    page = QueryIntegerField(min_value=1, required=False)
    page_size = QueryIntegerField(min_value=1, max_value=MAX_PAGE_SIZE, required=False)


class TablesQuery(ObjectSerializer):
    round = QueryIntegerField(min_value=1, required=False, help_text="the round (an arena: its pairing's number)")
