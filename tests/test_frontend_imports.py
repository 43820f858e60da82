"""The web client's import arrows (frontend/*.js, plain ES modules with no build step): every module it imports is
there and exports the names asked of it, and no module reaches itself again through its imports (static `import`,
`export … from` and dynamic `import()` alike)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_imports import cycles

FRONTEND = Path(__file__).resolve().parents[1] / "frontend"

# `import {a, b as c} from "./x.js"`, `import * as x from …`, `import "./x.js"`, `export {a} from …`, `export * from …`
# at the start of a line; the clause holds only names, braces, commas and `*` (so `export const … =` never matches).
STATIC = re.compile(r"^[ \t]*(?:import|export)\s+(?:([\w$*\s{},]+?)\s+from\s+)?[\"']([^\"']+)[\"']", re.MULTILINE)
DYNAMIC = re.compile(r"\bimport\(\s*[\"']([^\"']+)[\"']\s*\)")
DECLARED = re.compile(r"^export\s+(?:async\s+)?(?:function\*?|class|const|let|var)\s+([\w$]+)", re.MULTILINE)
LISTED = re.compile(r"^export\s*\{([^}]*)\}", re.MULTILINE)


def modules() -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(FRONTEND.glob("*.js"))}


def target(specifier: str) -> str | None:
    """The frontend module a specifier names ("./api.js" -> "api.js"); None for one outside frontend/*.js."""
    if not specifier.startswith("./") or "/" in specifier[2:]:
        return None
    return specifier[2:]


def imports(source: str) -> list[tuple[str, set[str]]]:
    """(specifier, the names taken from it by name) for each import of the module."""
    found: list[tuple[str, set[str]]] = []
    for clause, specifier in STATIC.findall(source):
        braces = re.search(r"\{([^}]*)\}", clause or "")
        names = {part.split(" as ")[0].strip() for part in braces.group(1).split(",")} if braces else set()
        found.append((specifier, {name for name in names if name}))
    found.extend((specifier, set()) for specifier in DYNAMIC.findall(source))
    return found


def exports(source: str) -> set[str]:
    names = set(DECLARED.findall(source))
    for listed in LISTED.findall(source):
        names |= {part.split(" as ")[-1].strip() for part in listed.split(",") if part.strip()}
    return names


def graph(sources: dict[str, str]) -> dict[str, set[str]]:
    return {name: {t for spec, _ in imports(source) if (t := target(spec))} for name, source in sources.items()}


def test_every_import_names_a_module_that_is_there_and_exports_it() -> None:
    sources = modules()
    for name, source in sources.items():
        for specifier, names in imports(source):
            module = target(specifier)
            assert module in sources, f"{name} imports {specifier}, which is not a module of frontend/"
            missing = names - exports(sources[module])
            assert not missing, f"{name} imports {sorted(missing)} from {module}, which does not export them"


def test_no_frontend_module_imports_itself_back_through_others() -> None:
    assert cycles(graph(modules())) == []


def test_the_import_reader_sees_each_kind_of_import() -> None:
    source = """import { h, mount as put } from "./dom.js";
import {
  get,
  post,
} from "./api.js";
import * as words from "./words.js";
export { t, tn as plural } from "./i18n.js";
export const late = () => import("./replay.js");
// import { nothing } from "./comment.js" is no import
"""
    assert imports(source) == [
        ("./dom.js", {"h", "mount"}),
        ("./api.js", {"get", "post"}),
        ("./words.js", set()),
        ("./i18n.js", {"t", "tn"}),
        ("./replay.js", set()),
    ]
    assert exports(source + "export async function go() {}\nexport class A {}\n") == {"t", "plural", "late", "go", "A"}
    assert graph({"a.js": 'import { b } from "./b.js";', "b.js": 'import { a } from "./a.js";'}) == {
        "a.js": {"b.js"},
        "b.js": {"a.js"},
    }
