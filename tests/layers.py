"""The layer rules of cadre's packages, read from their source (run in the lint step and by
``tests/test_layers.py``): ``python -m tests.layers`` prints each broken rule and exits 1.

- No import circle among the modules of ``framework``, ``teams``, ``policies`` and
  ``telemetry``; every import counts (module level, ``TYPE_CHECKING`` and inside functions).
- The engine (``framework.engine``) reaches nothing above it: no module it imports, directly
  or through others, belongs to runs, retention, the server, the fleet, the CLI, kinds or
  tools.
- A ``_private`` module is imported only from inside the package that holds it.
- No two packages import each other (a package: ``framework.X`` or ``teams.X``, a module at the
  root of either counting as its own; ``policies``; ``telemetry``), except the pairs
  ``docs/architecture.md`` lists with their reason, as table rows ``| `a` <-> `b` | reason |``;
  a listed pair that no longer imports each other is reported too.
- The root of ``framework`` holds only ``__init__``, ``errors``, ``testing`` and ``_lazy``.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ARCHITECTURE",
    "ENGINE",
    "ENGINE_FORBIDDEN",
    "PACKAGES",
    "ROOT_MODULES",
    "SPLIT",
    "Import",
    "Imports",
    "broken_rules",
    "documented_pairs",
    "engine_reaches",
    "import_circles",
    "package_of",
    "private_imports",
    "read_imports",
    "two_way_pairs",
]

PACKAGES = ("framework", "teams", "policies", "telemetry")
ENGINE = "framework.engine"
ENGINE_FORBIDDEN = (
    "framework.runs",
    "framework.retention",
    "framework.server",
    "framework.fleet",
    "framework.cli",
    "framework.kinds",
    "framework.tools",
)
ROOT_MODULES = frozenset({"__init__", "errors", "testing", "_lazy"})
SPLIT = ("framework", "teams")
"""The top-level packages whose sub-packages are packages of their own for the two-way rule."""
ARCHITECTURE = "docs/architecture.md"
_PAIR_ROW = re.compile(r"^\|\s*`([\w.]+)`\s*<->\s*`([\w.]+)`\s*\|\s*([^|]*?)\s*\|\s*$")
PROJECT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Imports:
    """The project's modules (dotted name -> file) and what each imports of them."""

    files: Mapping[str, Path]
    edges: Mapping[str, frozenset[str]]


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(
    tree: ast.Module, name: str, is_package: bool, known: Mapping[str, Path]
) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:
                submodule = f"{module}.{alias.name}"
                yield submodule if submodule in known else module


def read_imports(root: Path = PROJECT) -> Imports:
    """Every import between the modules of :data:`PACKAGES` under ``root``."""
    files = {
        _module_name(path, root): path
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
    }
    edges = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        targets = _imported(tree, name, path.name == "__init__.py", files)
        edges[name] = frozenset(t for t in targets if t in files and t != name)
    return Imports(files=files, edges=edges)


def import_circles(imports: Imports) -> list[list[str]]:
    """The import circles (strongly connected sets of two or more modules), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(imports.edges[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            members = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(members) > 1:
                circles.append(sorted(members))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(imports.files)))
    try:
        for module in sorted(imports.files):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(circles)


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def engine_reaches(imports: Imports) -> dict[str, list[str]]:
    """Forbidden module -> the import path from the engine that reaches it."""
    paths: dict[str, list[str]] = {m: [m] for m in imports.files if _within(m, ENGINE)}
    queue = list(paths)
    while queue:
        module = queue.pop(0)
        for target in sorted(imports.edges[module]):
            if target not in paths:
                paths[target] = [*paths[module], target]
                queue.append(target)
    return {
        module: path
        for module, path in sorted(paths.items())
        if any(_within(module, forbidden) for forbidden in ENGINE_FORBIDDEN)
    }


def private_imports(imports: Imports) -> list[tuple[str, str]]:
    """(importer, private module) pairs where the importer is outside the private module's
    package."""
    found = []
    for importer, targets in sorted(imports.edges.items()):
        for target in sorted(targets):
            parts = target.split(".")
            private = [i for i, part in enumerate(parts) if part.startswith("_")]
            if private and not _within(importer, ".".join(parts[: private[0]])):
                found.append((importer, target))
    return found


def package_of(module: str) -> str:
    """The package ``module`` belongs to for the two-way rule: ``framework.X`` or ``teams.X``
    (a module at the root of either is its own), else its top-level package."""
    parts = module.split(".")
    return ".".join(parts[:2] if parts[0] in SPLIT else parts[:1])


Import = tuple[str, str]
"""An (importer, imported module) pair."""


def two_way_pairs(imports: Imports) -> dict[tuple[str, str], tuple[Import, Import]]:
    """(package, package) -> one import each way, for every two packages that import each
    other (each pair sorted, with its first import each way)."""
    crossing: dict[tuple[str, str], Import] = {}
    for importer, targets in sorted(imports.edges.items()):
        for target in sorted(targets):
            pair = (package_of(importer), package_of(target))
            if pair[0] != pair[1]:
                crossing.setdefault(pair, (importer, target))
    return {
        (a, b): (crossing[a, b], crossing[b, a])
        for a, b in sorted(crossing)
        if a < b and (b, a) in crossing
    }


def documented_pairs(root: Path = PROJECT) -> dict[frozenset[str], str]:
    """The two-way package pairs :data:`ARCHITECTURE` lists, each with its reason (rows with
    an empty reason do not count); empty when there is no such document."""
    path = root / ARCHITECTURE
    if not path.exists():
        return {}
    rows = (_PAIR_ROW.match(line) for line in path.read_text(encoding="utf-8").splitlines())
    return {frozenset(row.group(1, 2)): row.group(3) for row in rows if row and row.group(3)}


def broken_rules(root: Path = PROJECT) -> list[str]:
    """One line per broken rule; empty when the layers hold."""
    imports = read_imports(root)
    lines = [f"import circle: {' <-> '.join(circle)}" for circle in import_circles(imports)]
    lines += [
        f"the engine reaches {module}: {' -> '.join(path)}"
        for module, path in engine_reaches(imports).items()
    ]
    lines += [
        f"{importer} imports {target}, private to another package: export what it needs"
        for importer, target in private_imports(imports)
    ]
    documented = documented_pairs(root)
    pairs = two_way_pairs(imports)
    found = {frozenset(pair) for pair in pairs}
    lines += [
        f"{a} <-> {b} import each other ({there[0]} imports {there[1]}; {back[0]} imports "
        f"{back[1]}): untie them, or list the pair with its reason in {ARCHITECTURE}"
        for (a, b), (there, back) in pairs.items()
        if frozenset((a, b)) not in documented
    ]
    lines += [
        f"{ARCHITECTURE} lists {' <-> '.join(sorted(pair))}, which do not import each other: "
        "remove the row"
        for pair in documented
        if pair not in found
    ]
    lines += [
        f"framework/{path.name} belongs in a layer: the root keeps {sorted(ROOT_MODULES)}"
        for path in sorted((root / "framework").glob("*.py"))
        if path.stem not in ROOT_MODULES
    ]
    return lines


if __name__ == "__main__":
    broken = broken_rules()
    for line in broken:
        print(line)
    sys.exit(1 if broken else 0)
