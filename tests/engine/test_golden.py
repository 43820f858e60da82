"""Golden playthroughs: four seeded games, every event and every viewer's view after it, diffed against files.

A playthrough file (tests/engine/golden/<map>-<n>p.jsonl.gz, gzip'd JSON Lines, one line per event) holds, for
each event of the game: the event itself, the move and seat that caused it with the number of legal moves
there were, the event as each seat and a spectator see it (`redact`) and the game as each of them sees it
after the event (`view`, in the API's JSON: `view_json`). Any change to the rules, the chances, the log or who
sees what changes a line.
Faster code must leave these files alone; a deliberate rule change regenerates them:

    GOLDEN_REGENERATE=1 .venv/bin/pytest tests/engine/test_golden.py

Read one with `zcat tests/engine/golden/usa-3p.jsonl.gz | head -3 | python -m json.tool --json-lines`.
Moves are drawn from `legal_moves` sorted by their repr, so the course of a game depends on which moves are
legal and not on the order `legal_moves` lists them in.
"""

from __future__ import annotations

import difflib
import gzip
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from games.engine.codec import event_to_dict, move_to_dict, view_json
from games.engine.decide import score_ended, step
from games.engine.evolve import evolve_in_place, initial_state
from games.engine.legal import legal_moves
from games.engine.setup import begin
from games.engine.view import redact, view

GOLDEN_DIR = Path(__file__).with_name("golden")
GAMES = (("europe", 2), ("europe", 5), ("usa", 3), ("usa", 4))
REGENERATE = os.environ.get("GOLDEN_REGENERATE") == "1"
MAX_DECISIONS = 5000
DIFF_LINES = 40


def playthrough(map_name: str, players: int) -> list[str]:
    """The golden lines of one seeded game, one JSON object per event."""
    chooser = random.Random(f"golden:{map_name}:{players}:moves")
    chance = random.Random(f"golden:{map_name}:{players}:chance")
    state, opening = begin(map_name, players, chance)
    causes: list[dict[str, Any] | None] = [None] * len(opening)
    events = list(opening)
    while not state.finished:
        assert len(causes) < 50 * MAX_DECISIONS, "the golden game does not end"
        seat = min(state.deciders())
        moves = sorted(legal_moves(state, seat), key=repr)
        move = moves[chooser.randrange(len(moves))]
        state, new = step(state, seat, move, chance)
        causes.append({"seat": seat, "move": move_to_dict(move), "legal_moves": len(moves)})
        causes.extend([None] * (len(new) - 1))
        events.extend(new)
    events.append(score_ended(state))  # what the workers append after game_ended
    causes.append(None)

    viewers: list[tuple[str, int | None]] = [*((str(seat), seat) for seat in range(players)), ("spectator", None)]
    lines = []
    replayed = initial_state(events[0])  # type: ignore[arg-type]
    for i, (event, cause) in enumerate(zip(events, causes, strict=True)):
        if i:
            evolve_in_place(replayed, event)
        record = {
            "i": i,
            "cause": cause,
            "event": event_to_dict(event),
            "redacted": {name: event_to_dict(redact(event, viewer)) for name, viewer in viewers},
            "views": {name: view_json(view(replayed, viewer)) for name, viewer in viewers},
        }
        lines.append(json.dumps(record, sort_keys=True, separators=(",", ":")))
    assert replayed.finished
    return lines


def golden_path(map_name: str, players: int) -> Path:
    return GOLDEN_DIR / f"{map_name}-{players}p.jsonl.gz"


def write_golden(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(line + "\n" for line in lines).encode()
    path.write_bytes(gzip.compress(text, compresslevel=9, mtime=0))  # mtime=0: the same game, the same bytes


def read_golden(path: Path) -> list[str]:
    return gzip.decompress(path.read_bytes()).decode().splitlines()


def first_difference(expected: list[str], actual: list[str]) -> str | None:
    """None when equal; otherwise the first differing event index and a short diff of that line."""
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want != got:
            a, b = json.loads(want), json.loads(got)
            parts = sorted(k for k in {*a, *b} if a.get(k) != b.get(k))
            diff = difflib.unified_diff(
                json.dumps(a, indent=1, sort_keys=True).splitlines(),
                json.dumps(b, indent=1, sort_keys=True).splitlines(),
                "golden",
                "this run",
                n=2,
                lineterm="",
            )
            shown = list(diff)
            more = f"\n... {len(shown) - DIFF_LINES} more diff lines" if len(shown) > DIFF_LINES else ""
            return (
                f"first difference at event index {i} (event type {a['event']['type']} -> {b['event']['type']}), "
                f"in {parts}:\n" + "\n".join(shown[:DIFF_LINES]) + more
            )
    if len(expected) != len(actual):
        common = min(len(expected), len(actual))
        return f"the golden game has {len(expected)} events, this run {len(actual)}: equal up to event {common}"
    return None


@pytest.mark.parametrize(("map_name", "players"), GAMES, ids=[f"{m}-{n}p" for m, n in GAMES])
def test_golden_playthrough_is_unchanged(map_name: str, players: int) -> None:
    path = golden_path(map_name, players)
    lines = playthrough(map_name, players)
    if REGENERATE:
        write_golden(path, lines)
        return
    assert path.exists(), f"{path} is missing: run with GOLDEN_REGENERATE=1 to write it"
    difference = first_difference(read_golden(path), lines)
    assert difference is None, (
        f"{path.name} no longer matches the engine ({difference})\n"
        "If the rules changed on purpose, regenerate with GOLDEN_REGENERATE=1 and review the diff."
    )


def test_a_golden_game_is_the_same_every_time_it_is_played() -> None:
    assert playthrough("usa", 3) == playthrough("usa", 3)


def test_golden_games_end_and_cover_the_rare_events() -> None:
    types: set[str] = set()
    for map_name, players in GAMES:
        lines = read_golden(golden_path(map_name, players))
        ended, last = (json.loads(line) for line in lines[-2:])
        assert ended["event"]["type"] == "game_ended" and ended["views"]["spectator"]["phase"] == "finished"
        assert last["event"]["type"] == "game_scored" and last["views"]["spectator"]["scores"]
        types |= {json.loads(line)["event"]["type"] for line in lines}
    # The four games between them exercise tunnels, stations, reshuffles and the last round.
    assert {"tunnel_revealed", "station_built", "deck_shuffled", "last_round_started", "tickets_kept"} <= types


def test_a_difference_is_reported_with_its_event_index_and_a_diff() -> None:
    lines = playthrough("usa", 3)[:20]
    changed = list(lines)
    record = json.loads(changed[12])
    record["views"]["0"]["deck_size"] += 1
    changed[12] = json.dumps(record, sort_keys=True, separators=(",", ":"))
    report = first_difference(lines, changed)
    assert report is not None and "event index 12" in report and "deck_size" in report and "['views']" in report
    assert first_difference(lines, lines) is None
    assert "equal up to event 19" in (first_difference(lines, lines[:19]) or "")
