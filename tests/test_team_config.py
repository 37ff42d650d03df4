"""Teams composed from a YAML team file: checked whole with FILE:LINE errors before anything
runs, run offline from the CLI, resumed and shown from the recorded file, tool kinds on a
scripted model, and `cadre tools list`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from typer.testing import CliRunner

from framework.engine.builder import compile_team
from framework.errors import ConfigError
from framework.memory import Corpus
from framework.runs.teams import TeamSetup
from framework.testing import CallTools, Reply, ScriptedChatModel, Structured
from teams.configured.app import team_from_file
from teams.research.schemas import (
    FactsDraft,
    PlanDraft,
    ReportDraft,
    ReviewVerdictDraft,
    SubQuestion,
)
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.test_analyst_team import CITIES

DEMO_SERVER = Path(__file__).parent / "mcp_servers" / "demo.py"
OFFLINE = """\
name: support
max_parallel: 4
kinds:
  - name: docs
    description: passages from the documentation
    builtin: search
  - name: data
    builtin: table
"""
TOOLS = '''\
from langchain_core.tools import tool


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b
'''


def _file(folder: Path, text: str, name: str = "team.yaml") -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "mytools.py").write_text(TOOLS)
    path = folder / name
    path.write_text(text)
    return path


def _cli(*args: str) -> Any:
    return CliRunner().invoke(__import__("framework.cli.app", fromlist=["app"]).app, list(args))


@pytest.fixture
def corpus_folder(tmp_path: Path) -> Path:
    root = write_corpus(tmp_path / "corpus", SMALL_CORPUS)
    (root / "cities.csv").write_text(CITIES)
    return root


def test_an_offline_team_file_runs_is_recorded_and_shown(
    tmp_path: Path, corpus_folder: Path
) -> None:
    team = _file(tmp_path / "conf", OFFLINE)
    home = str(tmp_path / "home")
    question = "What is the population of Graz, and how do workers retry transient errors?"
    ran = _cli(
        "run",
        question,
        "--team-config",
        str(team),
        "--corpus",
        str(corpus_folder),
        "--thread",
        "t1",
        "--home",
        home,
    )
    assert ran.exit_code == 0, ran.stderr
    assert "city: Graz; population: 291072" in ran.stdout
    listed = _cli("threads", "--home", home)
    assert f"support ({team})" in listed.stdout
    shown = _cli("show", "t1", "--home", home)
    assert shown.exit_code == 0, shown.stderr
    assert "  data      done" in shown.stdout and "  docs      done" in shown.stdout


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (OFFLINE + "    colour: red\n", r"team\.yaml:9: kinds\.1\.colour: Extra inputs"),
        (
            OFFLINE + "  - name: calc\n    tools: ['nowhere.mod:multiply']\n",
            r"team\.yaml:10: kinds\.2\.tools\.0: cannot import 'nowhere\.mod:multiply'",
        ),
        (
            OFFLINE + "  - name: tickets\n    mcp: [ticketing]\n",
            r"team\.yaml:10: kinds\.2\.mcp\.0: names no server of mcp_servers: 'ticketing'",
        ),
        (OFFLINE + "  - name: docs\n    builtin: table\n", r"kinds named more than once: docs"),
        ("name: x\nkinds: []\n", r"team\.yaml:2: kinds: List should have at least 1 item"),
        ("kinds:\n  - name: a\n", r"team\.yaml:2: kinds\.0: a kind needs builtin"),
        ("models: {boss: openai:gpt-4o}\nkinds: [{name: a, builtin: search}]\n", r"unknown roles"),
        ("kinds: [\n", r"team\.yaml:2: not YAML"),
        (
            "dispatch_batch: 0\nkinds: [{name: a, builtin: search}]\n",
            r"team\.yaml:1: dispatch_batch: Input should be greater than or equal to 1",
        ),
    ],
)
def test_a_bad_file_is_refused_with_its_line_and_nothing_is_written(
    tmp_path: Path, text: str, expected: str
) -> None:
    team = _file(tmp_path / "conf", text)
    with pytest.raises(ConfigError, match=expected):
        team_from_file(team)
    done = _cli("run", "q", "--team-config", str(team), "--home", str(tmp_path / "home"))
    assert done.exit_code == 2
    assert not (tmp_path / "home").exists()


def test_a_tool_kind_without_a_model_is_refused_before_anything_runs(tmp_path: Path) -> None:
    team = _file(tmp_path / "conf", OFFLINE + "  - name: calc\n    tools: ['mytools:multiply']\n")
    done = _cli("run", "q", "--team-config", str(team), "--home", str(tmp_path / "home"))
    assert done.exit_code == 2
    assert f"{team}:9: kinds.2: kind 'calc' calls a model, and neither the file" in done.stderr
    assert "set models.default in the file or pass --model" in done.stderr
    assert not (tmp_path / "home").exists()
    both = _cli("run", "q", "--team-config", str(team), "--team", "research")
    assert both.exit_code == 2 and "give one of them" in both.stderr


def one_tool_task(
    kind: str, tool: str, arguments: dict[str, Any], reply: Reply
) -> ScriptedChatModel:
    """A model whose plan is one task of ``kind`` (``q0``), which calls ``tool`` with
    ``arguments`` and then answers ``reply``; the run then finishes with nothing to cite."""
    task = SubQuestion(description=f"a task for {kind}", query=tool, kind=kind)
    return ScriptedChatModel(
        [
            Structured(PlanDraft(goal="g", sub_questions=[task])),
            CallTools([(tool, arguments)], match="Task q0:"),
            reply,
            Reply("Findings.", match="Findings:"),
            Structured(
                ReviewVerdictDraft(decision="finish", confidence=1.0),
                match="Consolidated findings:",
            ),
            Structured(FactsDraft(facts=[]), match="Evidence:"),
            Structured(ReportDraft(sections=[]), match="Evidence you may cite:"),
        ]
    )


def test_a_tool_kind_runs_its_python_tool_on_the_model(
    tmp_path: Path, small_corpus: Corpus
) -> None:
    team = _file(tmp_path / "conf", "kinds:\n  - name: calc\n    tools: ['mytools:multiply']\n")
    model = one_tool_task("calc", "multiply", {"a": 6, "b": 7}, Reply("42", match="42.0"))
    factory = team_from_file(team)
    assert factory.needs_model
    setup = TeamSetup(corpus=small_corpus, store=small_corpus.store, model=model)
    app = compile_team(factory(setup), checkpointer=InMemorySaver())
    final = app.invoke({"question": "q"}, {"configurable": {"thread_id": "calc"}})
    [result] = final["worker_results"].values()
    assert result.status == "ok" and result.evidence[0].text == "42.0"
    setup.resources.close()


def test_tools_list_shows_kinds_sources_and_schemas(tmp_path: Path) -> None:
    team = _file(
        tmp_path / "conf",
        f"""\
