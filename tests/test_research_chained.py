"""A later part of a question that speaks of an earlier part's answer as "it" or "that X"
("Which argument sets the glaze, and in which release was it added?") is searched with that
answer named: the name the earlier part's best answer writes as code, with the noun it was asked
by. The asker's own case states no rival to the answer."""

from __future__ import annotations

from pathlib import Path

from framework.engine.records import Evidence, Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.memory import Corpus, MiniLMEmbedder, SemanticStore
from framework.memory.corpus import ingest_corpus
from teams.language.questions import (
    asked_thing,
    asks_one_value,
    chained_parts,
    premised_parts,
    split_question,
)
from teams.language.sentence_choice import named_in_code
from teams.research.offline import CorpusSearchWorker, SubQuestionPlanner
from teams.research.report import cited_report
from tests.conftest import write_corpus

_PAGES = {
    "guide.rst": (
        "Firing\n======\n\n"
        "The kiln fires each load in one long cycle.\n\n"
        "To slow the cooling of a load, pass the ``soak`` argument to ``fire()``; "
        "the kiln then holds its top heat before it cools.\n"
    ),
    "CHANGES.rst": (
        "Changes\n=======\n\n"
        "2.4.0\n-----\n\n- Faster start-up of the burner.\n- New colour table.\n\n"
        "2.3.0\n-----\n\n- Add a new ``soak`` optional argument to ``kiln.fire()``.\n"
        "- Fix the door latch.\n\n"
        "2.2.0\n-----\n\n- Add the ``vent`` argument to ``kiln.open()``.\n"
    ),
}


def test_parts_that_speak_of_an_earlier_answer_are_chained_to_it() -> None:
    for question in (
        "Which argument of fire() slows the cooling, and in which release was it added?",
        "What do I pass to fire() to slow the cooling, and which release added that option?",
    ):
        parts = split_question(question)
        assert chained_parts(parts) == {1: parts[0]}, question
    for question in (
        "Which burner lets the kiln hold its heat, and in which release did kilns get that "
        "ability?",  # "that X" after a verb of getting
        "What command cools the kiln, and since which release has that command existed?",
        "How do I slow the cooling of a load, and since which release can that option be set "
        "on the kiln?",  # what to do, then the option its answer names
        "How do I slow the cooling, and since which release has fire() had the option for that?",
    ):
        parts = split_question(question)
        assert chained_parts(parts) == {1: parts[0]}, question
    for question in (
        "Do kilns cool slowly, and what do they make simpler?",  # no name asked first
        "How hot does the kiln get, and since which release can that heat be set?",  # no name
        "Which port does the burner use, and which port does a vent take when it is shut?",
        "How hot does the kiln get, and how long does it take to cool?",  # a figure first
        "Which burner heats the kiln, and how does the fan that cools it work?",
    ):
        assert not chained_parts(split_question(question)), question


def test_the_answer_named_is_the_code_written_beside_the_noun_asked() -> None:
    asked = "Which argument of fire() slows the cooling"
    assert asked_thing(asked) == "argument"
    assert asked_thing("Which Loguru method does that job") == "method"
    assert asked_thing("What do I pass to fire()") == ""
    said = "Pass the ``cooling`` flag or the ``soak`` argument to ``fire()``."
    assert named_in_code(said, asked) == "soak"
    assert named_in_code("Use |patch| instead of |setFactory|.", "Which method does it") == "patch"
    assert named_in_code("Call ``fire()`` again.", asked) == ""  # only the question's words


