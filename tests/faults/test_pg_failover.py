"""PostgreSQL failover without losing an acknowledged move, at a small size (bench/failover.py runs it at 100 games).

A primary and its synchronous standby of the test's own (initdb, pg_basebackup on loopback ports), the stack on the
multi-host URL with target_session_attrs=read-write, a few games of people (HTTP and sockets) and bots; the primary
SIGKILLed mid-game, the standby promoted a few seconds later, play going on. Then: every move a client was told
succeeded is in the new primary's log, no answer was a 500 (the gap answers 503 with Retry-After, or waits), every
game finished, verifies and was scored once, and the ratings equal a recomputation."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from bench.fault_stack.postgres_cluster import BIN, missing_programs
from bench.live.processes import LINUX


def _missing() -> str | None:
    if not LINUX:
        return "needs Linux (/proc)"
    if missing_programs():
        return f"needs PostgreSQL's programs in {BIN} ({', '.join(missing_programs())} missing; or set PG_BIN)"
    if shutil.which("redis-server") is None:
        return "needs redis-server"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "run as root, needs runuser to start PostgreSQL as the postgres user"
    return None


def test_no_acknowledged_move_is_lost_when_the_primary_dies() -> None:
    if (why := _missing()) is not None:
        pytest.skip(why)
    from bench.failover import drill

    report = drill(
        3, web=2, kill_after=3.0, promote_after=3.0, think=(0.0, 0.05), seed=11, users=8, strong_share=0.34,
        players=(2, 3), stall_seconds=180, score_seconds=180,
        extra_env={"TTR_STRONG_SECONDS": "0.3", "TTR_LOST_TASK_SECONDS": "3"},
    )
    print(json.dumps(report, indent=1, default=str))
    assert report["problems"] == 0, "\n".join(report["problem_examples"])
    assert report["acknowledged_moves_lost"] == 0
    assert report["finished"] == report["verified"] == 3
    assert report["acknowledged_after_failover"] > 0, "play went on after the failover"
    assert report["answers_overall"].get(500, 0) == 0 and report["answers_during_gap"].get(500, 0) == 0
    assert report["probe_during_gap"]["503_without_retry_after"] == 0
    assert report["recompute_ratings_check"] and report["scored_other_than_once"] == 0
