"""Golden playthroughs as text: each file in tests/golden/ is a whole game the engine plays from fixed seeds.

Six games: a 2-player USA and a 3-player Europe game the policy plays, kept for the rules they show, and four games
of random legal moves (Europe with 2 and 5 players, the USA with 3 and 4). Each file holds every move with the
number of legal moves there were, every event, how each viewer reads each event and what changed in each viewer's
view after it (tests/golden/text.py, tests/golden/views.py): a change to the rules, the chances, the log or who
sees what changes a line.

What holds: the engine still plays each game into exactly its file, line for line; the moves written in a file,
played again from its seed, remake it and end in its final scores (a file is a replayable record, not only a
picture); a file's view lines are every viewer's whole view after every event; each game still shows the rules it
is kept for (docs/RULES.md IDs, `Golden.rules`: the USA game a reshuffle, a ticket draw, the last round and the
scoring; the Europe game tunnels paid for (E-TUN-2) and declined (E-TUN-3), a ferry (E-FER-1), stations built,
lending a route and left unbuilt (E-STA-1, E-STA-3, E-STA-4), the last round and the scoring; the random games
what they happen to show, tunnels and stations among it); and the games do not depend on Python's hash seed.

A failure prints a unified diff. Faster code must leave the files alone; if the rules changed on purpose, rewrite
them and review their diff before committing:

    TTR_REGENERATE_GOLDEN=1 .venv/bin/pytest tests/golden
"""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from games.engine import evolve_in_place
from games.engine.evolve import initial_state
from games.engine.moves import ClaimRoute
from tests.golden.evidence import exercised, rule_ids
from tests.golden.playthrough import GAMES, GOLDEN_DIR, ROOT, Golden, chooser_of, course, play, replay_text
from tests.golden.text import move_line, parse_move_line, parse_value, value_text
from tests.golden.views import read_views, view_paths, viewers

REGENERATE = os.environ.get("TTR_REGENERATE_GOLDEN") == "1"
HOW_TO_UPDATE = (
    "If the rules changed on purpose: TTR_REGENERATE_GOLDEN=1 .venv/bin/pytest tests/golden, then review the diff."
)
DIFF_LINES = 60
IDS = [game.path.stem for game in GAMES]


def golden_text(game: Golden) -> str:
    assert game.path.exists(), f"{game.path.name} is missing. {HOW_TO_UPDATE}"
    return game.path.read_text(encoding="utf-8")


def as_text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def mismatch(name: str, expected: str, actual: str, what: str = "no longer matches the engine") -> str | None:
    """None when equal; otherwise the start of a unified diff and how to update the file."""
    if expected == actual:
        return None
    diff = list(difflib.unified_diff(
        expected.splitlines(), actual.splitlines(), f"{name} (golden)", f"{name} (this run)", lineterm=""
    ))
    more = [f"... {len(diff) - DIFF_LINES} more diff lines"] if len(diff) > DIFF_LINES else []
    return "\n".join([f"{name} {what}:", *diff[:DIFF_LINES], *more, HOW_TO_UPDATE])


def assert_same(name: str, expected: str, actual: str, what: str = "no longer matches the engine") -> None:
    difference = mismatch(name, expected, actual, what)
    if difference is not None:
        pytest.fail(difference, pytrace=False)


@cache
def replayed(game: Golden) -> str:
    return as_text(replay_text(golden_text(game)))


def final_scores(text: str) -> str:
    return text[text.index("\nscore\n"):]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_engine_plays_each_seed_into_exactly_its_golden_file(game: Golden) -> None:
    played = as_text(play(game))
    if REGENERATE:
        game.path.write_text(played, encoding="utf-8")
    assert_same(game.path.name, golden_text(game), played)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_moves_in_a_golden_file_replay_to_its_final_scores(game: Golden) -> None:
    what = "ends in other final scores when its moves are replayed"
    assert_same(game.path.name, final_scores(golden_text(game)), final_scores(replayed(game)), what)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_moves_in_a_golden_file_replay_to_every_line_of_it(game: Golden) -> None:
    assert_same(game.path.name, golden_text(game), replayed(game), "differs from a replay of its own moves")


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_view_lines_of_a_golden_file_are_every_viewers_whole_view_after_every_event(game: Golden) -> None:
    events = [event for _, batch in course(game, chooser_of(game)) for event in batch]
    state = initial_state(events[0])  # type: ignore[arg-type]
    written = read_views(golden_text(game), game.players)
    for i, (event, views) in enumerate(zip(events, written, strict=True)):
        if i:
            evolve_in_place(state, event)
        for name, viewer in viewers(game.players):
            expected = {path: value_text(value) for path, value in view_paths(state, viewer).items()}
            wrong = sorted(path for path in {*expected, *views[name]} if expected.get(path) != views[name].get(path))
            where = f"{game.path.name}, event {i} ({event.type})"
            assert not wrong, f"{where}: {name}'s view as the file writes it differs at {wrong}"


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_each_golden_game_shows_the_rules_it_is_kept_for(game: Golden) -> None:
    assert set(game.rules) <= rule_ids(), "a golden game names a rule that docs/RULES.md does not define"
    missing = sorted(set(game.rules) - exercised(golden_text(game)))
    assert not missing, (
        f"{game.path.name} no longer shows {missing}. If that is meant, drop them from its rules in GAMES; a game "
        f"the policy plays can take another seed: `.venv/bin/python -m tests.golden.find_seeds {game.map} {game.players}`"
    )


def test_the_golden_games_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    script = (
        "import sys; from pathlib import Path; from tests.golden.playthrough import GAMES, play\n"
        "for game in GAMES: (Path(sys.argv[1]) / game.path.name).write_text(''.join(f'{line}\\n' for line in play(game)))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "4242", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT, env=env, check=True)
    for game in GAMES:
        assert_same(game.path.name, golden_text(game), (tmp_path / game.path.name).read_text(encoding="utf-8"))


def test_every_golden_file_is_a_kept_game() -> None:
    kept = {game.path.name for game in GAMES}
    assert {path.name for path in GOLDEN_DIR.glob("*.txt")} == kept, "a golden file no game in GAMES writes: delete it"


def test_a_mismatch_shows_a_unified_diff_and_how_to_update() -> None:
    expected = "setup\n1 seat0 draw_card source=deck\n  card_drawn seat=0 source=deck card=red\n"
    report = mismatch("x.txt", expected, expected.replace("card=red", "card=blue"))
    assert report is not None
    assert "-  card_drawn seat=0 source=deck card=red" in report and "+  card_drawn seat=0 source=deck card=blue" in report
    assert "TTR_REGENERATE_GOLDEN=1" in report
    assert mismatch("x.txt", expected, expected) is None


def test_a_move_line_reads_back_as_the_move_it_was_written_from() -> None:
    move = ClaimRoute("denver--omaha", (("red", 3), ("locomotive", 1)))
    line = move_line(12, 1, move, 40)
    assert line == "12 seat1 claim_route route=denver--omaha cards=red:3+locomotive:1 (40 legal)"
    assert parse_move_line(line) == (12, 1, move)
    assert parse_move_line("  route_claimed seat=1 route=denver--omaha cards=red:4 points=7") is None


def test_values_read_back_as_written() -> None:
    for value in (7, "denver--omaha", "two words", ["a", "b"], [], {"red": 3, "locomotive": 1}, {}):
        assert parse_value(value_text(value)) == value
    look_alike = (None, "null", True, "true", False, "false", 1, "1")
    assert len({value_text(value) for value in look_alike}) == len(look_alike), "two values read the same"
