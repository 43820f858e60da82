"""Framework overrides, in one place: each replaces a framework's own way for a measured gain or a correctness fix,
ties an upgrade to that framework's version, and can be switched off.

TABLE

`TTR_OVERRIDES` (the environment, read by ttr_server/settings.py) says which are on: `all` (the default), `none`,
a comma list of names (only those), or a comma list of `-name` (all but those). `make test-plain` runs the whole
suite with none of them.
"""

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
