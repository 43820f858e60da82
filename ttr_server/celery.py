"""The Celery app: tasks are thin entry points in games/tasks.py and bots/tasks.py."""

from __future__ import annotations

import os

from celery import Celery, signals

from ttr_server.overrides import atomic_broker

atomic_broker.register()  # before any connection: the embedded default broker URL is ttrfs:// (the override's)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ttr_server.settings")

app = Celery("ttr_server")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# What every worker does beside its tasks (ttr_server/health.py, metrics.py, logs.py): a heartbeat, a count of
# each task's runs and failures, and the task's name, id and game bound to every line it logs.

_heartbeats: dict[str, object] = {}


@signals.worker_init.connect
def _settle(**_: object) -> None:
    from ttr_server.settled import settle

    settle()  # before the pool forks: its children inherit the frozen objects (ttr_server/settled.py)


@signals.worker_ready.connect
def _start_heartbeat(sender: object = None, **_: object) -> None:
    from ttr_server.health import Heartbeats

    hostname = getattr(sender, "hostname", None) or "worker"
    heartbeats = Heartbeats(f"worker:{hostname}")
    heartbeats.thread.start()
    _heartbeats["this"] = heartbeats


@signals.worker_shutdown.connect
def _stop_heartbeat(**_: object) -> None:
    from ttr_server import metrics
    from ttr_server.health import Heartbeats

    heartbeats = _heartbeats.pop("this", None)
    if isinstance(heartbeats, Heartbeats):
        heartbeats.stop()
    metrics.forget_this_process()


@signals.task_prerun.connect
def _task_started(task_id: str | None = None, task: object = None, args: tuple[object, ...] = (), **_: object) -> None:
    from ttr_server import json_logs, metrics

    name = getattr(task, "name", "?")
    json_logs.clear()
    json_logs.bind(task=name, task_id=task_id, game=str(args[0]) if args and name != "bots.tasks.sweep" else None)
    metrics.TASK_RUNS.labels(name).inc()


@signals.task_failure.connect
def _task_failed(sender: object = None, **_: object) -> None:
    from ttr_server import metrics

    metrics.TASK_FAILURES.labels(getattr(sender, "name", "?")).inc()


@signals.task_postrun.connect
def _task_ended(**_: object) -> None:
    from ttr_server import json_logs, settled

    json_logs.clear()
    settled.count_pauses()
