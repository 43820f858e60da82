"""A process settled before it serves: what its first requests or tasks would import and load is loaded now, then
frozen out of the garbage collector's sight (`gc.freeze`).

A web process holds some 150,000 objects once Django, DRF, Channels and our modules are imported. CPython's full
collection walks every one of them: 270-300 ms on this machine, all that time holding every request of the process
(the interpreter's lock), and it comes back whenever enough new objects have outlived two younger collections. Frozen,
the start-up's objects are never walked again (they live as long as the process anyway); a full collection walks
only what came after (the games' states, the requests under way). Called once, at the end of start-up: by
ttr_server/asgi.py in each web process, and by ttr_server/celery.py in each worker before it forks its pool (the
children inherit the frozen objects, and leave their pages shared).
"""

from __future__ import annotations

import gc

MAPS = ("europe", "usa")


def settle() -> int:
    """Import every view (the URL configuration) and load both maps, then freeze; the objects frozen."""
    from django.urls import get_resolver

    from games.engine.board import load_board

    get_resolver().url_patterns  # noqa: B018  (imports every view module: the first request would)
    for name in MAPS:
        load_board(name)
    gc.collect()  # what start-up left as garbage is freed first, not frozen
    gc.freeze()
    return gc.get_freeze_count()
