"""A worker outlives a Redis restart (finding 7 of #30): the same process, not one the stack started again, takes
the next bot turn once Redis is back, and no worker logged an unrecoverable error. Before, the default worker died
("Unrecoverable error: KeyError('hostname')" in its gossip consumer) and came back only because the stack restarts
dead children."""

from __future__ import annotations

import time

import httpx

from bench.fault_stack.harness import Harness

WORKERS = ("worker-0", "worker-strong-0", "worker-analysis-0")


def _register(base: str, username: str) -> dict[str, str]:
    answer = httpx.post(f"{base}/api/auth/register", json={"username": username, "password": "correct-horse-9"})
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"Token {answer.json()['token']}"}


def _bot_has_moved(base: str, game: int, headers: dict[str, str]) -> bool:
    answer = httpx.get(f"{base}/api/games/{game}/events?after=0", headers=headers, timeout=10)
    return answer.status_code == 200 and any(
        event.get("seat") == 1 and event.get("type") == "tickets_kept" for event in answer.json()["events"]
    )


def test_a_worker_outlives_a_redis_restart_and_takes_the_next_bot_turn(stack: Harness) -> None:
    base = stack.urls[0]
    before = {name: stack.stack.children[name].pid for name in WORKERS}
    stack.redis.restart(down_seconds=5.0)  # long enough for the workers' first reconnection attempts to fail

    headers = _register(base, "survivor0")
    created = httpx.post(f"{base}/api/games", json={"map": "usa", "players": 2, "ranked": False}, headers=headers)
    assert created.status_code == 201, created.text
    game = created.json()["id"]
    started = httpx.post(f"{base}/api/games/{game}/start", json={"fill_with_bots": "greedy"}, headers=headers)
    assert started.status_code == 200, started.text

    deadline = time.monotonic() + 120  # a loaded machine: the worker reconnects with back-off, then plays
    while not _bot_has_moved(base, game, headers):
        assert time.monotonic() < deadline, "the bot never chose its tickets after Redis came back"
        time.sleep(0.5)

    after = {name: stack.stack.children[name].pid for name in WORKERS}
    assert after == before, f"a worker was started again: {before} -> {after}"
    assert all(stack.stack.children[name].running() for name in WORKERS)
    fatal = [
        f"{name}: {line.get('event')}" for name, line in stack.log_lines()
        if "Unrecoverable error" in str(line.get("event", ""))
    ]
    assert fatal == [], fatal
