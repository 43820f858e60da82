"""Why a move is refused.

`IllegalMove` names the rule of docs/RULES.md that forbids the move (`rule`, e.g. "C-DRW-2") and says why in one
human sentence (`detail`). `NotYourTurn` is the special case of a seat moving out of turn (C-TRN-1).
"""

from __future__ import annotations

QUOTE_LIMIT = 40


def quoted(value: object) -> str:
    """A client's value as an error sentence quotes it: at most a short prefix, so a huge id gives a short error."""
    text = repr(value)
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 1] + "…"


class IllegalMove(Exception):
    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail


class NotYourTurn(IllegalMove):
    def __init__(self, detail: str = "it is not this seat's decision") -> None:
        super().__init__("C-TRN-1", detail)
