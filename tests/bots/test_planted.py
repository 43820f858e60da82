"""bench/planted.py: the bad moves it plants are legal, of their kind, played in the game at the decision it names,
and its report counts what it should."""

from __future__ import annotations

from bench.planted import PLANTS, Outcome, planted_game, report, true_cost
from games.engine import legal_moves
from games.engine import moves as mv
from games.engine.played import played_moves


def test_each_plant_is_a_legal_move_unlike_the_policy_s_and_is_the_move_the_log_records_there() -> None:
    found = 0
    for kind in PLANTS:
        made = planted_game(kind, 0, levels=["greedy", "greedy"], seed=3)
        if made is None:
            continue
        log, plant = made
        found += 1
        assert plant.planted != plant.alternative
        assert plant.planted in legal_moves(plant.state, plant.seat)
        at = next(p for p in played_moves(log) if p.at == plant.seq)
        assert (at.seat, at.move) == (plant.seat, plant.planted)
        if kind == "keep_three_late":
            assert isinstance(plant.planted, mv.KeepTickets) and len(plant.planted.tickets) == 3
        if kind == "blind_draw":
            assert plant.planted == mv.DrawCard("deck") and isinstance(plant.alternative, mv.DrawCard)
    assert found >= 3


def test_keeping_three_tickets_late_costs_points_in_paired_continuations() -> None:
    made = planted_game("keep_three_late", 1, levels=["greedy", "greedy"], seed=1)
    assert made is not None
    cost, stderr = true_cost(made[1], 6, "lite", "test")
    assert cost > 0 and stderr >= 0


def test_the_report_counts_marks_by_kind_and_rechecks_of_ordinary_marks() -> None:
    outcomes = [
        Outcome("far_claim", 6.0, 1.0, "inaccuracy", 5.0, 1.0, [{"shown": 5.0, "mark": "inaccuracy", "recheck": 1.0,
                                                                   "recheck_stderr": 1.0}], decisions=10),
        Outcome("far_claim", 2.0, 1.0, None, 1.0, 1.0, [{"shown": 9.0, "mark": "mistake", "recheck": 9.0,
                                                          "recheck_stderr": 1.0}], decisions=10),
    ]
    result = report(outcomes)
    row = result["kinds"]["far_claim"]  # type: ignore[index]
    assert row["plants"] == 2 and row["marked"] == 0.5 and row["mean_true_cost"] == 4.0 and row["marked_shown_loss"] == 5.0
    checks = result["ordinary_marks"]
    assert checks == {"marks": 2, "held": 0.5, "contradicted": 0.5, "wrong_direction": 0.0, "mean_shown": 7.0,  # type: ignore[comparison-overlap]
                      "mean_recheck": 5.0}
