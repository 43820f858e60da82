"""The house's import arrows: no module of games/, bots/ or ttr_server/ reaches itself again through its imports
(imports inside functions count), the rules engine and the bots' policies import no Django, and bench/ imports
nothing of tests/ (the tests import bench's servers, fault harness and traffic, never the other way)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("games", "bots", "ttr_server")
PURE = ("games.engine", "bots.policies", "bots.analysis", "bots.advice", "games.lobby.pairing", "games.clocks.time_banks")
FRAMEWORKS = ("django", "rest_framework", "channels", "celery")


def modules(packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    found = {}
    for package in packages:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """What the module imports, anywhere in it: modules of ours (the nearest known one), and others by top name."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            ours = target
            while ours and ours not in known:
                ours = ours.rpartition(".")[0]
            found.add(ours or target.split(".")[0])
    found.discard(name)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph.get(module, ()):
            if other not in graph:
                continue
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return groups


def test_no_module_imports_itself_back_through_others() -> None:
    known = modules()
    graph = {name: imported(name, path, known) for name, path in known.items()}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_engine_and_the_policies_import_no_django() -> None:
    known = modules()
    for name, path in known.items():
        if name.startswith(PURE):
            outside = {target for target in imported(name, path, known) if target.split(".")[0] in FRAMEWORKS}
            assert not outside, (name, outside)


def test_bench_imports_nothing_of_the_tests() -> None:
    known = modules(("bench",))
    assert "bench.live.embedded" in known and "bench.load" in known
    for name, path in known.items():
        reached = {target for target in imported(name, path, known) if target.split(".")[0] == "tests"}
        assert not reached, (name, reached)


def test_an_import_of_the_tests_inside_a_function_is_seen(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text("def main() -> None:\n    from tests.server.helpers import body\n")
    assert imported("bench.script", script, {"bench.script": script}) == {"tests"}
