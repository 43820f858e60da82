"""Every rule of docs/RULES.md has a rule test: a test in tests/engine/test_rules_*.py whose name holds its ID.

The rule IDs are read from the rule digest in the repository (`docs/RULES.md`). A rule ID `C-DRW-2` appears in a
test name in snake case: `test_c_drw_2_...`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
RULES = HERE.parents[1] / "docs" / "RULES.md"
RULE_ID = re.compile(r"\*\*([A-Z]-[A-Z]{3,4}-\d+)\*\*")
NAMED_ID = re.compile(r"(?:^|_)([ceux])_([a-z]{3,4})_(\d+)(?=_|$)")


def rule_ids() -> list[str]:
    return RULE_ID.findall(RULES.read_text(encoding="utf-8"))


def rule_test_names() -> list[str]:
    names = []
    for path in sorted(HERE.glob("test_rules_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names.extend(
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")
        )
    return names


def snake(rule_id: str) -> str:
    return rule_id.lower().replace("-", "_")


def ids_named_in(name: str) -> set[str]:
    return {f"{a}-{b}-{n}".upper() for a, b, n in NAMED_ID.findall(name)}


def test_rules_md_lists_the_rules() -> None:
    ids = rule_ids()
    assert len(ids) == len(set(ids)), "a rule ID is defined twice"
    assert len(ids) >= 40
    assert {"C-DRW-2", "E-TUN-1", "U-SET-1", "X-RNG-1"} <= set(ids)


def test_every_rule_id_has_a_test_named_after_it() -> None:
    named = set().union(*(ids_named_in(name) for name in rule_test_names()))
    missing = [rule for rule in rule_ids() if rule not in named]
    assert not missing, f"rules without a test named after them: {missing}"


def test_every_rule_id_named_by_a_test_exists() -> None:
    known = set(rule_ids())
    stale = sorted({(rule, name) for name in rule_test_names() for rule in ids_named_in(name) if rule not in known})
    assert not stale, f"tests name rules that docs/RULES.md does not define: {stale}"


def test_rule_ids_are_read_from_test_names_in_snake_case() -> None:
    assert snake("C-DRW-2") == "c_drw_2"
    assert ids_named_in("test_c_drw_2_no_face_up_locomotive_as_second_card") == {"C-DRW-2"}
    assert ids_named_in("test_e_scr_1_and_u_scr_1_every_game_adds_up") == {"E-SCR-1", "U-SCR-1"}
    assert ids_named_in("test_x_time_1_a_bot") == {"X-TIME-1"}
    assert ids_named_in("test_c_drw_21_is_not_c_drw_2x") == {"C-DRW-21"}
