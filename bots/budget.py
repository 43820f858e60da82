"""The strong bot's thinking time: TTR_STRONG_SECONDS, read by the worker and the tournament runner alike."""

from __future__ import annotations

import os

from bots.policies import DEFAULT_STRONG_SECONDS


def strong_seconds() -> float:
    """Seconds a strong decision may take (TTR_STRONG_SECONDS, default 1.5)."""
    return float(os.environ.get("TTR_STRONG_SECONDS", DEFAULT_STRONG_SECONDS))
