"""The layer rules hold for cadre's own source, and the checker finds each kind of break."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from tests.layers import broken_rules, read_imports


def test_the_packages_keep_their_layers() -> None:
    assert broken_rules() == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for package in ("framework", "teams", "policies", "telemetry"):
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").write_text('"""A package."""\n')
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


TWO_WAY = {
    "framework/fleet/__init__.py": "",
    "framework/fleet/submit.py": "from framework.server.app import app\n",
    "framework/fleet/queue.py": "",
    "framework/server/__init__.py": "",
    "framework/server/app.py": "",
    "framework/server/queued.py": "from framework.fleet.queue import Queue\n",
}
"""Two packages that import each other with no import circle between their modules."""


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {
                "telemetry/a.py": "from telemetry.b import B\n",
                "telemetry/b.py": "def f():\n    from telemetry import a\n",
            },
            "import circle: telemetry.a <-> telemetry.b",
        ),
        (
            {
                "framework/engine/__init__.py": "",
                "framework/engine/state.py": "from framework.engine import tools\n",
                "framework/engine/tools.py": "from framework.review.points import ask\n",
                "framework/review/__init__.py": "",
                "framework/review/points.py": (
                    "from typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n    from framework.runs.launch import launch\n"
                ),
                "framework/runs/__init__.py": "",
                "framework/runs/launch.py": "",
            },
            "the engine reaches framework.runs.launch: framework.engine.tools -> "
            "framework.review.points -> framework.runs.launch",
        ),
        (
            {
                "framework/memory/__init__.py": "",
                "framework/memory/_rows.py": "",
                "teams/reader.py": "from framework.memory._rows import ROWS\n",
            },
            "teams.reader imports framework.memory._rows, private to another package",
        ),
        ({"framework/builder.py": ""}, "framework/builder.py belongs in a layer"),
        (
            TWO_WAY,
            "framework.fleet <-> framework.server import each other (framework.fleet.submit "
            "imports framework.server.app; framework.server.queued imports framework.fleet.queue)",
        ),
        (
            {"docs/architecture.md": "| `teams.language` <-> `teams.research` | shared words |\n"},
            "docs/architecture.md lists teams.language <-> teams.research, which do not import",
        ),
    ],
    ids=["circle", "engine", "private", "root", "two-way", "stale-pair"],
)
def test_each_break_is_named(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    broken = broken_rules(_tree(tmp_path, files))
    assert any(line.startswith(expected) for line in broken), broken


def test_a_two_way_pair_listed_with_its_reason_is_allowed(tmp_path: Path) -> None:
    row = "| `framework.server` <-> `framework.fleet` | the fleet runs the server's runs |\n"
    assert broken_rules(_tree(tmp_path, {**TWO_WAY, "docs/architecture.md": row})) == []
    without_reason = "| `framework.server` <-> `framework.fleet` | |\n"
    broken = broken_rules(_tree(tmp_path, {"docs/architecture.md": without_reason}))
    assert [line.split(" (")[0] for line in broken] == [
        "framework.fleet <-> framework.server import each other"
    ]


def test_a_package_may_use_its_own_private_modules(tmp_path: Path) -> None:
    files = {
        "framework/memory/__init__.py": "from framework.memory._rows import ROWS\n",
        "framework/memory/_rows.py": "",
        "framework/memory/store.py": "from framework.memory import _rows\n",
    }
    assert broken_rules(_tree(tmp_path, files)) == []


def test_every_package_export_resolves() -> None:
    packages = sorted(
        name for name, path in read_imports().files.items() if path.name == "__init__.py"
    )
    for package in packages:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", ()):
            assert getattr(module, name) is not None, f"{package}.{name}"
