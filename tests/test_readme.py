"""The README's Python examples run as written: the team compiled in-process (leaving no
database in the working tree), and the client of ``cadre serve`` against a real server."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import serve

ROOT = Path(__file__).parent.parent


def _examples() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return list(re.findall(r"```python\n(.*?)```", readme, re.S))


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_readme_python_example_runs_and_leaves_no_file() -> None:
    [example] = [code for code in _examples() if "build_team" in code]
    before = sorted(ROOT.glob("*.sqlite*"))
    done = _run(example)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# "), done.stdout
    assert sorted(ROOT.glob("*.sqlite*")) == before


def test_the_readme_client_example_runs_against_cadre_serve(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    [example] = [code for code in _examples() if "langgraph_sdk" in code]
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    tokens = {"ada": ("acme", "run,review")}
    with serve(tmp_path / "home", None, corpus=corpus, tokens=tokens) as served:
        code = example.replace('"cadre_..."', repr(served.tokens["ada"]))
        done = _run(code.replace("http://127.0.0.1:8123", served.url))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# "), done.stdout
