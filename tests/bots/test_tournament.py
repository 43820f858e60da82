"""The tournament runner: seats rotate, a seed fixes every result, processes change nothing, and `--json` ends
with one JSON line holding every figure per policy."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from bots.tournament import GameResult, main, play_game, play_games, seating, summarise, wilson

BOTS = ("greedy", "random", "random")


def results_only(results: list[GameResult]) -> list[dict[str, Any]]:
    """The games' outcomes without the think times, which the clock decides."""
    return [{k: v for k, v in asdict(r).items() if k != "think_ms"} for r in results]


def test_game_i_shifts_the_seats_by_i_places() -> None:
    assert [seating(BOTS, i) for i in range(4)] == [
        ("greedy", "random", "random"),
        ("random", "random", "greedy"),
        ("random", "greedy", "random"),
        ("greedy", "random", "random"),
    ]
    assert [g.seats.index("greedy") for g in play_games("usa", BOTS, seed=1, games=3, jobs=1)] == [0, 2, 1]


def test_the_same_seed_plays_the_same_games() -> None:
    first = list(play_games("usa", BOTS, seed=5, games=3, jobs=1))
    again = list(play_games("usa", BOTS, seed=5, games=3, jobs=1))
    other = list(play_games("usa", BOTS, seed=6, games=3, jobs=1))
    assert results_only(first) == results_only(again)
    assert results_only(first) != results_only(other)


def test_two_processes_play_the_same_games_as_one() -> None:
    one = list(play_games("europe", ("greedy", "random"), seed=2, games=4, jobs=1))
    two = list(play_games("europe", ("greedy", "random"), seed=2, games=4, jobs=2))
    assert results_only(one) == results_only(two)


def test_a_small_run_ends_with_one_json_line_of_figures_per_policy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--map", "usa", "--players", "3", "--games", "6", "--bots", ",".join(BOTS), "--json"]) == 0
    out = capsys.readouterr()
    summary = json.loads(out.out.strip().splitlines()[-1])
    assert summary["games"] == 6 and summary["aborted"] == 0
    assert set(summary["results"]) == {"greedy", "random"}
    for figures in summary["results"].values():
        assert {"win_rate", "ci95", "mean_score", "mean_ticket_points", "think_ms"} <= set(figures)
        assert set(figures["think_ms"]) == {"mean", "p99", "max"}
        lo, hi = figures["ci95"]
        assert 0 <= lo <= figures["win_rate"] <= hi <= 1
    assert sum(f["win_rate"] for f in summary["results"].values()) == pytest.approx(1)
    assert "6/6 games" in out.err
    assert any(line.startswith("greedy") for line in out.out.splitlines()[:-1])  # the table, before the JSON


def test_a_log_holds_every_game_in_order_and_its_first_games_summarise_as_a_run_of_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "games.jsonl"
    assert main(["--map", "usa", "--players", "3", "--games", "6", "--bots", ",".join(BOTS), "--json",
                 "--log", str(log)]) == 0
    whole = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    lines = log.read_text().splitlines()
    assert [json.loads(line)["number"] for line in lines] == list(range(6))
    assert main(["--summarise", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == whole
    log.write_text("\n".join(lines[:4]) + "\n")  # a run stopped after 4 games
    assert main(["--summarise", str(log), "--json"]) == 0
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    again = summarise(list(play_games("usa", BOTS, seed=1, games=4, jobs=1)))

    def untimed(summary: dict[str, Any]) -> dict[str, Any]:  # think times are the clock's
        return {name: {k: v for k, v in figures.items() if k != "think_ms"} for name, figures in summary["results"].items()}

    assert first["games"] == 4 and untimed(first) == untimed(again)


def test_a_tie_shares_the_win_and_an_aborted_game_is_a_draw() -> None:
    tied = GameResult(0, ("greedy", "random"), False, (50, 50), (10, 10), (0.5, 0.5), {})
    aborted = GameResult(1, ("random", "greedy"), True, shares=(0.5, 0.5))
    summary = summarise([tied, aborted])
    assert summary["aborted"] == 1
    greedy = summary["results"]["greedy"]  # type: ignore[index]
    assert greedy["win_rate"] == 0.5 and greedy["mean_score"] == 50


def test_the_wilson_interval_stays_inside_zero_and_one() -> None:
    lo, hi = wilson(1.0, 200)
    assert 0.98 < lo < 1 and hi == pytest.approx(1.0)
    lo, hi = wilson(0.0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)


def test_a_finished_game_is_scored_by_final_score() -> None:
    game = play_game("usa", ("greedy", "random"), seed=3, number=0)
    assert not game.aborted and len(game.scores) == 2 and sum(game.shares) == pytest.approx(1)
