"""The README's Python example runs as written and leaves no database in the working tree."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_the_readme_python_example_runs_and_leaves_no_file() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [example] = re.findall(r"```python\n(.*?)```", readme, re.S)
    before = sorted(ROOT.glob("*.sqlite*"))
    done = subprocess.run(
        [sys.executable, "-c", example],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# "), done.stdout
    assert sorted(ROOT.glob("*.sqlite*")) == before
