"""The analyst team: two kinds of worker offline, passages from text files and rows from CSV
files, chosen per part of the question; from the CLI as a user runs it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.memory import Corpus
from framework.testing import ScriptedChatModel, Structured
from teams.analyst.planning import KINDS, KindChoosingPlanner
from teams.analyst.tables import TableIndex, TableWorker
from teams.research.model_roles import ModelPlanner
from teams.research.schemas import PlanDraft, SubQuestion
from tests.conftest import SMALL_CORPUS, write_corpus

CITIES = """city,country,population,founded
Lyon,France,522250,43 BC
Porto,Portugal,231800,300 BC
Graz,Austria,291072,1128
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A corpus folder: the small text corpus and one CSV file."""
    root = tmp_path / "corpus"
    write_corpus(root, SMALL_CORPUS)
    (root / "cities.csv").write_text(CITIES)
    return root


def _context() -> NodeContext:
    return NodeContext(team="analyst", node="worker")


def test_a_row_is_found_by_a_cell_and_answers_the_column_asked(folder: Path) -> None:
    index = TableIndex.from_folder(folder)
    assert len(index) == 3
    [best, *_] = index.lookup("What is the population of Graz?")
    assert best.row.source == "corpus/cities.csv:4"
    assert best.row.render(best.wanted) == "city: Graz; population: 291072"
    assert best.score == 1.0
    assert index.lookup("How do workers retry transient errors?") == []


def test_other_delimiters_and_broken_files(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("name;born\nAda;1815\nAlan;1912\n")
    (tmp_path / "b.csv").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "c.csv").write_text("")
    (tmp_path / "d.csv").write_text('name,note\nEve,"an open quote\n')
    index = TableIndex.from_folder(tmp_path)
    [best] = index.lookup("When was Ada born?", k=1)
    assert best.row.render(best.wanted) == "name: Ada; born: 1815"
    assert best.row.source.endswith("/a.csv:2")
    assert TableIndex.from_folder(None).lookup("anything") == []


def test_the_table_worker_cites_rows_and_finds_nothing_elsewhere(folder: Path) -> None:
    worker = TableWorker(TableIndex.from_folder(folder))
    task = Task(id="q1", description="founded year of Porto", kind="table")
    result = worker.run(task, "", _context())
    assert result.status == "ok"
    assert result.evidence[0].text == "city: Porto; founded: 300 BC"
    assert result.evidence[0].source == "corpus/cities.csv:3"
    empty = worker.run(Task(id="q2", description="checkpoint encryption"), "", _context())
    assert empty.evidence == [] and empty.confidence == 0.0


def test_the_planner_gives_each_part_its_kind(folder: Path, small_corpus: Corpus) -> None:
    planner = KindChoosingPlanner(small_corpus, TableIndex.from_folder(folder))
    plan = planner.plan(
        {"question": "What is the population of Graz, and how do workers retry errors?"},
        _context(),
    )
    kinds = {task.description: task.kind for task in plan.tasks}
    assert kinds["What is the population of Graz"] == "table"
    assert kinds["how do workers retry errors"] == "search"
    assert planner.task_kinds == {"search", "table"}


def test_cadre_run_with_the_analyst_team_cites_text_and_table(folder: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "run",
            "What is the population of Graz, and how do workers retry transient errors?",
            "--team",
            "analyst",
            "--corpus",
            str(folder),
            "--home",
            str(tmp_path / "home"),
        ],
    )
    assert result.exit_code == 0, result.stderr
    assert "city: Graz; population: 291072 (`corpus/cities.csv:4`)" in result.stdout
    assert "`corpus/" in result.stdout.replace("`corpus/cities.csv:4`", "")  # a text passage


def test_the_model_planner_is_told_the_kinds_and_chooses() -> None:
    drafts = [
        SubQuestion(description="population of Graz", query="Graz population", kind="table"),
        SubQuestion(description="how retries work", query="retries", kind=None),
        SubQuestion(description="what", query="x", kind="sql"),
    ]
    model = ScriptedChatModel([Structured(PlanDraft(goal="g", sub_questions=drafts))])
    planner = ModelPlanner(model, kinds=KINDS)
    assert planner.task_kinds == {"search", "table"}
    plan = planner.plan({"question": "q"}, _context())
    assert [task.kind for task in plan.tasks] == ["table", "search", "sql"]  # sql fails later
    assert "- table: look up rows" in model.requests[0][0].text
