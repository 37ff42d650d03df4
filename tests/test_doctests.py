"""The examples in the project's docstrings (``>>>``) run and print what they show."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_EXAMPLE = re.compile(r"^\s*>>> ", re.M)
MODULES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for top in ("framework", "teams", "policies", "telemetry")
    for path in (ROOT / top).rglob("*.py")
    if _EXAMPLE.search(path.read_text(encoding="utf-8"))
)


def test_the_modules_with_examples_are_found() -> None:
    assert "framework.testing" in MODULES


@pytest.mark.parametrize("module", MODULES)
def test_the_examples_of_a_module_run(module: str) -> None:
    report: list[str] = []
    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(importlib.import_module(module)):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
