"""A changelog that changes a figure again: a question of the value in force, naming no release,
is answered by the newest release's entry, not the older entry its words match better; a
question that names a release, asks when, or asks what the value was, keeps the older one."""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.memory import Corpus, MiniLMEmbedder, SemanticStore
from framework.memory.corpus import Passage, ingest_corpus
from teams.research.offline import CorpusSearchWorker
from teams.research.releases import entry_release, release_of
from tests.conftest import write_corpus

_CHANGES = (
    "Changes\n=======\n\n"
    "Version 4.1.0\n-------------\n\n"
    "-   Raise the default number of glaze coats to 9 for stoneware.\n"
    "-   The door latch opens from inside.\n\n"
    "Version 3.0.0\n-------------\n\n"
    "-   Drop support for wood-fired kilns.\n"
    "-   Faster start-up of the burner.\n\n"
    "Version 2.0.0\n-------------\n\n"
    "-   In ``kiln.glaze()``, stoneware gets 5 glaze coats by default, increased from 3.\n"
    "-   New colour table.\n"
)
_SECTIONED = (
    "# Changelog\n\n"
    "## 4.1.0 -- 2025-03-02\n\n### Features\n\n"
    "- Raise the default number of glaze coats to 9 for stoneware.\n\n"
    "### Fixes\n\n- The door latch opens from inside.\n\n"
    "## 2.0.0 -- 2023-01-10\n\n### Features\n\n"
    "- In `kiln.glaze()`, stoneware gets 5 glaze coats by default, increased from 3.\n"
    "- New colour table.\n"
)
"""The same changes with each release's entry in sections under its heading."""
_GUIDE = "Glazing\n=======\n\nThe kiln glazes pots of stoneware and of porcelain.\n"


def _answer(
    tmp_path: Path, embedder: MiniLMEmbedder, question: str, changes: str = _CHANGES
) -> str:
    tmp_path.mkdir(exist_ok=True)
    name = "CHANGES.rst" if changes is _CHANGES else "CHANGELOG.md"
    root = write_corpus(tmp_path / "docs", {name: changes, "glazing.rst": _GUIDE})
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        task = Task(id="q1", description=question, inputs={"query": question})
        found = CorpusSearchWorker(Corpus(store)).run(
            task, question, NodeContext(node="w", team="t")
        )
    return " | ".join(item.text for item in found.evidence)


def test_a_release_heading_names_its_release() -> None:
    assert release_of("Version 2.0.0") == (2, 0, 0)
    assert release_of("3.3.0 (2024-10-24)") == (3, 3, 0)
    assert release_of("v1.10.5") == (1, 10, 5)
    assert release_of("Glazing") is None
    assert release_of("Python 3.12 support") is None


def test_a_section_of_a_release_entry_belongs_to_the_release_above_it() -> None:
    def passage(heading: str, outline: str) -> Passage:
        return Passage(
            source="c.md:5",
            path="c.md",
            line=5,
            heading=heading,
            text="- A change.",
            score=1.0,
            outline=outline,
        )

    assert entry_release(passage("Features", "Changelog > 4.1.0 -- 2025-03-02")) == (4, 1, 0)
    assert entry_release(passage("Version 2.0.0", "Changes")) == (2, 0, 0)
    assert entry_release(passage("Features", "Changelog")) is None


@pytest.mark.parametrize("changes", [_CHANGES, _SECTIONED], ids=["headed", "sectioned"])
def test_the_value_in_force_is_the_newest_entry_that_changes_it(
    tmp_path: Path, embedder: MiniLMEmbedder, changes: str
) -> None:
    said = _answer(
        tmp_path,
        embedder,
        "How many glaze coats does kiln.glaze() give stoneware by default?",
        changes,
    )
    assert "9" in said, said
    assert "5 glaze coats" not in said, said


def test_a_question_of_a_named_release_or_of_the_former_value_keeps_its_entry(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    named = _answer(
        tmp_path, embedder, "How many glaze coats did kiln.glaze() give stoneware in 2.0.0?"
    )
    assert "5 glaze coats" in named, named
    before = _answer(
        tmp_path / "b", embedder, "How many glaze coats did kiln.glaze() give stoneware before?"
    )
    assert "5 glaze coats" in before, before


def test_a_version_of_the_corpus_own_product_points_to_its_bare_release_headings(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    changes = (
        "Changelog\n=========\n\n"
        "- :release:`3.0.0 <2026-04-05>`\n"
        "- :support:`-` Dropped support for Python versions <3.9. Kiln now uses ``pyproject``.\n"
        "- :feature:`-` Kiln reports the burner's state.\n"
        "- :release:`2.0.0 <2023-01-16>`\n"
        "- :support:`-` Kiln no longer runs on old interpreters: all Python versions less than "
        "3.6 are gone, including Python 2.\n"
    )
    tmp_path.mkdir(exist_ok=True)
    pages = {
        "changelog.rst": changes,
        "glazing.rst": _GUIDE,
        "kiln.rst": "Kiln\n====\n\nKiln fires pots.\n",
    }
    root = write_corpus(tmp_path / "docs", pages)
    question = (
        "I'm stuck on an old interpreter. What is the oldest Python version Kiln 3.0 runs on?"
    )
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        task = Task(id="q1", description=question, inputs={"query": question})
        found = CorpusSearchWorker(Corpus(store)).run(
            task, question, NodeContext(node="w", team="t")
        )
    stated = [item.text for item in found.evidence if not item.disputed]
    assert any("<3.9" in text for text in stated), stated
    assert not any("3.6" in text for text in stated), stated
