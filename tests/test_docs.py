"""The repository stands alone: no tracked file cites a path outside it, and every `docs/...` path that the README
and the Python code cite exists (docs/README.md lists the documents)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"\.\./shared|/work/shared")
DOCS_PATH = re.compile(r"(?<![\w/.-])docs/[\w./-]*[\w/]")


def tracked_files() -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no list of tracked files")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode().split("\0")
    return [ROOT / name for name in listed if name and (ROOT / name).is_file()]


def text_of(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None  # binary: cites nothing


def citing_files() -> list[Path]:
    """The README, the documents themselves and every Python file of the repository (tracked or not yet)."""
    python = [p for p in ROOT.rglob("*.py") if not {".venv", "node_modules", "var"} & set(p.relative_to(ROOT).parts)]
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(python)]


def test_the_documents_are_in_the_repository() -> None:
    for name in ("README.md", "API.md", "RULES.md", "DESIGN.md", "STYLE.md"):
        assert (ROOT / "docs" / name).is_file(), f"docs/{name} is missing"


def test_no_tracked_file_cites_a_path_outside_the_repository() -> None:
    this = Path(__file__).resolve()
    cites = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in tracked_files()
        if path.resolve() != this
        for number, line in enumerate((text_of(path) or "").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not cites, "paths outside the repository:\n" + "\n".join(cites)


def test_every_docs_path_cited_by_the_readme_and_the_code_exists() -> None:
    this = Path(__file__).resolve()
    missing = sorted(
        f"{path.relative_to(ROOT)}: {cited}"
        for path in citing_files()
        if path.resolve() != this
        for cited in DOCS_PATH.findall(text_of(path) or "")
        if not (ROOT / cited.rstrip(".")).exists()
    )
    assert not missing, "cited documents that do not exist:\n" + "\n".join(missing)


def test_the_api_contract_marks_what_is_implemented() -> None:
    api = (ROOT / "docs" / "API.md").read_text(encoding="utf-8")
    for section in ("Trust", "Table talk and languages", "Analysis"):
        assert f"## {section} (implemented)" in api, f"docs/API.md: {section} is not marked implemented"
        assert api.index(f"## {section}") < api.index("# Planned")
    assert "(planned)" not in api
