"""Which rules a golden file shows at work, by docs/RULES.md ID, read from its text alone.

Each rule's evidence is something a reviewer can find in the file with a search: `E-TUN-2` is a
`tunnel_revealed` with `extra` above 0 that the seat pays for (`pay_tunnel`, then `route_claimed`), `E-FER-1`
a `route_claimed` of a ferry paid with at least its locomotives, `E-STA-3` a station that lends its owner a
route in the final scores, and so on. A golden game names the rules it is kept for (`Golden.rules`); when a
change to the rules or the policy makes a seed stop showing one, `python -m tests.golden.find_seeds` lists
seeds that do. The file's `see` and `view` lines are no evidence: `parse` reads what happened, not who saw it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from games.engine import Board, load_board
from tests.golden.text import TOKEN
from tests.golden.views import events_only

RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "RULES.md"
DECISION = re.compile(r"(\d+) seat(\d+) ([a-z_]+)")
FINAL = re.compile(r"  seat\d+ place (\d+): (-?\d+) = (.*)")
PART = re.compile(r"(routes|tickets|stations|longest) (-?\d+)")


@dataclass(frozen=True)
class Step:
    """One event of the file, with the decision that caused it (0: the setup)."""

    decision: int
    seat: int | None
    move: str | None
    type: str
    fields: dict[str, str]  # the last value of each key: see `text` for records that repeat keys
    text: str  # the event's lines joined into one


@dataclass(frozen=True)
class Played:
    board: Board
    players: int
    steps: tuple[Step, ...]
    text: str

    def of(self, kind: str) -> list[Step]:
        return [s for s in self.steps if s.type == kind]

    def after(self, step: Step) -> Step | None:
        i = self.steps.index(step) + 1
        return self.steps[i] if i < len(self.steps) else None


def rule_ids() -> set[str]:
    return set(re.findall(r"\*\*([A-Z]-[A-Z]{3,4}-\d+)\*\*", RULES_MD.read_text(encoding="utf-8")))


def exercised(text: str) -> set[str]:
    played = parse(text)
    return {rule for rule, shows in EVIDENCE.items() if shows(played)}


def parse(text: str) -> Played:
    text = events_only(text)
    game = dict(TOKEN.findall(next(line for line in text.splitlines() if line.startswith("game "))))
    steps: list[Step] = []
    decision, seat, move = 0, None, None
    records: list[tuple[int, int | None, str | None, list[str]]] = []
    for line in text.splitlines():
        if found := DECISION.match(line):
            decision, seat, move = int(found[1]), int(found[2]), found[3]
        elif line.startswith("  ") and not line.startswith("   "):
            records.append((decision, seat, move, [line]))
        elif line.startswith("   ") and records:
            records[-1][3].append(line)  # a wrapped line, a long list or a record of the final scores
    for decision, seat, move, lines in records:
        joined = " ".join(line.strip() for line in lines)
        steps.append(Step(decision, seat, move, joined.split()[0], dict(TOKEN.findall(joined)), joined))
    return Played(load_board(game["map"]), int(game["players"]), tuple(steps), text)


def _paid_tunnel(p: Played) -> bool:
    return any(
        int(s.fields["extra"]) > 0 and (paid := p.after(s)) is not None and paid.move == "pay_tunnel"
        and paid.type == "route_claimed"
        for s in p.of("tunnel_revealed")
    )


def _ferry(p: Played) -> bool:
    def locomotives(cards: str) -> int:
        return dict((k, int(n)) for k, n in (part.split(":") for part in cards.split("+"))).get("locomotive", 0)

    return any(
        (ferry := p.board.routes[s.fields["route"]].ferry_locomotives)
        and locomotives(s.fields["cards"]) >= ferry
        for s in p.of("route_claimed")
    )


def _setup_return(p: Played) -> bool:
    return any(s.decision <= p.players and int(s.fields["returned_count"]) for s in p.of("tickets_kept"))


def _scores_add_up(p: Played) -> bool:
    finals = [FINAL.fullmatch(line) for line in p.text.splitlines()]
    rows = [(int(f[1]), int(f[2]), sum(int(n) for _, n in PART.findall(f[3]))) for f in finals if f]
    return len(rows) == p.players and all(total == parts for _, total, parts in rows)


def _winner_scores_most(p: Played) -> bool:
    finals = [f for line in p.text.splitlines() if (f := FINAL.fullmatch(line))]
    top = max(int(f[2]) for f in finals)
    winners = [i for i, f in enumerate(finals) if f[1] == "1"]
    line = next(line for line in p.text.splitlines() if line.startswith("winner "))
    return bool(winners) and line == "winner " + " ".join(f"seat{i}" for i in winners) and all(
        int(finals[i][2]) == top for i in winners
    )


def _last_round(p: Played) -> bool:
    ended = p.of("game_ended")
    return bool(p.of("last_round_started")) and bool(ended) and ended[-1].fields["reason"] == "last_round"


def _has(kind: str, **fields: str) -> Callable[[Played], bool]:
    return lambda p: any(all(s.fields.get(k) == v for k, v in fields.items()) for s in p.of(kind))


def _decided(move: str) -> Callable[[Played], bool]:
    return lambda p: any(s.move == move for s in p.steps)


def _lent_route(p: Played) -> bool:
    return re.search(r"^ +- city=\S+ route=\S+$", p.text, re.MULTILINE) is not None


def _unbuilt_stations_score(p: Played) -> bool:
    seats = [dict(TOKEN.findall(record)) for s in p.of("game_scored") for record in s.text.split(" - seat=")[1:]]
    unbuilt = [int(seat["stations_unbuilt"]) for seat in seats]
    points = [int(seat["station_points"]) for seat in seats]
    return any(unbuilt) and points == [4 * n for n in unbuilt]


def _longest_bonus(p: Played) -> bool:
    return f"longest_bonus={p.board.longest_path_bonus}" in p.text


EVIDENCE: dict[str, Callable[[Played], bool]] = {
    "C-DRW-4": _has("market_discarded"),
    "C-DRW-5": _has("deck_shuffled", reason="reshuffle"),
    "C-TKT-1": _decided("draw_tickets"),
    "C-LNG-1": _longest_bonus,
    "C-END-1": _last_round,
    "U-SET-1": lambda p: not p.board.has_stations and _setup_return(p),
    "U-SCR-1": lambda p: not p.board.has_stations and _scores_add_up(p),
    "U-WIN-1": lambda p: not p.board.has_stations and _winner_scores_most(p),
    "E-SET-2": lambda p: p.board.has_stations and _setup_return(p),
    "E-FER-1": _ferry,
    "E-TUN-1": _has("tunnel_revealed"),
    "E-TUN-2": _paid_tunnel,
    "E-TUN-3": _decided("decline_tunnel"),
    "E-STA-1": _has("station_built"),
    "E-STA-3": _lent_route,
    "E-STA-4": _unbuilt_stations_score,
    "E-SCR-1": lambda p: p.board.has_stations and _scores_add_up(p),
    "E-WIN-1": lambda p: p.board.has_stations and _winner_scores_most(p),
}
