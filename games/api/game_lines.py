"""A finished game as one line of JSON (docs/AUDIT.md, "The game line"): its summary as the public sees it, its
audit log as GET /api/games/{id}/audit gives it, the seeds the log reveals, its signed checkpoint and its rating
changes. The stream of games (GET /api/games/export) and the monthly dumps (games/api/dumps.py) hold these lines.

It lives in the API's layer because it is made of the API's answers (the summary's JSON is `typed_json`'s).
`game_lines(games)` reads the games in (finished_at, id) order a page at a time, each page's query starting after
the last game of the page before (keyset pages: no OFFSET, no cursor held open), so what it holds at once is one
page whatever the count. A page costs a bounded number of queries: the games with their creator, four for the
seats, their people and the rematch offers, one for the checkpoints, one for the rating changes, and one for every
EVENTS_PER_QUERY events of its logs.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, cast
from uuid import UUID

from django.db.models import Q, QuerySet

from games.api.typed_json import to_json
from games.engine.codec import event_from_dict
from games.engine.events import SeedsCommitted, SeedsRevealed
from games.engine.fairness import revealed_seeds
from games.play import selectors
from games.play.models import RatingChange
from games.store import event_log
from games.store.models import Event, Game
from games.trust import signing
from games.trust.models import Checkpoint

FORMAT = "ttr-game/1"
PAGE_SIZE = 200  # games a page
EVENTS_PER_QUERY = 5_000  # a page's logs are read in queries of about this many events
_SEED_EVENTS = (SeedsCommitted.type, SeedsRevealed.type)
# An event row's fields that `event_log.audit_line` reads: a page's tens of thousands of rows are read as named
# tuples of these, which costs half what building a model for each does.
_ROW_FIELDS = ("game_id", "seq", "type", "created_at", "seat", "data", "commitment", "salt", "prev_hash", "hash", "reason")

Line = dict[str, Any]


def listed_finished() -> QuerySet[Game]:
    """The games a stream or a dump may hold: finished ones, not private (the site names no private game in public:
    its id is what lets anyone watch it), in the lines' order."""
    return Game.objects.filter(status=Game.Status.FINISHED, private=False, finished_at__isnull=False).order_by(
        "finished_at", "id"
    )


def game_line(game: Game) -> Line:
    """The game's line (a finished game: docs/AUDIT.md)."""
    return next(_page_lines(list(_with_parts(Game.objects.filter(pk=game.pk)))))


def game_lines(games: QuerySet[Game], *, page_size: int = PAGE_SIZE) -> Iterator[Line]:
    """The line of every game of `games` (finished games), in (finished_at, id) order, read a page at a time."""
    ordered = games.order_by("finished_at", "id")
    after: tuple[datetime, UUID] | None = None
    while True:
        rest = ordered if after is None else ordered.filter(
            Q(finished_at__gt=after[0]) | Q(finished_at=after[0], id__gt=after[1])
        )
        page = list(_with_parts(rest)[:page_size])
        yield from _page_lines(page)
        if len(page) < page_size:
            return
        finished_at = page[-1].finished_at
        assert finished_at is not None  # (finished games only)
        after = (finished_at, page[-1].id)


def encoded(line: Line) -> bytes:
    """The line as the stream and the dumps write it: compact JSON, keys sorted, UTF-8, and a newline."""
    return json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def moment_text(at: datetime) -> str:
    """A moment as the lines and manifests write it: UTC, microseconds, `Z` (2026-11-28T10:11:12.123456Z)."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _with_parts(games: QuerySet[Game]) -> QuerySet[Game]:
    """What a summary reads, in the page's queries (the selectors' own prefetching)."""
    return selectors._with_summary_parts(games)


def _page_lines(page: list[Game]) -> Iterator[Line]:
    ids = [game.pk for game in page]
    checkpoints = {c.game_id: c for c in Checkpoint.objects.filter(game_id__in=ids)}
    ratings: dict[UUID, list[Line]] = defaultdict(list)
    for change in RatingChange.objects.filter(game_id__in=ids).order_by("id"):
        ratings[change.game_id].append(_rating(change))
    for games in _by_events(page):
        rows: dict[UUID, list[Event]] = defaultdict(list)
        found = Event.objects.filter(game_id__in=[game.pk for game in games]).order_by("game", "seq")
        for row in found.values_list(*_ROW_FIELDS, named=True):
            rows[row.game_id].append(cast(Event, row))  # (the fields an audit line reads, without a model each)
        for game in games:
            yield _line(game, rows[game.pk], checkpoints.get(game.pk), ratings[game.pk])


def _by_events(page: list[Game]) -> Iterator[list[Game]]:
    """The page's games in runs whose logs hold about EVENTS_PER_QUERY events together (a longer log: alone)."""
    run: list[Game] = []
    events = 0
    for game in page:
        if run and events + game.seq > EVENTS_PER_QUERY:
            yield run
            run, events = [], 0
        run.append(game)
        events += game.seq
    if run:
        yield run


def _line(game: Game, rows: Sequence[Event], checkpoint: Checkpoint | None, ratings: list[Line]) -> Line:
    assert game.finished_at is not None
    signed = signing.checkpoint_json(checkpoint) if checkpoint is not None and checkpoint.seq == game.seq else None
    audit = [event_log.audit_line(row) for row in rows]
    if audit and signed is not None:  # as /audit gives it: the last line carries the checkpoint
        audit[-1]["checkpoint"] = signed
    return {
        "format": FORMAT,
        "game": to_json(selectors.game_summary(game)),
        "finished_at": moment_text(game.finished_at),
        "audit": audit,
        "seeds": _seeds(rows),
        "checkpoint": signed,
        "ratings": ratings,
    }


def _seeds(rows: Sequence[Event]) -> dict[str, Any] | None:
    """The seeds the log reveals, as hex: the server's, and each seat's in seat order ("" for none)."""
    seeds = revealed_seeds([event_from_dict(row.data) for row in rows if row.type in _SEED_EVENTS])
    if seeds is None:
        return None
    return {"server_seed": seeds.server.hex(), "client_seeds": [seed.hex() for seed in seeds.clients]}


def _rating(change: RatingChange) -> Line:
    return {
        "user": change.user_id, "map": change.map, "place": change.place, "seat_places": change.seat_places,
        "mu_before": change.mu_before, "sigma_before": change.sigma_before, "mu_after": change.mu_after,
        "sigma_after": change.sigma_after, "order": change.pk,
    }
