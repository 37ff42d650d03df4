"""The hypothesis team's safety rule: no value is reported confirmed while retrieved evidence
about the same subject and attribute states another, unless a correction, a later date or a
majority of independent sources decides it, and the report says which. Values the readers
cannot compare leave the statement unresolved.

The rule is checked twice: behind a judge that confirms everything it reads, citing only its
own passage (so only the final check stands between it and the report), and with the offline
team itself on one corpus per kind of value that used to be read as agreement.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from bench._conflict_cases import score_conflict
from framework.engine.builder import compile_team
from framework.engine.runtime import NodeContext
from framework.evals.answers import section_lines
from framework.memory import Corpus, MiniLMEmbedder, ResearchMemory, SemanticStore, ingest_corpus
from teams.hypothesis import HypothesisRoles, build_hypothesis_team, offline_roles
from teams.hypothesis.evidence import run_evidence
from teams.hypothesis.state import HypothesisState
from teams.hypothesis.verdicts import Assessment, Judgment
from tests.conftest import write_corpus


class CredulousJudge:
    """Confirms every sentence the run found, each citing only its own passage: the worst
    judge, so only the final check stands between it and the report."""

    def __init__(self, memory: ResearchMemory) -> None:
        self.memory = memory

    def judge(self, state: HypothesisState, context: NodeContext) -> Judgment:
        known = {h.statement for h in (state.get("hypotheses") or {}).values()}
        return Judgment(
            assessments=tuple(
                Assessment(
                    statement=record.text,
                    status="confirmed",
                    confidence=0.9,
                    supporting=(record.id,),
                )
                for record in run_evidence(self.memory, state)
                if record.text not in known
            )
        )


@pytest.fixture
def run(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Any]:
    """Run a question over a corpus (name -> text); ``credulous`` swaps in the judge above.
    Returns the final state and the memory."""
    stores: list[SemanticStore] = []

    def go(
        files: Mapping[str, str], question: str, *, credulous: bool = False
    ) -> tuple[dict[str, Any], ResearchMemory]:
        root = write_corpus(tmp_path / f"docs{len(stores)}", files)
        store = SemanticStore(":memory:", embedder=embedder)
        stores.append(store)
        ingest_corpus(root, store)
        memory = ResearchMemory(store, scope=("safety",))
        roles = offline_roles(memory, Corpus(store))
        if credulous:
            roles = HypothesisRoles(
                memory=memory,
                supervisor=roles.supervisor,
                searcher=roles.searcher,
                judge=CredulousJudge(memory),
                resolver=roles.resolver,
                synthesizer=roles.synthesizer,
            )
        app = compile_team(build_hypothesis_team(roles), checkpointer=InMemorySaver())
        state = app.invoke({"question": question}, {"configurable": {"thread_id": "t"}})
        return state, memory

    yield go
    for store in stores:
        store.close()


def _section(report: str, title: str) -> list[str]:
    return [line for section, line in section_lines(report) if section == title]


def _one(text: str) -> str:
    return f"# Notes\n\n{text}\n"


DISAGREEING = {
    "fraction and percentage": (
        "Two thirds of the Brill marsh floods every winter.",
        "40% of the Brill marsh floods every winter.",
        "How much of the Brill marsh floods every winter?",
    ),
    "currency sign and word": (
        "A return ticket on the Sorn ferry costs $40.",
        "A return ticket on the Sorn ferry costs 55 dollars.",
        "How much does a return ticket on the Sorn ferry cost?",
    ),
    "two currencies": (
        "A family ticket to the Tarn museum costs £30.",
        "A family ticket to the Tarn museum costs €30.",
        "How much does a family ticket to the Tarn museum cost?",
    ),
    "ordinals": (
        "Ida Venn finished 3rd in the Kessel marathon.",
        "Ida Venn finished fifth in the Kessel marathon.",
        "Where did Ida Venn finish in the Kessel marathon?",
    ),
    "a word no list holds": (
        "The Dunn pier is built of teak.",
        "The Dunn pier is built of larch.",
        "What is the Dunn pier built of?",
    ),
    "extra clauses": (
        "Restored after the floods of 1968, the Merrow aqueduct carries the canal 38 metres "
        "above the valley floor.",
        "According to the engineers who surveyed it, the Merrow aqueduct carries the canal 45 "
        "metres above the valley, a height few visitors expect.",
        "How high above the valley does the Merrow aqueduct carry the canal?",
    ),
    "a range and a figure outside it": (
        "The Carn lake is 20-30 metres deep.",
        "The Carn lake is 45 metres deep.",
        "How deep is the Carn lake?",
    ),
    "figures the readers cannot compare": (
        "A night at the Kell hostel costs $40.",
        "A night at the Kell hostel costs 40 zł.",
        "How much does a night at the Kell hostel cost?",
    ),
}


@pytest.mark.parametrize("kind", DISAGREEING)
def test_a_value_is_never_confirmed_while_retrieved_evidence_states_another(
    run: Any, kind: str
) -> None:
    first, second, question = DISAGREEING[kind]
    state, memory = run({"a.md": _one(first), "b.md": _one(second)}, question, credulous=True)
    report = state["final_answer"]
    assert not _section(report, "findings"), report
    unresolved = "\n".join(_section(report, "unresolved"))
    assert first in unresolved and second in unresolved
    assert unresolved.count("Open conflict, not confirmed") == 2
    held = [h for h in state["hypotheses"].values() if h.statement in (first, second)]
    assert {memory.hypothesis(h.id).status for h in held} == {"validating"}


def test_a_table_row_is_evidence_the_check_reads(run: Any) -> None:
    files = {
        "a.md": "# Lighthouses\n\n| Lighthouse | Lamps | Fuel |\n|---|---|---|\n"
        "| Orrin | 6 | oil |\n| Brack | 4 | gas |\n",
        "b.md": _one("The Brack lighthouse has nine lamps."),
    }
    state, _ = run(files, "How many lamps does the Brack lighthouse have?", credulous=True)
    report = state["final_answer"]
    findings = "\n".join(_section(report, "findings"))
    assert "nine lamps" not in findings and "Brack lighthouse: 4 lamps" not in findings
    assert "b.md:3" in "\n".join(_section(report, "unresolved"))


DECIDED = {
    "majority": (
        {
            "a.md": _one("A season pass for the Tolby lido costs $120."),
            "b.md": _one("A season pass for the Tolby lido costs 150 dollars."),
            "c.md": _one("Season passes for the Tolby lido are sold for USD 150 each."),
        },
        "How much does a season pass for the Tolby lido cost?",
        ("A season pass for the Tolby lido costs 150 dollars.", "Season passes"),
        "a majority of independent sources (2 files against 1)",
    ),
    "later date": (
        {
            "a.md": "# Fares, 2012\n\nThe fare on the Lusk tram is 2 dollars.\n",
            "b.md": "# Fares, 2023\n\nThe fare on the Lusk tram is $3.50.\n",
        },
        "What is the fare on the Lusk tram?",
        ("The fare on the Lusk tram is $3.50.",),
        "the later source",
    ),
    "correction": (
        {
            "a.md": _one("The Corran lighthouse is 37 metres tall."),
            "b.md": _one(
                "The Corran lighthouse is 31 metres tall, not 37 metres as the guide says."
            ),
        },
        "How tall is the Corran lighthouse?",
        ("The Corran lighthouse is 31 metres tall, not 37 metres as the guide says.",),
        "the correction in",
    ),
}


@pytest.mark.parametrize("kind", DECIDED)
def test_a_value_decided_over_another_says_what_decided(run: Any, kind: str) -> None:
    files, question, kept, decided = DECIDED[kind]
    state, _ = run(files, question, credulous=True)
    report = state["final_answer"]
    findings = _section(report, "findings")
    assert findings and all(line.startswith(tuple(f"- {k}" for k in kept)) for line in findings)
    assert len(findings) == len(kept), report
    conflicts = "\n".join(_section(report, "conflicts"))
    assert f'state otherwise than "{kept[0]}"; decided by {decided}' in conflicts, report


def test_a_majority_does_not_decide_values_the_readers_cannot_compare(run: Any) -> None:
    files = {
        "a.md": _one("A night at the Kell hostel costs $40."),
        "b.md": _one("A night at the Kell hostel costs 40 zł."),
        "c.md": _one("A night at the Kell hostel costs 40 dollars."),
    }
    state, _ = run(files, "How much does a night at the Kell hostel cost?", credulous=True)
    assert not _section(state["final_answer"], "findings")


@pytest.mark.parametrize(
    ("first", "second", "question"),
    [
        (
            "The toll on the Brisk causeway is USD 4.",
            "Drivers pay a $4 toll to cross the Brisk causeway.",
            "What is the toll on the Brisk causeway?",
        ),
        (
            "About two thirds of the people on Osk island work in fishing.",
            "66% of the people on Osk island work in fishing.",
            "How many of the people on Osk island work in fishing?",
        ),
    ],
    ids=["amounts", "shares"],
)
def test_sources_that_agree_pass_the_check(
    run: Any, first: str, second: str, question: str
) -> None:
    state, _ = run({"a.md": _one(first), "b.md": _one(second)}, question, credulous=True)
    report = state["final_answer"]
    assert len(_section(report, "findings")) == 2, report
    assert "not confirmed" not in report and "## Conflicts" not in report


OFFLINE = {
    "fraction and percentage": (
        "A third of the Holt estate is farmland.",
        "30 percent of the Holt estate is farmland.",
        "How much of the Holt estate is farmland?",
    ),
    "currency code and word": (
        "A day pass for the Orme tram costs GBP 9.",
        "A day pass for the Orme tram costs 12 pounds.",
        "How much does a day pass for the Orme tram cost?",
    ),
    "ordinal in words and digits": (
        "The map room of the Rune library is on the fourth floor.",
        "The map room of the Rune library is on the 6th floor.",
        "Which floor is the map room of the Rune library on?",
    ),
    "a fuel against a material in its place": (
        "The Vell pump engine was fired by peat.",
        "The Vell pump engine was fired by wood.",
        "What was the Vell pump engine fired by?",
    ),
    "a relative date": (
        "The Kelso line closed in 1963. The Kelso station was demolished the following year.",
        "The Kelso station was demolished in 1970.",
        "When was the Kelso station demolished?",
    ),
    "a value in a relative clause": (
        "The Hartley mill, long since converted into flats, has a waterwheel 9 metres across.",
        "Visitors to the Hartley mill can still see its waterwheel, which is 6 metres across.",
        "How wide is the waterwheel of the Hartley mill?",
    ),
}


@pytest.mark.parametrize("kind", OFFLINE)
def test_the_offline_team_leaves_such_conflicts_open(run: Any, kind: str) -> None:
    first, second, question = OFFLINE[kind]
    state, _ = run({"a.md": _one(first), "b.md": _one(second)}, question)
    report = state["final_answer"]
    assert not _section(report, "findings"), report
    assert "Open conflict" in report


def test_the_bench_counts_a_disputed_value_confirmed_in_an_open_case_as_wrong() -> None:
    case = {"id": "c", "question": "q", "expect": "open", "value": ["six"], "wrong": ["nine"]}
    report = "# q\n\n## Findings\n\n- It has six lamps. (confirmed; `c/a.md:3`)\n"
    outcome = score_conflict(case, report)
    assert outcome.wrong_confirmed and not outcome.passed
