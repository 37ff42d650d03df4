"""What the packages export: each package's ``__all__`` (served by ``framework/_lazy.py`` where
the package lists its names once) holds no name twice and every name in it resolves; no name a
package exported before its list was written once is lost (``tests/fixtures/exports.json``);
every name the README and the docs import from the project imports."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT_PACKAGES = ("framework", "teams", "policies", "telemetry")
PACKAGES = sorted(
    ".".join(path.parent.relative_to(ROOT).parts)
    for top in PROJECT_PACKAGES
    for path in (ROOT / top).rglob("__init__.py")
)
BEFORE: dict[str, list[str]] = json.loads(
    (ROOT / "tests" / "fixtures" / "exports.json").read_text(encoding="utf-8")
)
SUBMODULE_NAMES = {"teams.hypothesis": {"model_roles"}, "teams.research": {"model_roles"}}
"""Names both a submodule and an export: safe only where the package imports the submodule
before it binds the name (an eager package), since importing a submodule rebinds its name."""
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
_IMPORT = re.compile(r"^(?:>>> )?(from [\w.]+ import (?:\([^)]*\)|[^\n]+)|import [\w., ]+)", re.M)


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_exports_each_name_once_and_every_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    names = list(getattr(module, "__all__", []))
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert [name for name in names if not hasattr(module, name)] == []
    assert sorted(set(BEFORE.get(package, [])) - set(names)) == []
    assert set(names) <= set(dir(module))
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    assert submodules & set(names) <= SUBMODULE_NAMES.get(package, set())


def test_the_package_list_covers_every_package_that_exported_names_before() -> None:
    assert sorted(set(BEFORE) - set(PACKAGES)) == []


def _documented_imports() -> list[tuple[str, str]]:
    """(file, import statement) for each import of the project in the docs' code blocks."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in _FENCE.findall(path.read_text(encoding="utf-8")):
            for statement in _IMPORT.findall(block):
                tree = ast.parse(statement)
                node = tree.body[0]
                modules = [node.module] if isinstance(node, ast.ImportFrom) else []
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                if any(m and m.split(".")[0] in PROJECT_PACKAGES for m in modules):
                    found.append((path.name, ast.unparse(tree)))
    return found


def test_every_name_the_readme_and_the_docs_import_imports() -> None:
    imports = _documented_imports()
    assert any("from framework import" in statement for _, statement in imports), imports
    code = "\n".join(statement for _, statement in imports)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_a_name_exported_from_two_homes_is_refused_naming_both(tmp_path: Path) -> None:
    package = tmp_path / "twohomes"
    package.mkdir()
    (package / "one.py").write_text('__all__ = ["name"]\nname = 1\n', encoding="utf-8")
    (package / "two.py").write_text('__all__ = ["name"]\nname = 2\n', encoding="utf-8")
    (package / "__init__.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from framework import lazy_exports\n"
        "if TYPE_CHECKING:\n"
        "    from twohomes.one import *\n"
        "    from twohomes.two import name as name\n"
        "__getattr__, __dir__ = lazy_exports(__name__)\n",
        encoding="utf-8",
    )
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("twohomes")
        with pytest.raises(ImportError, match=r"'name' from both twohomes\.one and twohomes\.two"):
            _ = module.name
        assert "twohomes.one" not in sys.modules  # the homes are read, not imported
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("twohomes", None)


def test_a_lazy_package_serves_its_names_and_all_without_importing_them_first() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, framework.engine as e\n"
            "assert 'framework.engine.builder' not in sys.modules\n"
            "assert 'build_team' in e.__all__ and 'build_team' in dir(e)\n"
            "assert 'framework.engine.builder' not in sys.modules\n"
            "from framework.engine import build_team\n"
            "from framework.engine.builder import build_team as home\n"
            "assert build_team is home\n",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
