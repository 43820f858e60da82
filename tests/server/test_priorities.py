"""Moves first: the searches and the analyses run at a lower CPU priority than the web processes and the greedy
bots, on the stack (niceness) and in compose (the cgroup's CPU weight the kernel gives that niceness)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ttr_server import children, stack

ROOT = Path(__file__).resolve().parents[2]

# The kernel's CPU weight for a niceness (kernel/sched/core.c, sched_prio_to_weight): what nice means between tasks
# of one cgroup, and what a container's cpu_shares means between cgroups.
KERNEL_WEIGHT = {0: 1024, 5: 335, 10: 110, 15: 36, 19: 15}


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"])


def test_the_searches_and_the_analyses_yield_and_the_moves_do_not() -> None:
    assert stack.PRIORITY["worker-strong"] > 0 and stack.PRIORITY["worker-analysis"] >= stack.PRIORITY["worker-strong"]
    for first in ("web", "worker", "migrate", "beat"):
        assert stack.PRIORITY.get(first, 0) == 0, first


def test_compose_gives_each_service_the_weight_the_kernel_gives_its_niceness(services: dict[str, Any]) -> None:
    for name in stack.COMMANDS:
        weight = services[name].get("cpu_shares", KERNEL_WEIGHT[0])
        assert weight == KERNEL_WEIGHT[stack.PRIORITY.get(name, 0)], name


def test_the_stack_starts_each_worker_at_its_priority_and_the_search_pool_at_composes_size(tmp_path: Path) -> None:
    env = {"TTR_VAR_DIR": str(tmp_path)}
    layout = stack.Stack(env, web=1, workers=1, strong_workers=1, analysis_workers=1, beat=False)
    assert layout.children["web-0"].nice == 0 and layout.children["worker-0"].nice == 0
    assert layout.children["worker-strong-0"].nice == stack.PRIORITY["worker-strong"]
    assert layout.children["worker-analysis-0"].nice == stack.PRIORITY["worker-analysis"]
    strong = layout.children["worker-strong-0"].argv
    assert [w for w in strong if w.startswith("--concurrency=")] == [
        w for w in stack.COMMANDS["worker-strong"] if w.startswith("--concurrency=")
    ]
    embedded = stack.Stack.embedded(env, host="127.0.0.1", port=8999, queues=["celery"], analysis_queue="a")
    assert embedded.children["worker-analysis"].nice == stack.PRIORITY["worker-analysis"]
    assert embedded.children["worker"].nice == 0 and embedded.children["web"].nice == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="niceness set between fork and exec: Linux")
def test_a_child_really_runs_at_the_niceness_it_is_given() -> None:
    base = os.nice(0)
    out = subprocess.run(
        [sys.executable, "-c", "import os; print(os.nice(0))"], capture_output=True, text=True, check=True,
        preexec_fn=children.die_with_parent(os.getpid(), nice=7),
    ).stdout
    assert int(out) == min(base + 7, 19)