def test_a_release_asked_of_it_is_found_by_the_name_the_first_part_gives(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    question = "Which argument of fire() slows the cooling, and in which release was it added?"
    later, found, unchained = _last_part_searched(tmp_path, embedder, question)
    assert later.inputs["antecedent"] == split_question(question)[0]
    best = found.evidence[0]
    assert "``soak`` optional argument" in best.text and "2.3.0" in best.text, best.text
    assert not any("soak" in item.text for item in unchained.evidence[:1])


def _last_part_searched(
    tmp_path: Path, embedder: MiniLMEmbedder, question: str
) -> tuple[Task, WorkerResult, WorkerResult]:
    """The question's last part as planned over :data:`_PAGES`, what a search of it finds,
    and what a search of its words alone finds."""
    root = write_corpus(tmp_path / "docs", _PAGES)
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        corpus = Corpus(store)
        plan = SubQuestionPlanner(corpus).plan(
            {"question": question}, NodeContext(node="p", team="t")
        )
        later = plan.tasks[-1]
        worker = CorpusSearchWorker(corpus)
        found = worker.run(later, question, NodeContext(node="w", team="t"))
        alone = Task(id="q9", description=later.description, inputs={"query": later.description})
        return later, found, worker.run(alone, question, NodeContext(node="w", team="t"))


def test_a_part_chained_to_a_part_about_the_askers_case_is_searched_with_both(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    question = (
        "My loads cool too fast. What argument slows it, and since which release has that "
        "argument existed?"
    )
    later, found, _ = _last_part_searched(tmp_path, embedder, question)
    assert later.inputs["antecedent"] == "What argument slows it (My loads cool too fast)"
    best = found.evidence[0]
    assert "``soak`` optional argument" in best.text and "2.3.0" in best.text, best.text


def test_the_askers_own_case_states_no_rival_to_the_answer() -> None:
    question = "I run the kiln in a shed. How long does it take to cool?"
    case = "I run the kiln in a shed"
    whole = [Evidence(source="a.md:3", text="The kiln takes 10 hours to cool.", score=0.8)]
    context = [
        Evidence(
            source="b.md:5", text="A shed kiln waits 30 hours before it is opened.", score=0.8
        ),
        Evidence(source="b.md:7", text="A shed keeps the kiln dry.", score=0.8),
    ]
    state = {
        "question": question,
        "tasks": {
            "q0": Task(id="q0", description=question),
            "q1": Task(id="q1", description=case),
        },
        "worker_results": {
            "q0": WorkerResult(task_id="q0", status="ok", evidence=whole, confidence=0.8),
            "q1": WorkerResult(task_id="q1", status="ok", evidence=context, confidence=0.8),
        },
    }
    report = cited_report(state)  # type: ignore[arg-type]
    assert "10 hours" in report and "keeps the kiln dry" in report
    assert "30 hours" not in report
    state["tasks"]["q1"] = Task(id="q1", description="How long does a shed kiln wait")
    assert "30 hours" in cited_report(state)  # type: ignore[arg-type]  # a part that asks
    state["tasks"]["q1"] = Task(id="q1", description=case)
    beside = Evidence(source="b.md:9", text="It takes 10 hours, or 30 hours in frost.", score=0.8)
    state["worker_results"]["q1"] = WorkerResult(
        task_id="q1", status="ok", evidence=[beside], confidence=0.8
    )
    assert "30 hours" not in cited_report(state)  # type: ignore[arg-type]  # beside the answer


def test_a_statement_found_for_the_case_and_the_question_stays_in_the_questions_section() -> None:
    question = "I run the kiln in a shed. How long does it take to cool?"
    shared = Evidence(source="b.md:5", text="A shed kiln takes 30 hours to cool.", score=0.8)
    first = Evidence(source="a.md:3", text="The kiln takes 10 hours to cool.", score=0.8)
    state = {
        "question": question,
        "tasks": {
            "q0": Task(id="q0", description=question),
            "q1": Task(id="q1", description="I run the kiln in a shed"),
        },
        "worker_results": {
            "q0": WorkerResult(task_id="q0", status="ok", evidence=[first, shared], confidence=0.8),
            "q1": WorkerResult(task_id="q1", status="ok", evidence=[shared], confidence=0.8),
        },
    }
    report = cited_report(state)  # type: ignore[arg-type]
    assert "30 hours" in report.split("### I run the kiln in a shed\n")[0]


def test_a_part_that_speaks_of_the_askers_own_thing_is_searched_with_it(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    question = "My soak argument seems to be refused by the kiln. In which release was it added?"
    parts = split_question(question)
    assert premised_parts(parts) == {1: parts[0]}
    assert not premised_parts(split_question("I run the kiln in a shed. How long does it take?"))
    assert not premised_parts(split_question("My kiln is new. Which burner heats a kiln?"))
    later, found, unpremised = _last_part_searched(tmp_path, embedder, question)
    assert later.inputs["premise"] == parts[0]
    best = found.evidence[0]
    assert "``soak`` optional argument" in best.text and "2.3.0" in best.text, best.text
    assert not any("soak" in item.text for item in unpremised.evidence[:1])


def test_the_whole_questions_statements_give_no_rival_to_a_parts_answer() -> None:
    question = "Since which release is glazing no longer built in, and what does the plugin add?"
    parts = split_question(question)
    whole = [
        Evidence(source="a.md:3", text="Before 0.61 glazing was built in.", score=0.8),
        Evidence(source="a.md:5", text="Before 0.28 glazing was the default.", score=0.8),
        Evidence(source="a.md:7", text="The plugin adds a hash to the pot.", score=0.8),
    ]
    found = [Evidence(source="c.md:9", text="0.61: Glazing moved to a plugin.", score=0.8)]
    state = {
        "question": question,
        "tasks": {
            "q0": Task(id="q0", description=question),
            "q1": Task(id="q1", description=parts[0]),
            "q2": Task(id="q2", description=parts[1]),
        },
        "worker_results": {
            "q0": WorkerResult(task_id="q0", status="ok", evidence=whole, confidence=0.8),
            "q1": WorkerResult(task_id="q1", status="ok", evidence=found, confidence=0.8),
            "q2": WorkerResult(task_id="q2", status="ok", evidence=whole[2:], confidence=0.8),
        },
    }
    report = cited_report(state)  # type: ignore[arg-type]
    assert "0.61 glazing" in report and "hash to the pot" in report, report
    assert "0.28" not in report, report
    state["worker_results"]["q1"] = WorkerResult(task_id="q1", status="ok", confidence=0.0)
    assert "0.28" in cited_report(state)  # type: ignore[arg-type]  # no answer to hold it to
    missed = [Evidence(source="c.md:4", text="0.50: A new glaze table.", score=0.8)]
    state["worker_results"]["q1"] = WorkerResult(
        task_id="q1", status="ok", evidence=missed, confidence=0.8
    )
    report = cited_report(state)  # type: ignore[arg-type]  # the part alone found another
    assert "0.61 glazing" in report and "0.28" in report, report


def test_a_part_asking_what_does_that_is_searched_with_the_wish_before_it() -> None:
    parts = split_question(
        "I want one Kiln process to serve a tide app under /tides and a file app under /. "
        "Which Kiln middleware does that, and since which release has Kiln included it?"
    )
    assert len(parts) == 3
    assert premised_parts(parts) == {1: parts[0]}
    assert chained_parts(parts) == {2: parts[1]}  # "included it": the middleware


def test_a_statement_of_what_happened_before_one_question_leaves_it_one_value() -> None:
    asked = "Right after upgrading Kiln, importing it failed. Which Kiln release fixed that?"
    assert asks_one_value(asked) == "version"
    assert asks_one_value("Which Kiln release added soak, and which release removed it?") == ""
