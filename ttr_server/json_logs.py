"""Structured logs: one JSON object a line on stderr, from every logger (ours, Django's, Celery's, uvicorn's).

What a line is about travels with it: the edge binds `request_id`, `user`, `game` and `seq` once (HTTP requests in
ttr_server/observe.py, game sockets in games/realtime/consumer.py, tasks in ttr_server/celery.py) with
`bind(...)`, and every line logged meanwhile in that request, socket or task carries them, a 500's traceback too.
`LOG_FORMAT=console` writes the same lines for a human (`make run` in a terminal does).

Lines that say nothing are not written: Celery's "received" and "succeeded" per task (the sweep runs every second),
beat's "sending due task", uvicorn's access lines and Django's line a 4xx (the metrics count them); LOG_TASKS=1 and
LOG_ACCESS=1 bring back the tasks' and the requests' lines.

No line holds a secret: `redact` (the last step before a line is written, whoever logged it) replaces the value
of `token=`, `invite=`, `password=` and `secret=` in any URL or query string (a socket's `?token=` of older
clients, the mails' confirmation, unsubscribe and invitation links), a `token.<TOKEN>` subprotocol and an
`Authorization: Token <TOKEN>` value with `[redacted]`.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from typing import Any

import structlog
from structlog.contextvars import bind_contextvars, clear_contextvars, merge_contextvars
from structlog.typing import EventDict, Processor, WrappedLogger

_TASK_LINES = "INFO" if os.environ.get("LOG_TASKS") == "1" else "WARNING"
QUIET = {  # loggers that say nothing useful at INFO: their warnings and errors still show
    "celery.app.trace": _TASK_LINES,  # "Task ... succeeded in 0.01s" (LOG_TASKS=1 brings them back)
    "celery.worker.strategy": _TASK_LINES,  # "Task ... received"
    "celery.beat": "WARNING",
    "uvicorn.access": "INFO" if os.environ.get("LOG_ACCESS") == "1" else "WARNING",
    "django.channels.server": "WARNING",
    "django.request": "ERROR",  # not a line a 4xx (a 409 stale_seq is a client's everyday): /metrics counts them
    "httpx": "WARNING",  # a client's line a request (tests, benchmarks)
}


def json_lines() -> bool:
    """Whether lines are JSON (the production format) rather than written for a person at a terminal."""
    return os.environ.get("LOG_FORMAT", "json" if not sys.stderr.isatty() else "console") != "console"


def _renderer() -> Processor:
    if not json_lines():
        return structlog.dev.ConsoleRenderer(colors=False)
    return structlog.processors.JSONRenderer()


def _process(logger: WrappedLogger, method: str, event: EventDict) -> EventDict:
    if PROCESS:
        event.setdefault("process", PROCESS)
    return event


PROCESS = os.environ.get("TTR_PROCESS", "")  # the stack's name for this process ("web-0", "worker-1", "beat")


REDACTED = "[redacted]"
# a query parameter that carries a secret (games/people/mail_links.py, games/play/invitations.py,
# games/realtime/socket_user.py)
_SECRET_PARAMETER = re.compile(r"(?<![\w-])((?:token|invite|password|secret)=)[^&\s\"'#;,]+", re.IGNORECASE)
_SECRET_WORD = re.compile(  # a `token.` subprotocol; an Authorization header's value (a word of 20 or more)
    r"(?<![\w.-])(?:(token\.)[^\s,\"'&;]+|(Token\s+)[\w-]{20,})"
)


def redacted(text: str) -> str:
    text = _SECRET_PARAMETER.sub(rf"\g<1>{REDACTED}", text)
    return _SECRET_WORD.sub(lambda found: f"{found[1] or found[2]}{REDACTED}", text)


def redact(logger: WrappedLogger, method: str, event: EventDict) -> EventDict:
    """Every string of the line (the message, a traceback, any bound field) without the secrets it names."""
    for key, value in event.items():
        if isinstance(value, str) and ("=" in value or "oken" in value):
            event[key] = redacted(value)
    return event


def _shared() -> list[Processor]:
    return [
        merge_contextvars,
        _process,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]


def config(level: str) -> dict[str, Any]:
    """The LOGGING setting (dictConfig): every record through structlog's formatter."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "structured": {
                "()": structlog.stdlib.ProcessorFormatter,
                "foreign_pre_chain": _shared(),
                "processors": [
                    structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info,
                    redact,  # after the traceback is text: a URL in an exception's message too
                    _renderer(),
                ],
            }
        },
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "structured"}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            **{name: {"level": quiet} for name, quiet in QUIET.items()},
            # uvicorn configures its own handlers unless told not to: send its lines through ours (its access
            # logger's too: uvicorn stops it propagating, which left LOG_ACCESS=1 writing nothing)
            "uvicorn": {"handlers": [], "propagate": True},
            "uvicorn.error": {"handlers": [], "propagate": True},
            "uvicorn.access": {"level": QUIET["uvicorn.access"], "handlers": [], "propagate": True},
        },
    }


def configure_structlog() -> None:
    structlog.configure(
        processors=[*_shared(), structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def bind(**fields: object) -> None:
    """Add these fields to every line logged from here on in this request, socket or task."""
    bind_contextvars(**{key: value for key, value in fields.items() if value is not None})


def clear() -> None:
    clear_contextvars()


logging.captureWarnings(True)
