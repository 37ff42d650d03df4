"""``cadre tools list``: the installed teams' tools (all of them, or ``--team``), a team file's
(``--config``), the model-backed roles' (``--model``), and one-line refusals; offline, with no
data home written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from framework.cli.app import app
from framework.runs.teams import available_teams

ROW_KEYS = {"team", "kind", "source", "tool", "description", "arguments"}
TOOLS = '''\
from langchain_core.tools import tool


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b
'''
TEAM_FILE = """\
name: support
kinds:
  - {name: docs, builtin: search}
  - {name: calc, tools: ['mytools:multiply']}
"""


@pytest.fixture(autouse=True)
def no_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Every listing runs in an empty folder with a data home named; neither is written."""
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("CADRE_HOME", str(home))
    yield
    assert list(work.iterdir()) == []
    assert not home.exists()


def _list(*args: str) -> Result:
    return CliRunner().invoke(app, ["tools", "list", *args])


def _rows(*args: str) -> list[dict[str, Any]]:
    listed = _list(*args, "--json")
    assert listed.exit_code == 0, listed.stderr
    rows: list[dict[str, Any]] = json.loads(listed.stdout)
    return rows


def _by_team(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    teams: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        teams.setdefault(row["team"], []).append(row)
    return teams


def test_every_installed_team_is_listed_with_its_kinds() -> None:
    rows = _rows()
    assert all(set(row) == ROW_KEYS and isinstance(row["arguments"], dict) for row in rows)
    teams = _by_team(rows)
    assert {team.split("/")[0] for team in teams} == set(available_teams())
    assert {row["kind"]: row["source"] for row in teams["analyst"]} == {
        "search": "builtin:CorpusSearchWorker",
        "table": "builtin:TableWorker",
    }
    # nested teams are named by their path: the MetaCoordinator's research phase
    assert [(r["kind"], r["source"]) for r in teams["meta/research"]] == [
        ("*", "builtin:CorpusSearchWorker")
    ]
    [source] = teams["meta-hypothesis/hypothesis"]
    assert (source["source"], source["tool"]) == ("python", "corpus")
    assert source["arguments"]["required"] == ["query"]
    # a team whose nodes call no tools still shows up, with one row saying so
    assert [r["source"] for r in teams["supervisor"]] == ["none"]


def test_one_team_in_text() -> None:
    listed = _list("--team", "analyst")
    assert listed.exit_code == 0, listed.stderr
    rows = [line for line in listed.stdout.splitlines() if not line.startswith("    ")]
    assert sorted(rows) == [
        "analyst  search  builtin:CorpusSearchWorker  -  {}",
        "analyst  table  builtin:TableWorker  -  {}",
    ]
    assert "    Answers a task from the best matching table rows" in listed.stdout


def test_a_team_file_with_python_tools(tmp_path: Path) -> None:
    folder = tmp_path / "conf"
    folder.mkdir()
    (folder / "mytools.py").write_text(TOOLS)
    team = folder / "team.yaml"
    team.write_text(TEAM_FILE)
    rows = {row["kind"]: row for row in _rows("--config", str(team))}
    assert {row["team"] for row in rows.values()} == {"support"}
    # a file whose kinds call tools runs with a model only: its search kind is model-backed
    assert (rows["docs"]["source"], rows["docs"]["tool"]) == ("python", "search_corpus")
    calc = rows["calc"]
    assert (calc["source"], calc["tool"], calc["description"]) == (
        "python",
        "multiply",
        "Multiply two numbers.",
    )
    assert sorted(calc["arguments"]["required"]) == ["a", "b"]
    listed = _list("--config", str(team))
    assert listed.exit_code == 0, listed.stderr
    assert any(line.startswith("calc  python  multiply  {") for line in listed.stdout.splitlines())


def test_model_backed_roles_need_no_key_and_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    teams = _by_team(_rows("--model", "openai:gpt-4o-mini"))
    for team in ("research", "meta/research"):
        [row] = teams[team]
        assert (row["kind"], row["source"], row["tool"]) == ("*", "python", "search_corpus")
    kinds = {row["kind"]: (row["source"], row["tool"]) for row in teams["analyst"]}
    assert kinds == {"search": ("python", "search_corpus"), "table": ("builtin:TableWorker", "-")}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--team", "analyst", "--config", "team.yaml"], "--team and --config both name the team"),
        (["--team", "nope"], "unknown team 'nope': choose one of analyst,"),
        (["--model", "nope:x"], "unknown model provider 'nope'"),
    ],
)
def test_refusals_are_one_line(args: list[str], message: str) -> None:
    listed = _list(*args)
    assert listed.exit_code == 2
    assert listed.stdout == ""
    assert listed.stderr.startswith(f"error: {message}")
    assert len(listed.stderr.splitlines()) == 1
