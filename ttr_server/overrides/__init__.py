"""Framework overrides, in one place: each replaces a framework's own way for a measured gain or a correctness fix,
ties an upgrade to that framework's version, and can be switched off.

| name            | overrides                       | written against              | off/on (1) | pinned by (2)          |
|-----------------|---------------------------------|------------------------------|------------|------------------------|
| http_one_hop    | Django's ASGIHandler (3)        | Django 5.2.19 asgiref 3.13.0 | 1.69       | test_http_one_hop_*    |
| game_token_read | DRF's TokenAuthentication (4)   | djangorestframework 3.18.3   | 1.35       | test_game_token_read_* |
| atomic_broker   | kombu's filesystem Channel._put | kombu 5.7.0                  | fix (5)    | test_atomic_broker_*   |

(1) The web CPU a move (bench/api.py's `web_cpu_seconds_per_move`) with the override off over with it on, the median
of rounds: http_one_hop 6 rounds, 1.64-2.32 (and `POST /moves` p50 1.55); game_token_read 9 rounds, 0.99-1.88.
Measured 2026-11-27 on the 2-core machine, shared and busy (load 4-19): in rounds, each one run with all the
overrides on and one with each off, in turn and in rotated order, the ratio taken within the round:

    for r in 1 2 3; do for overrides in all -http_one_hop -game_token_read; do
      TTR_OVERRIDES=$overrides .venv/bin/python bench/api.py --clients 8 --workers 1 --seconds 20 --json r$r$overrides.json
    done; done

(2) In tests/server/test_overrides.py, each with the override on and off whatever TTR_OVERRIDES says.
(3) ttr_server/overrides/http_handler.py: `__call__` without Django's `ThreadSensitiveContext` (a thread started and
joined per request) and `handle` in one `sync_to_async` call instead of about six hops; Django's private
`_handler_class` set on the response as its own `handle` does.
(4) A games-side hook: games/api/authentication.py `GameTokenAuthentication` overrides `authenticate_credentials`,
with games/store/game_rows.py. The token is checked in the statement that reads the game, which it leaves on the view
(`view.game_read`, the view taken from `request.parser_context`); off, DRF's own token check, and the view reads the
game itself.
(5) ttr_server/overrides/atomic_broker.py: a fix of correctness, not of speed. kombu's own `_put` creates the message
file before it writes it, and a worker that lists the folder in between reads it empty and dies on the JSON error
(within minutes under `make run`); no transport option writes it another way. Off, the settings name kombu's own
`filesystem://`.

Removed on these measurements, their gain within the noise (single rounds of these ranged 0.77-1.39): the web
process's gc freeze and thresholds (1.07 off/on, 6 rounds), psycopg_pool's private `_check` set to a poll of the
socket (1.03: now Django's CONN_HEALTH_CHECKS, a query per checkout), a move's append without a transaction (1.00:
now a plain `transaction.atomic()`), and, by `bench/realtime.py --games 40 --seconds 15 --rate 10` (web CPU a socket
move, flat out, 3 rounds), the game consumer's copy of Channels' `dispatch` (0.82: cheaper without it) and the
sockets' own executor in place of Channels' `database_sync_to_async` (0.89).

`TTR_OVERRIDES` (the environment, read by ttr_server/settings.py) says which are on: `all` (the default), `none`,
a comma list of names (only those), or a comma list of `-name` (all but those). `make test-plain` runs the whole
suite with none of them."""

from __future__ import annotations

NAMES = ("http_one_hop", "game_token_read", "atomic_broker")


class UnknownOverride(ValueError):
    pass


def parse(value: str) -> frozenset[str]:
    """The overrides `value` turns on (TTR_OVERRIDES)."""
    entries = [entry.strip() for entry in value.split(",") if entry.strip()]
    if not entries or entries == ["all"]:
        return frozenset(NAMES)
    if entries == ["none"]:
        return frozenset()
    off = [entry[1:] for entry in entries if entry.startswith("-")]
    if off and len(off) != len(entries):
        raise UnknownOverride(f"TTR_OVERRIDES names overrides to turn on or ones to turn off, not both: {value!r}")
    unknown = sorted(set(off or entries) - set(NAMES))
    if unknown:
        raise UnknownOverride(f"TTR_OVERRIDES: no override is called {', '.join(unknown)} (there are {', '.join(NAMES)})")
    return frozenset(NAMES) - frozenset(off) if off else frozenset(entries)


def enabled(name: str) -> bool:
    """Whether the override `name` is on (settings.TTR_OVERRIDES; tests may change it with the settings fixture)."""
    from django.conf import settings

    if name not in NAMES:
        raise UnknownOverride(name)
    return name in settings.TTR_OVERRIDES
