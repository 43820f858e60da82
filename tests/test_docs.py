"""The repository stands alone: no tracked file cites a path outside it, and every `docs/...` path that the README
and the Python code cite exists (docs/README.md lists the documents). The README stays short, and every relative
link of the README and the documents leads to a file, and to a heading of it when it names one."""

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


README_MOST_LINES = 250
LINK = re.compile(r"\[[^\]\n]*\]\(([^()\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def prose_of(text: str) -> str:
    """The text without its code blocks and code spans, where a bracket is not a link."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def anchors_of(text: str) -> set[str]:
    """The anchors a Markdown page offers as GitHub makes them: one per heading (lower case, punctuation dropped,
    spaces as hyphens, a repeated one numbered), and every explicit `<a id>` or `<a name>`."""
    anchors: set[str] = set(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", FENCE.sub("", text), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def test_the_readme_fits_on_a_screen_or_so() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines < README_MOST_LINES, (
        f"README.md has {lines} lines: figures belong in docs/PERFORMANCE.md, running it in docs/OPERATIONS.md"
    )


def test_every_relative_link_of_the_readme_and_the_docs_resolves() -> None:
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in LINK.findall(prose_of(page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue  # http:, https:, mailto:: not a file of the repository
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            name = f"{page.relative_to(ROOT)}: {target}"
            if not linked.exists():
                broken.append(f"{name} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in anchors_of(linked.read_text(encoding="utf-8")):
                broken.append(f"{name} (no such heading)")
    assert not broken, "links that lead nowhere:\n" + "\n".join(broken)
