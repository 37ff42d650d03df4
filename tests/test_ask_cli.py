"""``cadre ask``: answers from the home's knowledge graph with citations, says so when the graph
holds nothing, and refuses bad input in one line without creating anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.database.home import DataHome
from framework.knowledge import KnowledgeGraph
from framework.memory import MiniLMEmbedder
from framework.runs.spec import RunSpec
from framework.runs.stores import home_checkpointer, home_cipher, home_store
from tests.conftest import one_line_error
from tests.test_supervisor_team import QUESTION, save_sample_graph

runner = CliRunner()


@pytest.fixture
def home(tmp_path: Path, embedder: MiniLMEmbedder) -> Path:
    """A data home whose encrypted store holds the sample knowledge graph."""
    data_home = DataHome(root=tmp_path / "home").create()
    with home_store(data_home, home_cipher(data_home)) as store:
        save_sample_graph(KnowledgeGraph(store))
    return data_home.root


def _ask(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["ask", *args])
    return result.exit_code, result.stdout, result.stderr


def test_ask_answers_from_the_graph_citing_documents(home: Path) -> None:
    code, out, err = _ask(QUESTION, "--home", str(home), "--thread", "ask-1", "--no-trace")
    assert code == 0, err
    assert out.startswith(f"# {QUESTION}\n")
    assert "(`docs/dispatch.md:3`)" in out and "(`docs/workers.md:5`)" in out
    assert '- `docs/dispatch.md:3`: "The dispatcher sends tasks to the worker pool."' in out
    assert "knowledge graph: 6 entities, 4 relations (1 to review); thread ask-1" in err
    assert "next query_memory" in err and "next finish" in err
    checkpointer = home_checkpointer(DataHome(root=home))
    try:
        saved = list(checkpointer.list({"configurable": {"thread_id": "ask-1"}}))
    finally:
        checkpointer.close()
    assert saved
    info = RunSpec.from_metadata(saved[0].metadata)
    assert info == RunSpec(team="supervisor", observe=None)


def test_ask_json_has_the_answer_decisions_and_evidence(home: Path) -> None:
    code, out, err = _ask("What does the tracer do?", "--home", str(home), "--json", "--no-trace")
    assert code == 0, err
    state = json.loads(out)
    assert state["thread_id"]
    assert "`docs/telemetry.md:4`" in state["final_answer"]
    steps = [d["step"] for d in state["decisions"]]
    assert steps == ["query_memory", "query_memory", "draft_content", "finish"]
    assert [e["source"] for e in state["evidence"]] == ["docs/telemetry.md:4"]


def test_ask_on_a_home_without_a_graph_says_so_and_creates_nothing(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    missing = tmp_path / "nowhere"
    code, out, err = _ask("What does the tracer do?", "--home", str(missing))
    assert code == 0, err
    assert "holds no entities" in out and "cadre extract PATH" in out
    assert not missing.exists()
    other = DataHome(root=tmp_path / "other").create()
    with home_store(other, home_cipher(other)) as store:
        KnowledgeGraph(store, scope=("someone-else",)).save([], [])
    code, out, _ = _ask("What does the tracer do?", "--home", str(other.root), "--no-trace")
    assert code == 0
    assert out.startswith(f"The knowledge graph under {other.root} holds no entities")


def test_another_scope_reads_another_graph(home: Path) -> None:
    code, out, _ = _ask(QUESTION, "--home", str(home), "--memory-scope", "team/b", "--no-trace")
    assert code == 0
    assert "holds no entities" in out


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["   "], "the question is empty"),
        (["why?", "--model", "gpt4"], "bad model spec 'gpt4'"),
        (["why?", "--memory-scope", "/"], "--memory-scope is empty"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_creates_nothing(
    tmp_path: Path, args: list[str], reason: str
) -> None:
    home = tmp_path / "home"
    line = one_line_error(runner.invoke(app, ["ask", *args, "--home", str(home)]))
    assert reason in line
    assert not home.exists()


def test_an_ask_thread_is_listed_and_resumable_like_any_other(home: Path) -> None:
    code, _, err = _ask(QUESTION, "--home", str(home), "--thread", "ask-2", "--no-trace")
    assert code == 0, err
    listed = runner.invoke(app, ["threads", "--home", str(home)])
    assert listed.exit_code == 0, listed.stderr
    [line] = [line for line in listed.stdout.splitlines() if line.startswith("ask-2")]
    assert line.split()[1:3] == ["supervisor", "done"]
    resumed = runner.invoke(app, ["resume", "ask-2", "--home", str(home)])
    assert "finished" in resumed.stdout + resumed.stderr
