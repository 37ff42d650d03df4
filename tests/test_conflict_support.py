"""What supports a figure: a sentence about the same thing whose figures of the same measure
all differ ("is estimated at £2,000-£3,000" beside "sold for £4,800") does not; a sentence that
gives no figure ("We asked readers to guess how many steps it has.") is no answer to a
question that asks for one."""

from __future__ import annotations

from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver

from framework.engine.builder import compile_team
from framework.memory import Corpus, MiniLMEmbedder, ResearchMemory, SemanticStore
from framework.memory.corpus import ingest_corpus
from teams.hypothesis import build_hypothesis_team, offline_roles
from teams.hypothesis.judging import _other_figures
from tests.conftest import write_corpus


def _findings(
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    pages: dict[str, str],
    asked: str,
    section: str = "Findings",
) -> str:
    """The section ``section`` of the conflicts team's answer to ``asked`` over ``pages``."""
    tmp_path.mkdir(exist_ok=True)
    corpus = write_corpus(tmp_path / "docs", pages)
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(corpus, store)
        roles = offline_roles(ResearchMemory(store, scope=("test",)), Corpus(store))
        app = compile_team(build_hypothesis_team(roles), checkpointer=InMemorySaver())
        state = app.invoke({"question": asked}, {"configurable": {"thread_id": "t1"}})
    answer = str(state["final_answer"])
    return answer.partition(f"## {section}")[2].split("##", maxsplit=1)[0]


def test_figures_of_the_same_measure_that_all_differ_support_nothing() -> None:
    sold = "Lot 7, the Orme clock, sold for a hammer price of £4,800."
    assert _other_figures(sold, "Lot 7, the Orme clock, is estimated at £2,000–£3,000.")
    assert not _other_figures(sold, "Lot 7, the Orme clock, fetched £4,800 in March.")
    assert not _other_figures(sold, "Lot 7, the Orme clock, was made in 1790.")  # a year


def test_a_guess_asked_of_readers_is_no_answer_and_the_estimate_no_support(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    pages = {
        "poll.md": "# Readers' poll: how many steps?\n\nWe asked readers to guess how many steps "
        "the Skell lighthouse has. The most popular guess was 300 steps.\n",
        "guide.md": "# The Skell lighthouse\n\nThe Skell lighthouse has 247 steps.\n",
    }
    findings = _findings(
        tmp_path, embedder, pages, "How many steps does the Skell lighthouse have?"
    )
    assert "247 steps" in findings and "guess" not in findings, findings
    sale = {
        "results.md": "# Results\n\nLot 7, the Orme clock, sold for a hammer price of £4,800.\n",
        "catalogue.md": "# Catalogue\n\nLot 7, the Orme clock, is estimated at £2,000–£3,000.\n",
    }
    said = _findings(tmp_path / "sale", embedder, sale, "How much did the Orme clock sell for?")
    assert "£4,800" in said and "catalogue.md" not in said, said
