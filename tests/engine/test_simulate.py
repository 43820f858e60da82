"""The simulator CLI, and the engine's promise to need nothing but the standard library (docs/STYLE.md principle 1).

The CLI runs in a child process of the system python3 with an empty environment (PATH only) and `-S` (no
site-packages at all), from the repository root: if the engine or the codec imported anything installed,
it would fail there.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import events as ev
from games.engine.codec import event_from_json
from games.engine.evolve import replay
from games.engine.scoring import final_score

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "games" / "engine"
SUMMARY_KEYS = {"games", "finished", "errors", "games_per_second", "events_per_game", "mean_score"}
FORBIDDEN = {"django", "rest_framework", "channels", "channels_redis", "celery", "redis", "psycopg", "daphne"}


def system_path() -> str:
    """PATH without this virtualenv, so that `python3` is the system's."""
    venv_bin = Path(sys.prefix) / "bin"
    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    if sys.prefix != sys.base_prefix:
        entries = [e for e in entries if e and Path(e).resolve() != venv_bin.resolve()]
    return os.pathsep.join(entries)


def run_bare(*args: str) -> subprocess.CompletedProcess[str]:
    """`python3 -S <args>` from the repository root with nothing in the environment but PATH."""
    path = system_path()
    python = shutil.which("python3", path=path)
    if python is None:
        pytest.skip("no system python3 on PATH")
    return subprocess.run([python, "-S", *args], cwd=ROOT, env={"PATH": path}, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def bare_python_is_recent() -> None:
    version = run_bare("-c", "import sys; print(sys.version_info >= (3, 11))")
    if version.stdout.strip() != "True":
        pytest.skip("the system python3 is older than the 3.11 the project requires")


def simulate(*extra: str) -> subprocess.CompletedProcess[str]:
    args = ("--map", "europe", "--players", "3", "--games", "3", "--seed", "1", "--json", *extra)
    return run_bare("-m", "games.engine.simulate", *args)


def test_the_simulator_prints_a_json_summary_on_the_bare_standard_library(bare_python_is_recent: None) -> None:
    done = simulate()
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    summary = json.loads(done.stdout)
    assert summary.keys() >= SUMMARY_KEYS
    assert summary["games"] == 3 and summary["finished"] == 3 and summary["errors"] == 0
    assert summary["games_per_second"] > 0
    assert 100 < summary["events_per_game"] < 5000
    assert isinstance(summary["mean_score"], int | float)
    assert summary["map"] == "europe" and summary["players"] == 3


def test_the_same_seed_plays_the_same_games(bare_python_is_recent: None) -> None:
    first, second = json.loads(simulate().stdout), json.loads(simulate().stdout)
    keep = ("events", "events_per_game", "mean_score", "max_score", "mean_turns")
    assert {k: first[k] for k in keep} == {k: second[k] for k in keep}


def test_log_dir_writes_one_event_log_per_game_that_replays_to_a_finished_game(
    bare_python_is_recent: None, tmp_path: Path
) -> None:
    done = simulate("--log-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    logs = sorted(tmp_path.glob("*.jsonl"))
    assert [p.name for p in logs] == [f"europe-3p-seed1-{n:05d}.jsonl" for n in range(3)]
    assert sum(len(p.read_text().splitlines()) for p in logs) == summary["events"]
    for log in logs:
        events = [event_from_json(line) for line in log.read_text().splitlines()]
        assert isinstance(events[0], ev.GameStarted) and events[0].players == 3
        state = replay(events)
        assert state.finished, f"{log.name} does not replay to a finished game"
        ended, last = events[-2:]
        assert isinstance(ended, ev.GameEnded) and isinstance(last, ev.GameScored) and last.scores == state.scores
        again = final_score(state.board, 3, state.route_owner, state.station_owner, [p.tickets for p in state.players])
        assert again.scores == state.scores


def test_the_simulator_refuses_a_bad_player_count(bare_python_is_recent: None) -> None:
    done = run_bare("-m", "games.engine.simulate", "--players", "6", "--games", "1")
    assert done.returncode == 2 and "--players" in done.stderr


def test_importing_games_imports_nothing_else(bare_python_is_recent: None) -> None:
    # games/__init__.py stays empty so that the engine can be imported without Django's app registry.
    assert (ROOT / "games" / "__init__.py").read_text().strip() == ""
    done = run_bare("-c", "import sys; before = set(sys.modules); import games; print(sorted(set(sys.modules) - before))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['games']"


def test_the_engine_the_codec_and_the_chain_load_only_standard_library_modules(bare_python_is_recent: None) -> None:
    code = (
        "import sys, json; before = set(sys.modules)\n"
        "import games.engine, games.engine.simulate, games.engine.codec, games.engine.hash_chain\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    done = run_bare("-c", code)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "games.engine.decide" in loaded and "games.engine.codec" in loaded
    outside = [m for m in loaded if m.split(".")[0] not in sys.stdlib_module_names and m.split(".")[0] != "games"]
    assert outside == [], f"the engine loads modules outside the standard library: {outside}"
    assert not [m for m in loaded if m.startswith("games.") and not m.startswith("games.engine")]


def imported_modules(path: Path) -> set[str]:
    """Every module a source file imports, at any depth (function-level imports included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
            "import_module",
            "__import__",
        ):
            found.add("<dynamic import>")
    return found


def test_no_engine_source_file_imports_django_or_any_other_installed_package() -> None:
    sources = sorted(ENGINE.rglob("*.py"))
    assert len(sources) >= 10
    for path in sources:
        for module in imported_modules(path):
            top = module.split(".")[0]
            where = f"{path.relative_to(ROOT)} imports {module}"
            assert top not in FORBIDDEN, where
            # The fairness command line reads an audit file: the codec and the hash chain, pure as the engine is
            # (the test above loads them on a bare Python).
            assert top in sys.stdlib_module_names or module.startswith("games.engine"), where


def test_the_import_scan_sees_function_level_and_dynamic_imports(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text("import os\ndef f():\n    from django.db import models\n    importlib.import_module('x')\n")
    assert imported_modules(source) == {"os", "django.db", "<dynamic import>"}


def test_games_uses_the_bots_library_never_their_tasks_and_bot_policies_never_import_django() -> None:
    """Dependencies point one way (docs/DESIGN.md, Workers): the games' use cases call the bots' library (policies,
    analysis, advice, budget) as they call the engine; only bots/tasks.py, which imports games, is never imported
    by games. The policies import the standard library and the engine alone."""
    library = ("bots.policies", "bots.analysis", "bots.advice", "bots.budget")
    for path in sorted((ROOT / "games").rglob("*.py")):
        modules = imported_modules(path)
        bots = [m for m in modules if m.split(".")[0] == "bots" and m != "bots"]  # the package: `from bots import x`
        assert all(m.startswith(library) for m in bots), f"{path.relative_to(ROOT)} imports {bots}"
    policies = sorted((ROOT / "bots" / "policies").rglob("*.py"))
    assert policies
    for path in policies:
        for module in imported_modules(path):
            top = module.split(".")[0]
            where = f"{path.relative_to(ROOT)} imports {module}"
            assert top in sys.stdlib_module_names or module.startswith(("games.engine", "bots.policies")), where
