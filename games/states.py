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

from games.engine import State, evolve_in_place, replay
from games.log import engine_event, rows_between
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
        state = replay(engine_event(row) for row in rows_between(game_id, 0, seq))
    else:
        for row in rows_between(game_id, base_seq, seq):
            evolve_in_place(state, engine_event(row))
    remember(game_id, seq, state)
    return state


def _from_snapshot(game_id: Any, seq: int) -> tuple[int, State | None]:
    snapshot = Snapshot.objects.filter(game_id=game_id, seq__lte=seq).order_by("-seq").first()
    if snapshot is None:
        return 0, None
    state: State = pickle.loads(bytes(snapshot.state))  # our own rows, written by save_snapshot
    return snapshot.seq, state


def maybe_snapshot(game_id: Any, old_seq: int, new_seq: int, state: State) -> None:
    every = settings.GAME_SNAPSHOT_EVERY
    if every and new_seq // every > old_seq // every:
        Snapshot.objects.get_or_create(
            game_id=game_id, seq=new_seq, defaults={"state": pickle.dumps(state, pickle.HIGHEST_PROTOCOL)}
        )