models: {{default: openai:gpt-4o-mini}}
kinds:
  - {{name: docs, builtin: search}}
  - {{name: calc, tools: ['mytools:multiply']}}
  - {{name: weather, mcp: [demo]}}
mcp_servers:
  - name: demo
    transport: stdio
    command: {sys.executable}
    args: [{DEMO_SERVER}]
    tools: [forecast]
""",
    )
    listed = _cli("tools", "list", "--config", str(team))
    assert listed.exit_code == 0, listed.stderr
    lines = listed.stdout.splitlines()
    # the file names a model, so its search kind is the model-backed research worker
    assert lines[0].startswith("docs  python  search_corpus  {")
    assert any(line.startswith("calc  python  multiply  {") for line in lines)
    assert any(line.startswith("weather  mcp:demo  forecast  {") for line in lines)
    rows = json.loads(_cli("tools", "list", "--config", str(team), "--json").stdout)
    forecast = next(row for row in rows if row["tool"] == "forecast")
    assert forecast["arguments"]["required"] == ["city"]


def test_a_files_model_that_cannot_be_built_is_refused_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    team = _file(tmp_path / "conf", "models: {default: openai:gpt-4o-mini}\n" + OFFLINE)
    done = _cli("run", "q", "--team-config", str(team), "--home", str(tmp_path / "home"))
    assert done.exit_code == 2
    assert "openai" in done.stderr
    assert not (tmp_path / "home").exists()


def test_a_files_own_models_are_governed_by_the_runs_policies(tmp_path: Path) -> None:
    from framework.kinds.team_file import load_team_file
    from framework.policy import GovernedChatModel
    from teams.configured.app import _Models

    team = _file(tmp_path / "conf", "models: {default: openai:gpt-4o-mini}\n" + OFFLINE)
    model = _Models(load_team_file(team), None).for_role("worker")
    assert isinstance(model, GovernedChatModel)
    assert model.name_for_policies == "openai:gpt-4o-mini"
