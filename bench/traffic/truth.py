"""What the complete (audit) log of a game says (`Truth`), and its map's tickets (`board`): what
`bench.traffic.checks` holds everything received against."""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Board:
    tickets: frozenset[str]
    names: re.Pattern[str] | None  # any ticket's name (two city names and an en dash, either way round)
    by_name: dict[str, str]


_boards: dict[tuple[str, str], Board] = {}


def board(url: str, map_name: str) -> Board:
    """The map's tickets (from the server's /maps/{map}.json, else games/engine/maps)."""
    key = (url, map_name)
    if key not in _boards:
        data: dict[str, Any] | None = None
        try:
            answer = httpx.get(f"{url.rstrip('/')}/maps/{map_name}.json", timeout=10, trust_env=False)
            if answer.status_code == 200:
                data = answer.json()
        except (httpx.HTTPError, ValueError):
            data = None
        if data is None:
            path = ROOT / "games" / "engine" / "maps" / f"{map_name}.json"
            if path.exists():
                data = json.loads(path.read_text())
        if data is None:
            raise RuntimeError(f"no map {map_name}")
        cities = {c["id"]: c["name"] for c in data["cities"]}
        by_name = {}
        for t in data["tickets"]:
            a, b = cities[t["a"]], cities[t["b"]]
            by_name[f"{a}\u2013{b}"] = by_name[f"{b}\u2013{a}"] = t["id"]
        names = "|".join(re.escape(n) for n in sorted(by_name, key=len, reverse=True))
        pattern = re.compile(rf"(?<![A-Za-z])(?:{names})(?![A-Za-z])") if names else None
        _boards[key] = Board(frozenset(t["id"] for t in data["tickets"]), pattern, by_name)
    return _boards[key]


class Truth:
    """What the complete (audit) log says, by seq: who was dealt, kept and offered which tickets, when it ended."""

    def __init__(self, lines: list[dict[str, Any]]) -> None:
        self.lines = {int(line["seq"]): line for line in lines}
        self.last = max(self.lines, default=0)
        ended = [int(line["seq"]) for line in lines if line["type"] == "game_ended"]
        self.ended = ended[0] if ended else self.last + 1  # the first seq after which everything is public
        self.ended_at = _timestamp(self.lines[self.ended]["at"]) if ended else math.inf
        self.dealt: dict[int, list[tuple[int, tuple[str, ...]]]] = defaultdict(list)
        self.kept: dict[int, list[tuple[int, tuple[str, ...]]]] = defaultdict(list)
        for line in lines:
            data = line["data"]
            if line["type"] == "tickets_dealt":
                self.dealt[int(line["seat"])].append((int(line["seq"]), tuple(data["tickets"])))
            elif line["type"] == "tickets_kept":
                self.kept[int(line["seat"])].append((int(line["seq"]), tuple(data["kept"])))

    def known(self, seat: int | None, upto: int) -> set[str]:
        """The tickets ever dealt to `seat` up to seq `upto` (a spectator knows none)."""
        if seat is None:
            return set()
        return {t for seq, tickets in self.dealt.get(seat, []) if seq <= upto for t in tickets}

    def held(self, seat: int, at: int) -> set[str]:
        return {t for seq, tickets in self.kept.get(seat, []) if seq <= at for t in tickets}

    def held_count(self, seat: int, at: int) -> int:
        return sum(len(tickets) for seq, tickets in self.kept.get(seat, []) if seq <= at)

    def offered(self, seat: int, at: int) -> set[str]:
        dealt = [(seq, tickets) for seq, tickets in self.dealt.get(seat, []) if seq <= at]
        if not dealt:
            return set()
        last_dealt, tickets = dealt[-1]
        if any(last_dealt < seq <= at for seq, _ in self.kept.get(seat, [])):
            return set()
        return set(tickets)


def _timestamp(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
