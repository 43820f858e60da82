"""The views whose reads may lag: `@reads_may_lag(rule)` on a view's `get` sends its reads to the replica
(DATABASE_REPLICA_URL, ttr_server/db_router.py) unless read-your-writes needs the primary:

- "game" (replay, audit, analysis: the game in the URL): a person seated in the game reads it from the primary
  (asked of the primary: a seat taken a moment ago counts); anyone else from the replica.
- "person" (the export of one's own data): the replica only when it has replayed everything the primary had
  committed as the request began (`db_router.caught_up()`), so the person's latest writes are in it.
- "public" (the leaderboard, a player's page): the replica; ratings are written by the workers, not the reader.

A replica that fails (down, or a query cancelled by its recovery) costs a second try on the primary, not a 503. No
replica configured: the view runs as it is, on the primary.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, Literal, TypeVar, cast

from rest_framework.request import Request

from games.store.models import Seat
from ttr_server import db_router, unavailable

logger = logging.getLogger(__name__)
Rule = Literal["game", "person", "public"]
_View = TypeVar("_View", bound=Callable[..., Any])


def reads_may_lag(rule: Rule) -> Callable[[_View], _View]:
    def decorate(method: _View) -> _View:
        @functools.wraps(method)
        def view(self: Any, request: Request, *args: Any, **kwargs: Any) -> Any:
            if not db_router.replica_configured() or not _replica_allowed(rule, request, kwargs):
                return method(self, request, *args, **kwargs)
            try:
                with db_router.reads_from(db_router.REPLICA):
                    return method(self, request, *args, **kwargs)
            except Exception as error:
                if unavailable.which(error) != "database":
                    raise
                logger.warning("replica read failed, reading the primary: %s", type(error).__name__)
                return method(self, request, *args, **kwargs)

        return cast(_View, view)

    return decorate


def _replica_allowed(rule: Rule, request: Request, kwargs: dict[str, Any]) -> bool:
    user = request.user
    if rule == "public" or user is None or not user.is_authenticated:
        return True
    if rule == "game":
        seated = Seat.objects.using(db_router.DEFAULT).filter(game_id=kwargs["game_id"], user_id=user.pk).exists()
        return not seated
    try:
        return db_router.caught_up()
    except Exception as error:
        if unavailable.which(error) != "database":
            raise
        return False
