"""The offline research team over a real corpus, with the packaged embedding model."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from framework.builder import compile_team
from framework.memory import Corpus, MiniLMEmbedder, SemanticStore, ingest_corpus
from teams.research import build_research_team, offline_roles
from teams.research.text import best_sentences, sentences, split_question
from tests.conftest import write_corpus

CORPUS = {
    "cats.md": "# Cats\n\nCats sleep for around fifteen hours a day.\n"
    "They hunt at dawn and dusk.\n\n## Diet\n\nCats are obligate carnivores and need taurine.\n",
    "stars.md": "# Stars\n\nA star is a ball of plasma held together by its own gravity.\n"
    "The Sun is the nearest star to Earth.\n",
    "bread.txt": "Bread dough rises because yeast ferments sugars and releases carbon dioxide.\n",
}
CITATION = re.compile(r"\(`(docs/[\w.]+:\d+)`\)$")


@pytest.fixture
def corpus(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Corpus]:
    root = write_corpus(tmp_path / "docs", CORPUS)
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        yield Corpus(store)


def _app(corpus: Corpus, **overrides: object) -> object:
    roles = offline_roles(corpus, corpus.store)
    return compile_team(build_research_team(roles, **overrides))  # type: ignore[arg-type]


def _claims(report: str) -> list[str]:
    section = report.split("## Findings", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("- ")]


def _line_of(source: str, root_text: dict[str, str]) -> str:
    path, line = source.removeprefix("docs/").rsplit(":", 1)
    return root_text[path].splitlines()[int(line) - 1]


def test_offline_team_answers_with_a_citation_on_every_claim(corpus: Corpus) -> None:
    app = _app(corpus)
    state = app.invoke(  # type: ignore[attr-defined]
        {"question": "How long do cats sleep, and what do cats eat?"},
        {"configurable": {"thread_id": "t1"}},
    )
    assert set(state["tasks"]) == {"q0", "q1", "q2"}
    assert set(state["worker_results"]) == {"q0", "q1", "q2"}
    claims = _claims(state["final_answer"])
    assert claims, state["final_answer"]
    for claim in claims:
        match = CITATION.search(claim)
        assert match, f"uncited claim: {claim}"
        words = claim[2:].split(" (`")[0].rstrip(".").split()[:3]
        assert " ".join(words) in _line_of(match.group(1), CORPUS), claim
    assert "fifteen hours" in state["final_answer"]
    assert "taurine" in state["final_answer"]


def test_curator_keeps_facts_with_provenance_in_the_store(corpus: Corpus) -> None:
    app = _app(corpus)
    state = app.invoke(  # type: ignore[attr-defined]
        {"question": "How long do cats sleep?"}, {"configurable": {"thread_id": "facts"}}
    )
    facts = state["memory_writes"]
    assert facts
    assert all(fact.provenance.thread_id == "facts" for fact in facts)
    assert all(re.fullmatch(r"docs/[\w.]+:\d+", fact.provenance.source or "") for fact in facts)
    assert corpus.store.count(("facts",)) == len(facts)
    hits = corpus.store.search(("facts",), "cat sleep duration", k=1)
    assert hits and "fifteen hours" in hits[0].text


async def test_offline_team_runs_async(corpus: Corpus) -> None:
    app = _app(corpus)
    state = await app.ainvoke({"question": "What is a star made of?"})  # type: ignore[attr-defined]
    assert "plasma" in state["final_answer"]
    assert all(r.status == "ok" for r in state["worker_results"].values())


def test_low_coverage_is_retried_with_reformulated_queries(corpus: Corpus) -> None:
    app = _app(corpus, stop_rules=())
    state = app.invoke(  # type: ignore[attr-defined]
        {"question": "What is the airspeed velocity of an unladen swallow?"}
    )
    task = state["tasks"]["q0"]
    assert task.attempt == 2  # two reformulations, then the reviewer gives up
    assert task.inputs["query"] != "What is the airspeed velocity of an unladen swallow?"
    assert state["metrics"]["dispatches"] == 3
    assert "No passage answers" in state["final_answer"]


def test_empty_corpus_answers_directly(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    with SemanticStore(":memory:", embedder=embedder) as store:
        state = _app(Corpus(store)).invoke({"question": "Anything?"})  # type: ignore[attr-defined]
    assert state["control_signal"] == "answer"
    assert not state.get("worker_results")
    assert "corpus is empty" in state["final_answer"]


def test_split_question_finds_sub_questions() -> None:
    assert split_question("How long do cats sleep, and what do cats eat?") == [
        "How long do cats sleep",
        "what do cats eat",
    ]
    assert split_question("What is a star?") == []
    assert split_question("How are keys stored and how are keys rotated?") == [
        "How are keys stored",
        "how are keys rotated",
    ]


def test_best_sentences_report_their_line_offsets() -> None:
    text = "# Title\nIntro line here.\n\n- a bullet about yeast and bread\n\nLast words now."
    assert best_sentences(text, "yeast bread", limit=1) == [(3, "a bullet about yeast and bread")]


def test_code_and_tables_are_not_cited_as_sentences() -> None:
    text = (
        "Workers retry transient errors.\n\n```sh\n$ cadre retry workers now. Then more.\n```\n\n"
        "| col | Workers retry in tables. Really |\n|---|---|\n"
    )
    assert [s for _, s in sentences(text)] == ["Workers retry transient errors."]


def test_code_chunks_are_marked_and_never_cited() -> None:
    from framework.memory import Passage, chunk_document
    from teams.research.offline import cited_sentence

    fence = "```sh\n" + "\n".join(f"$ cadre run step {i}. It prints output." for i in range(60))
    text = f"# Guide\n\nWorkers retry transient errors.\n\n{fence}\n```\n"
    chunks = chunk_document("docs/guide.md", text, max_chars=300)
    assert not chunks[0].code and len(chunks) > 3
    assert all(c.code for c in chunks[1:])  # every piece of the long fence, opener or not
    code = chunks[2]
    passage = Passage(
        source=f"docs/guide.md:{code.start_line}",
        path="docs/guide.md",
        line=code.start_line,
        heading=code.heading,
        text=code.text,
        score=0.9,
        code=True,
    )
    assert cited_sentence(passage, "cadre run step") is None
