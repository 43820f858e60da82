"""The Celery app: tasks are thin entry points in games/tasks.py and bots/tasks.py."""

from __future__ import annotations

import os

from celery import Celery

from ttr_server import broker

broker.register()  # before any connection: the embedded default broker URL is ttrfs://

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ttr_server.settings")

app = Celery("ttr_server")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
