"""A long table is cut into chunks between its rows, each chunk after the first read under the
table's head (its ``lead``), so a row far down a table still states its values: Markdown, a
reStructuredText simple table, a grid drawn with box-drawing characters."""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.memory import Corpus, MiniLMEmbedder, SemanticStore, chunk_document
from framework.memory.corpus import ingest_corpus
from teams.language.tables import table_statements
from teams.research.offline import CorpusSearchWorker
from tests.conftest import write_corpus

_ROWS = [
    (f"setting_{n:02d}", f"--flag-{n:02d}", f"Sets the harbour lamp number {n}.") for n in range(40)
]


def _markdown() -> str:
    rows = "".join(f"| {a} | {b} | {c} |\n" for a, b, c in _ROWS)
    return f"| Setting | Flag | Purpose |\n|---|---|---|\n{rows}"


def _simple() -> str:
    border = f"{'=' * 12} {'=' * 10} {'=' * 40}\n"
    rows = "".join(f"{a:<12} {b:<10} {c}\n{'':<24}Read at start.\n" for a, b, c in _ROWS)
    return f"{border}{'Setting':<12} {'Flag':<10} Purpose\n{border.replace('=', '-')}{rows}{border}"


def _boxed() -> str:
    top = f"┏{'━' * 12}┳{'━' * 10}┳{'━' * 40}┓\n"
    rows = "".join(f"│ {a:<10} │ {b:<8} │ {c:<38} │\n" for a, b, c in _ROWS)
    return (
        f"{top}┃ {'Setting':<10} ┃ {'Flag':<8} ┃ {'Purpose':<38} ┃\n"
        f"┡{'━' * 12}╇{'━' * 10}╇{'━' * 40}┩\n{rows}└{'─' * 12}┴{'─' * 10}┴{'─' * 40}┘\n"
    )


@pytest.mark.parametrize("table", [_markdown(), _simple(), _boxed()], ids=["md", "rst", "box"])
def test_every_row_of_a_long_table_is_read_under_its_header(table: str) -> None:
    chunks = chunk_document("docs/options.rst", f"Options\n=======\n\n{table}")
    assert len(chunks) > 2 and all(chunk.lead for chunk in chunks[1:])
    stated = {}
    for chunk in chunks:
        for number, line in enumerate(table_statements(chunk.text, chunk.lead).split("\n")):
            if line.startswith("setting_") and " setting: flag --flag-" in line:
                stated[line.split()[0]] = (chunk.start_line + number, line)
    assert len(stated) == len(_ROWS), sorted(stated)
    line, said = stated["setting_37"]
    assert "flag --flag-37" in said and "harbour lamp number 37" in said
    assert "--flag-37 " in table.split("\n")[line - 4] + " "  # cited on the row's own line


def test_a_paragraph_that_is_no_table_is_cut_as_before() -> None:
    prose = " ".join(f"The lamp number {n} is lit at dusk." for n in range(60))
    chunks = chunk_document("docs/lamps.md", prose)
    assert len(chunks) > 1 and not any(chunk.lead for chunk in chunks)


def test_research_answers_from_a_row_far_down_a_long_table(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    root = write_corpus(tmp_path / "docs", {"options.rst": f"Options\n=======\n\n{_simple()}"})
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        asked = "Which flag sets the harbour lamp number 37?"
        task = Task(id="q0", description=asked, inputs={"query": asked})
        found = CorpusSearchWorker(Corpus(store)).run(task, asked, NodeContext(node="w", team="t"))
    first = found.evidence[0]
    assert "--flag-37" in first.text and first.source == "docs/options.rst:81", found.evidence
