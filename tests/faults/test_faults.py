"""Games played through every fault, one after another, at a small size (bench/faults.py runs the same at 40 games).

Each fault of bench/fault_stack/scenario.py happens once while the games are played by scripted people over HTTP and
sockets and by greedy and strong bots through the real workers; afterwards every game has finished, verifies, has
no gap or duplicate seq, is scored exactly once; the ratings recompute to what is stored; every move a client
was told succeeded is in the log; no answer was a 5xx but the contract's 503 `unavailable` (with Retry-After, which
the clients follow) while the database refuses connections: the pool waits DB_POOL_TIMEOUT for it and the fault
lasts 3 s, but on a loaded machine the pool's reconnection can come later than that (CI saw two); no process logged
a 500; nothing any client received showed a hidden card or ticket to a seat that may not see it."""

from __future__ import annotations

import json

from bench.fault_stack import scenario
from bench.fault_stack.harness import Harness
from bench.traffic.figures import summary as traffic_summary


def test_every_game_survives_every_fault(stack: Harness) -> None:
    report = scenario.run(
        stack, games=6, seed=7, players=(2, 3), think=(0.0, 0.05), socket_share=0.5, strong_share=0.34,
        bot_levels=("greedy", "strong"), users=8, gap=3.0, stall_seconds=120, score_seconds=120, tolerate=(503,),
    )
    summary = traffic_summary(report.recorder)
    print(json.dumps({"injected": report.injected, "summary": summary}, indent=1))
    assert not report.problems, "\n".join(report.problems[:40])
    unavailable = [error for error in report.recorder.snapshot()[2] if error.status == 503]
    assert all('"code": "unavailable"' in error.body for error in unavailable), unavailable[:5]
    assert all(record.finished for record in report.records)
    assert [i for i in report.injected if "skipped" in i] == [], "games ended before every fault was injected"
    assert summary["moves"].get("socket") and summary["moves"].get("http"), summary["moves"]

