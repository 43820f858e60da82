"""Game states rebuilt from the log: an in-process LRU cache, then snapshots, then a replay.

Every path ends at the same answer as replaying the whole log; the cache and the snapshots only save time
and can be dropped at any moment. Cached states are shared and never mutated (the engine's `step` copies).
Snapshots are versioned JSON (`games.store.snapshots`): a row of another format than the current one (the old
pickles, or one from a newer release) is ignored and the state comes from the log.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

from django.conf import settings
from django.db import connection

from games.engine import State, evolve_in_place, replay
from games.store.event_log import events_between, game_key
from games.store.models import GameId, Snapshot
from games.store.snapshots import SNAPSHOT_FORMAT, decode_state, encode_state

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_cache: OrderedDict[GameId, tuple[int, State]] = OrderedDict()


def remember(game_id: GameId, seq: int, state: State) -> None:
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


def state_at(game_id: GameId, seq: int) -> State:
    """The state after event `seq`; cache and snapshots first, then the events after them."""
    with _lock:
        cached = _cache.get(game_id)
    if cached is not None and cached[0] == seq:
        return cached[1]
    state: State | None
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


def _from_snapshot(game_id: GameId, seq: int) -> tuple[int, State | None]:
    if seq < settings.GAME_SNAPSHOT_EVERY:
        return 0, None  # none taken yet
    with connection.cursor() as cursor:  # plain SQL on this hot path, like log.events_between
        cursor.execute(_LATEST_SNAPSHOT, [game_key(game_id), seq, SNAPSHOT_FORMAT])
        found = cursor.fetchone()
    if found is None:
        return 0, None
    try:
        state = decode_state(found[1])
    except (ValueError, KeyError, TypeError):  # only a cache: a row we cannot read costs a replay, not an answer
        logger.warning("snapshot of game %s at %s unreadable: replaying the log", game_id, found[0], exc_info=True)
        return 0, None
    return found[0], state


_LATEST_SNAPSHOT = (
    f"SELECT seq, state FROM {Snapshot._meta.db_table} WHERE game_id = %s AND seq <= %s AND format = %s"
    " ORDER BY seq DESC LIMIT 1"
)


def snapshot_due(old_seq: int, new_seq: int) -> bool:
    every = settings.GAME_SNAPSHOT_EVERY
    return bool(every) and new_seq // every > old_seq // every


def maybe_snapshot(game_id: GameId, old_seq: int, new_seq: int, state: State) -> None:
    if snapshot_due(old_seq, new_seq):
        encoded = encode_state(state)
        row, created = Snapshot.objects.get_or_create(
            game_id=game_id, seq=new_seq, defaults={"format": SNAPSHOT_FORMAT, "state": encoded}
        )
        if not created and row.format != SNAPSHOT_FORMAT:  # a row of another format at this seq: replace it
            Snapshot.objects.filter(game_id=game_id, seq=new_seq).update(format=SNAPSHOT_FORMAT, state=encoded)
