"""A question's rare word finds the passages that hold it, though a search by meaning may
rank them nowhere (a code name, a project's name, a term of a glossary)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.memory import Corpus, MiniLMEmbedder, SemanticStore
from framework.memory._lexicon import Lexicon
from framework.memory.corpus import ingest_corpus
from teams.language.words import keywords, stem
from teams.research.offline import CorpusSearchWorker
from tests.conftest import write_corpus

GLOSSARY = "# Glossary\n\ncipater\n    Release 3.1 of the scheduler, named after a song.\n"
RELEASES = "".join(
    f"# Release {n}.0\n\nRelease {n}.0 of the scheduler fixes the release notes of the "
    f"scheduler and its {n} workers.\n\n"
    for n in range(1, 6)
)


@contextmanager
def _store(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[tuple[Path, SemanticStore]]:
    """The glossary and release notes ingested into a new store, and their folder."""
    root = write_corpus(tmp_path / "docs", {"glossary.md": GLOSSARY, "releases.md": RELEASES})
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        yield root, store


def test_a_lexicon_finds_the_passages_that_hold_a_word_in_any_form() -> None:
    lexicon = Lexicon([("a", "Workers retry."), ("b", "A worker retried once.")], stem)
    assert lexicon.holders("worker") == {"a", "b"}
    assert lexicon.holders("Retrying") == {"a", "b"}
    assert lexicon.holders("once") == {"b"}
    assert lexicon.holders("never") == frozenset()


def test_only_words_few_passages_hold_point_to_passages(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    with _store(tmp_path, embedder) as (root, store):
        corpus = Corpus(store)
        question = "Which release of the scheduler went by the code name cipater?"
        found = corpus.rare_holders(question, keywords(question), form=stem)
        assert [passage.path for passage in found] == ["docs/glossary.md"]
        common = "Which release of the scheduler fixes the notes?"
        assert corpus.rare_holders(common, keywords(common), form=stem) == []
        assert len(corpus.rare_holders(common, ["fixes"], form=stem, most=5)) == 5
        (root / "more.md").write_text("# More\n\nThe cipater release was the last.\n")
        ingest_corpus(root, store)  # the corpus grew: its lexicon is read again
        again = corpus.rare_holders(question, ["cipater"], form=stem)
        assert {passage.path for passage in again} == {"docs/glossary.md", "docs/more.md"}
        (root / "more.md").write_text("# More\n\nThe tarnwick release was the last.\n")
        ingest_corpus(root, store)  # as many passages, another text: read again too
        assert [p.path for p in corpus.rare_holders(question, ["cipater"], form=stem)] == [
            "docs/glossary.md"
        ]
        assert [p.path for p in corpus.rare_holders(question, ["tarnwick"], form=stem)] == [
            "docs/more.md"
        ]


def test_a_rare_name_is_cited_where_no_search_by_meaning_reaches(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    with _store(tmp_path, embedder) as (_, store):
        question = "Which release went by the code name cipater?"
        task = Task(id="q0", description=question, inputs={"query": question})
        worker = CorpusSearchWorker(Corpus(store), min_score=0.99)  # meaning finds nothing
        found = worker.run(task, question, NodeContext(node="w", team="t"))
    assert found.evidence[0].source.startswith("docs/glossary.md")
    assert "3.1" in found.evidence[0].text
