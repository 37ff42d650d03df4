"""Every YAML example in ``docs/`` holds as written: each is read by the loader its page is
about (team files, policy files, retention rules, eval datasets, scripted models, plans), and
the team files that need no network and no model run offline.

A block showing several files side by side (``# top.yaml`` and ``# teams/middle.yaml`` as
column headings) is split into its files, each written where its heading says, so includes
resolve as they would for a reader who copied them. What an example presumes the reader has
(their own tool module, a nested team file it points to, a token in the environment, a corpus
folder) is supplied here, the way its page tells the reader to supply it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from framework.cli._edits import read_plan
from framework.evals.dataset import read_dataset
from framework.kinds.team_file import load_team_file
from framework.models.scripted import scripted_model
from framework.retention.rules import read_rules
from framework.runs.launch import load_policies
from tests.conftest import write_corpus

DOCS = Path(__file__).resolve().parent.parent / "docs"
_BLOCK = re.compile(r"```yaml\n(.*?)```", re.S)
_HEADING = re.compile(r"#\s*([\w./-]+\.ya?ml)\b")
_TOKEN_ENV = re.compile(r"token_env:\s*([A-Z][A-Z0-9_]*)")

SUPPLIED = {
    "mytools.py": '''
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b
''',
    "ticket_server.py": "# the reader's MCP server (started on a task's first call)\n",
    "legal/team.yaml": "name: legal\nkinds:\n  - {name: contracts, builtin: search}\n",
    "my_company/__init__.py": "",
    "my_company/policies.py": '''
from framework.policy import Policy


class ExportControl(Policy):
    """Allows everything (the reader's own policy)."""

    name = "export_control"


def export_control(**_: object) -> ExportControl:
    return ExportControl()
''',
}
"""What examples presume the reader wrote, by path beside the example."""

CORPUS = {"refunds.md": "# Refunds\n\nCustomers may ask for a refund within 30 days.\n"}


@dataclass(frozen=True)
class Example:
    """One YAML block of a page: where it starts and the files it shows."""

    page: str
    line: int
    files: tuple[tuple[str, str], ...]

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _columns(text: str) -> list[str]:
    """The columns of a block whose first line heads two files side by side (else the block)."""
    lines = text.splitlines()
    starts = [match.start() for match in _HEADING.finditer(lines[0])] if lines else []
    if len(starts) < 2 or starts[0] != 0:
        return [text]
    split = starts[1]
    return [
        "\n".join(line[:split].rstrip() for line in lines),
        "\n".join(line[split:] for line in lines),
    ]


def _files(column: str, default: str) -> list[tuple[str, str]]:
    """The files of a column, each under its ``# NAME.yaml`` heading line (``default`` for a
    column that starts without one)."""
    found: list[tuple[str, str]] = []
    name, lines = default, list[str]()
    for line in column.splitlines():
        heading = _HEADING.match(line.strip()) if line.lstrip().startswith("#") else None
        if heading is not None and line.strip().startswith("#"):
            if any(part.strip() for part in lines):
                found.append((name, "\n".join(lines) + "\n"))
            name, lines = heading.group(1), []
            continue
        lines.append(line)
    if any(part.strip() for part in lines):
        found.append((name, "\n".join(lines) + "\n"))
    return found


def examples() -> Iterator[Example]:
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text[: match.start()].count("\n") + 2
            default = f"example-{line}.yaml"
            files = [f for column in _columns(match.group(1)) for f in _files(column, default)]
            yield Example(page.name, line, tuple(files))


def _policies(path: Path) -> Any:
    return load_policies(path.read_text(encoding="utf-8"), str(path))


LOADERS: dict[str, Callable[[Path], Any]] = {
    "team-config.md": load_team_file,
    "policies.md": _policies,
    "memory.md": read_rules,
    "evals.md": read_dataset,
    "models.md": scripted_model,
    "review.md": read_plan,
}
"""The loader of each page's examples (a page missing here fails its examples' test)."""


def _written(example: Example, root: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The example's files, and what it presumes, under ``root/work``; its paths."""
    work = root / "work"
    for name, body in SUPPLIED.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(body, encoding="utf-8")
    write_corpus(root / "docs", CORPUS)
    monkeypatch.syspath_prepend(str(work))
    paths = []
    for name, body in example.files:
        path = work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
        paths.append(path)
        for variable in _TOKEN_ENV.findall(body):
            monkeypatch.setenv(variable, "a-token")
    return paths


EXAMPLES = list(examples())


def test_the_docs_have_yaml_examples_of_every_loader() -> None:
    assert {example.page for example in EXAMPLES} == set(LOADERS)
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: example.id)
def test_a_docs_example_loads_as_written(
    example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    load = LOADERS[example.page]
    for path in _written(example, tmp_path, monkeypatch):
        load(path)


def _offline(path: Path) -> bool:
    """Whether a team file and what it includes run with no network and no model."""
    loaded = load_team_file(path)
    files = [loaded]
    while files:
        current = files.pop()
        if current.needs_model or any(
            kind.kind_type.key not in ("builtin", "team") for kind in current.spec.kinds
        ):
            return False
        files.extend(sub for sub in current.subteams.values() if not isinstance(sub, str))
    return True


OFFLINE = [
    (example, name)
    for example in EXAMPLES
    if example.page == "team-config.md"
    for name, _ in example.files
]


@pytest.mark.parametrize("example, name", OFFLINE, ids=lambda value: getattr(value, "id", value))
def test_a_docs_team_file_that_needs_no_network_runs_offline(
    example: Example, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _written(example, tmp_path, monkeypatch)
    path = tmp_path / "work" / name
    if not _offline(path):
        pytest.skip(f"{name} names a remote kind, a tool or a model: loaded, not run, here")
    from framework.cli.app import app

    question = "How long do customers have to ask for a refund?"
    home = ["--home", str(tmp_path / "home")]
    corpus = str(tmp_path / "docs")
    arguments = ["run", question, "--team-config", str(path), "--corpus", corpus, "--thread", "t1"]
    ran = CliRunner().invoke(app, [*arguments, *home])
    assert ran.exit_code == 0, ran.stderr
    if load_team_file(path).spec.review:  # it pauses where the file says: approved here
        assert ran.stdout.startswith("paused for review: thread t1")
        ran = CliRunner().invoke(app, ["approve", "t1", "--reviewer", "ada", *home])
        assert ran.exit_code == 0, ran.stderr
    assert "30 days" in ran.stdout and "refunds.md:3" in ran.stdout
