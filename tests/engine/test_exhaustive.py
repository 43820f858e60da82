"""The engine's dispatch over its closed sets is checked by mypy: a `match` over `Event`, `Move` or `Phase` that ends
in `assert_never` is a type error when a case is missing, so a new event, move or phase without its handler fails
`make lint`, not a game.

One mypy run (the project's configuration, strict, a fresh cache) checks the engine's modules, which must have no
error, and a module written here: for each set, a match with every member, which must pass, and one with a member
left out, which must fail naming that member.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest
from mypy import api

from games.engine import events as ev
from games.engine import moves as mv
from games.engine.state import Phase

ROOT = Path(__file__).resolve().parents[2]
# Each set: the annotation of the matched value, its members' patterns, and the member the partial match leaves out.
EVENT_PATTERNS = [f"ev.{cls.__name__}()" for cls in get_args(ev.Event)]
MOVE_PATTERNS = [f"mv.{cls.__name__}()" for cls in get_args(mv.Move)]
PHASE_PATTERNS = [f"Phase.{phase.name}" for phase in Phase]
SETS = {
    "event": ("ev.Event", EVENT_PATTERNS, "ev.HintUsed()", '"HintUsed"'),
    "move": ("mv.Move", MOVE_PATTERNS, "mv.DeclineTunnel()", '"DeclineTunnel"'),
    "phase": ("Phase", PHASE_PATTERNS, "Phase.FINISHED", '"Literal[Phase.FINISHED]"'),
}
ERROR = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): error: (?P<message>.*)$", re.M)


def dispatch(name: str, annotation: str, patterns: list[str]) -> str:
    cases = " | ".join(patterns)
    return (
        f"def {name}(x: {annotation}) -> None:\n"
        f"    match x:\n"
        f"        case {cases}:\n"
        f"            pass\n"
        f"        case _:\n"
        f"            assert_never(x)\n"
    )


def checked_module() -> str:
    parts = [
        "from typing import assert_never\n\n"
        "from games.engine import events as ev\n"
        "from games.engine import moves as mv\n"
        "from games.engine.state import Phase\n"
    ]
    for kind, (annotation, patterns, left_out, _) in SETS.items():
        assert left_out in patterns, f"{left_out} is no {kind}"
        parts.append(dispatch(f"every_{kind}", annotation, patterns))
        parts.append(dispatch(f"all_but_one_{kind}", annotation, [p for p in patterns if p != left_out]))
    return "\n\n".join(parts)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, int]]:
    where = tmp_path_factory.mktemp("exhaustive")
    module = where / "dispatch_checked.py"
    module.write_text(checked_module())
    config = str(ROOT / "pyproject.toml")
    # The engine is named as a source: in this process `sys.path` holds the repository, which mypy then takes for
    # installed packages, whose errors it does not report when it merely follows an import into them.
    engine = str(ROOT / "games" / "engine")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)  # mypy finds `games` from the working directory
        out, err, status = api.run(
            ["--config-file", config, "--cache-dir", str(where / "cache"), "--strict", "--no-pretty", engine, str(module)]
        )
    assert not err, err
    yield module, out, status


def errors(out: str) -> list[tuple[str, int, str]]:
    return [(m["path"], int(m["line"]), m["message"]) for m in ERROR.finditer(out)]


def line_of(module: Path, function: str) -> int:
    lines = module.read_text().splitlines()
    start = lines.index(next(line for line in lines if line.startswith(f"def {function}(")))
    return start + 1 + next(i for i, line in enumerate(lines[start:]) if "assert_never" in line)


def test_the_engine_and_every_complete_match_type_check(report: tuple[Path, str, int]) -> None:
    module, out, _ = report
    outside = [e for e in errors(out) if Path(e[0]).name != module.name]
    assert outside == [], f"the engine does not type-check:\n{out}"
    for kind in SETS:
        at = line_of(module, f"every_{kind}")
        assert not [e for e in errors(out) if e[1] == at], f"the complete match over {kind} fails:\n{out}"


@pytest.mark.parametrize("kind", list(SETS))
def test_a_match_missing_a_case_is_a_type_error_naming_it(report: tuple[Path, str, int], kind: str) -> None:
    module, out, status = report
    left_out_type = SETS[kind][3]
    at = line_of(module, f"all_but_one_{kind}")
    found = [message for _, line, message in errors(out) if line == at]
    assert status == 1
    assert len(found) == 1 and "assert_never" in found[0], out
    assert f'incompatible type {left_out_type}; expected "Never"' in found[0], out
