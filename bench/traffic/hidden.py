"""What is hidden while a game runs (docs/RULES.md X-SEC-1), as a client may see it: keys only a finished game's
view holds, the card kinds (a list of them is a pile order), each event's fields a viewer may not see; and `walk`,
every value inside a JSON value, to look for them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

CARD_KINDS = frozenset({"purple", "blue", "orange", "white", "green", "yellow", "black", "red", "locomotive"})
# keys that only a finished game's view may hold (tests/server/test_leaks.py)
HIDDEN_KEYS = frozenset({"hands", "player_tickets", "draw_pile", "offered", "ticket_pile", "long_pile", "deck", "discards"})


def walk(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every (path, value) inside a JSON value, dict keys included (their paths end with "#key")."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}#key", key
            yield from walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from walk(item, f"{path}[{i}]")


def hidden_fields(event: dict[str, Any], viewer: int | None) -> tuple[str, ...]:
    """The data fields of `event` that `viewer` may not see while the game runs (docs/RULES.md X-SEC-1)."""
    kind, data = event["type"], event["data"]
    mine = event.get("seat") is not None and event.get("seat") == viewer
    if kind == "deck_shuffled":
        return ("cards",)
    if kind == "tickets_shuffled":
        return ("tickets", "long_tickets")
    if kind == "cards_dealt":
        return () if mine else ("cards",)
    if kind == "tickets_dealt":
        return () if mine else ("tickets",)
    if kind == "tickets_kept":
        return () if mine else ("kept", "returned")
    if kind == "card_drawn" and data.get("source") == "deck":
        return () if mine else ("card",)
    return ()
