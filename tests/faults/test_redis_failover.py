"""The Redis failover drill at a small size (bench/sentinel_failover.py runs it at 100 games): a Sentinel group of the
test's own (a primary, a replica, three Sentinels), the production layout on it through `redis+sentinel://`, a few
games of people (HTTP and socket) against greedy bots, and the primary SIGKILLed mid-game. Sentinel promotes the
replica; every game finishes, verifies and is scored once; every acknowledged move is in the log; every person has
their game_ended notification and its mail exactly once; no answer is a 5xx other than 503 and no process logs
a 500."""

from __future__ import annotations

import json
import os

import pytest

from bench import sentinel_failover
from bench.fault_stack import sentinel
from bench.fault_stack.harness import harness
from tests.faults.conftest import missing

pytestmark = pytest.mark.skipif(
    (missing() or sentinel.missing()) is not None, reason=str(missing() or sentinel.missing())
)


def test_games_go_on_through_a_redis_failover() -> None:
    extra = {**sentinel_failover.DRILL_ENV, "TTR_LOST_TASK_SECONDS": "3"}
    with sentinel.SentinelGroup() as group, harness(
        f"ttr_sentinel_test_{os.getpid()}", web=2, workers=1, strong_workers=1, concurrency=1,
        extra_env={**extra, "REDIS_URL": group.url},
    ) as h:
        outcome = sentinel_failover.run(
            h, group, games=2, seed=5, kill_after_events=30, rejoin=True, players=(2, 2), human_share=0.0,
            think=(0.0, 0.05), socket_share=0.5, bot_levels=("greedy",), spectator_share=0.0, users=4,
            stall_seconds=120, score_seconds=120,
        )
    figures = outcome.figures
    print(json.dumps({k: v for k, v in figures.items() if not k.startswith("sentinel_")}, indent=1, default=str))
    assert not outcome.problems, "\n".join(outcome.problems[:40])
    assert all(record.finished for record in outcome.records)
    assert figures["promoted_after_s"] < 30
    assert figures["first_bot_move_after_kill_s"] is not None, "no bot moved after the promotion"
    losses = figures["losses"]
    assert losses["notifications_mailed"] == losses["mails_written"] > 0, losses
    assert {k: v for k, v in losses.items() if k not in ("mails_written", "notifications_mailed")} == dict.fromkeys(
        ("games_unfinished", "games_not_scored_once", "notifications_missing", "notifications_duplicated",
         "mails_pending", "mails_missing", "mails_duplicated", "answers_500", "server_errors_in_logs", "problems"), 0
    )
    after = figures["sentinel_after"]["sentinels"]
    assert {view["primary"] for view in after.values()} == {f"127.0.0.1:{group_port}" for group_port in
                                                            {_new_primary(figures)}}


def _new_primary(figures: dict[str, object]) -> int:
    servers = figures["sentinel_after"]["servers"]  # type: ignore[index]
    return next(int(name.split(":")[1]) for name, state in servers.items() if state.get("role") == "master")
