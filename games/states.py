"""Game states rebuilt from the log: an in-process LRU cache, then snapshots, then a replay.

Every path ends at the same answer as replaying the whole log; the cache and the snapshots only save time
and can be dropped at any moment. Cached states are shared and never mutated (the engine's `step` copies).
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from typing import Any

from django.conf import settings
from django.db import connection

from games.engine import State, evolve_in_place, replay
from games.log import events_between, game_key
from games.models import Snapshot

_lock = threading.Lock()
_cache: OrderedDict[Any, tuple[int, State]] = OrderedDict()


def remember(game_id: Any, seq: int, state: State) -> None:
    with _lock:
        cached = _cache.get(game_id)
        if cached is None or cached[0] <= seq:
            _cache[game_id] = (seq, state)
            _cache.move_to_end(game_id)
        while len(_cache) > settings.GAME_STATE_CACHE_SIZE:
            _cache.popitem(last=False)


def forget_all() -> None:
    with _lock:
        _cache.clear()


def state_at(game_id: Any, seq: int) -> State:
    """The state after event `seq`; cache and snapshots first, then the events after them."""
    with _lock:
        cached = _cache.get(game_id)
    if cached is not None and cached[0] == seq:
        return cached[1]
    if cached is not None and cached[0] < seq:
        base_seq, state = cached[0], cached[1].copy()
    else:
        base_seq, state = _from_snapshot(game_id, seq)
    if state is None:
        state = replay(events_between(game_id, 0, seq))
    else:
        for event in events_between(game_id, base_seq, seq):
            evolve_in_place(state, event)
    remember(game_id, seq, state)
    return state


def _from_snapshot(game_id: Any, seq: int) -> tuple[int, State | None]:
    if seq < settings.GAME_SNAPSHOT_EVERY:
        return 0, None  # none taken yet
    with connection.cursor() as cursor:  # plain SQL on this hot path, like log.events_between
        cursor.execute(_LATEST_SNAPSHOT, [game_key(game_id), seq])
        found = cursor.fetchone()
    if found is None:
        return 0, None
    state: State = pickle.loads(bytes(found[1]))  # our own rows, written by maybe_snapshot
    return found[0], state


_LATEST_SNAPSHOT = (
    f"SELECT seq, state FROM {Snapshot._meta.db_table} WHERE game_id = %s AND seq <= %s ORDER BY seq DESC LIMIT 1"
)


def maybe_snapshot(game_id: Any, old_seq: int, new_seq: int, state: State) -> None:
    every = settings.GAME_SNAPSHOT_EVERY
    if every and new_seq // every > old_seq // every:
        Snapshot.objects.get_or_create(
            game_id=game_id, seq=new_seq, defaults={"state": pickle.dumps(state, pickle.HIGHEST_PROTOCOL)}
        )
