"""The model-backed research team end to end, on a scripted chat model and a real corpus."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from framework.engine.builder import compile_team
from framework.engine.records import Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState
from framework.memory import Corpus
from framework.runs.teams import TeamSetup
from framework.testing import CallTools, Fail, Reply, ScriptedChatModel, Step, Structured
from teams.meta.app import meta_coordinator
from teams.meta.assessors import CitationCompliance
from teams.meta.model_assessors import FindingDraft, FindingsDraft
from teams.research.facts import FACTS_NAMESPACE
from teams.research.graph import build_research_team, model_roles
from teams.research.model_roles import ModelAggregator, ModelReviewer, build_model_roles
from teams.research.model_worker import ModelWorker
from teams.research.schemas import (
    ClaimDraft,
    FactDraft,
    FactsDraft,
    PlanDraft,
    ReportDraft,
    RetryDraft,
    ReviewVerdictDraft,
    SectionDraft,
    SubQuestion,
)

CHECKPOINTS = "docs/checkpoints.md:3"
RETRIES = "docs/retries.md:3"
REVIEW = "docs/review.md:3"
QUESTION = "How are checkpoints protected, and how do workers handle timeouts?"
CONTEXT = NodeContext(node="test", team="research", thread_id="t-unit")

Mode = Literal["sync", "async"]


async def run(model: ScriptedChatModel, corpus: Corpus, mode: Mode, **inputs: Any) -> Any:
    """Run the model-backed research team to its end on a checkpointed thread."""
    graph = compile_team(
        build_research_team(build_model_roles(model, corpus, corpus.store)),
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": "t1"}}
    state = {"question": QUESTION, **inputs}
    if mode == "async":
        return await graph.ainvoke(state, config)
    return graph.invoke(state, config)


def search(task_id: str, query: str, answer: str) -> list[Step]:
    """A worker's two steps: search ``query``, then answer; matched to the task and its query."""
    return [
        CallTools([("search_corpus", {"query": query})], match=f"Task {task_id}:"),
        Reply(answer, match=f"Results for {query!r}"),
    ]


def human_text(request: list[BaseMessage]) -> str:
    """The text of a request's last message."""
    return request[-1].text


def plan(*parts: tuple[str, str], ids: tuple[str | None, ...] = ()) -> Structured:
    """A planner step with sub-questions ``(description, query)``."""
    subs = [
        SubQuestion(id=ids[n] if n < len(ids) else None, description=d, query=q)
        for n, (d, q) in enumerate(parts)
    ]
    return Structured(PlanDraft(goal=QUESTION, sub_questions=subs, rationale="one search per part"))


def verdict(decision: Any, confidence: float, *reasons: str) -> Structured:
    """A reviewer step."""
    draft = ReviewVerdictDraft(decision=decision, confidence=confidence, reasons=list(reasons))
    return Structured(draft, match="Consolidated findings:")


def report(*claims: tuple[str, str, str]) -> Structured:
    """A formatter step with claims ``(heading, text, source)``, one section per heading."""
    sections: dict[str, list[ClaimDraft]] = {}
    for heading, text, source in claims:
        sections.setdefault(heading, []).append(ClaimDraft(text=text, source=source))
    drafts = [SectionDraft(heading=h, claims=c) for h, c in sections.items()]
    return Structured(ReportDraft(sections=drafts), match="Evidence you may cite:")


def test_the_corpus_cites_line_three_of_each_document(small_corpus: Corpus) -> None:
    assert small_corpus.search("checkpoint encryption")[0].source == CHECKPOINTS
    assert small_corpus.search("worker timeouts retry")[0].source == RETRIES


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_plan_search_review_finish_with_cited_answer(
    small_corpus: Corpus, mode: Mode
) -> None:
    model = ScriptedChatModel(
        [
            plan(
                ("How are checkpoints protected?", "checkpoint encryption"),
                ("How do workers handle timeouts?", "worker timeouts retry"),
            ),
            *search("q0", "checkpoint encryption", f"Encrypted with AES ({CHECKPOINTS})."),
            *search("q1", "worker timeouts retry", f"Retried three times ({RETRIES})."),
            Reply(
                f"Checkpoints use AES ({CHECKPOINTS}); timeouts retry ({RETRIES}).",
                match="Findings:",
            ),
            verdict("finish", 0.9, "both parts are answered"),
            Structured(
                FactsDraft(
                    facts=[
                        FactDraft(
                            subject="checkpoints",
                            predicate="are encrypted with",
                            object="AES",
                            confidence=1.4,
                            source=CHECKPOINTS,
                        ),
                        FactDraft(
                            subject="x",
                            predicate="is",
                            object="invented",
                            confidence=0.9,
                            source="nowhere.md:1",
                        ),
                    ]
                ),
                match="Evidence:",
            ),
            report(
                ("Storage", "Checkpoints are encrypted at rest with AES.", CHECKPOINTS),
                ("Storage", "Checkpoints are stored on the moon.", "nowhere.md:9"),
                ("Retries", "Timeouts are retried three times.", RETRIES),
            ),
        ]
    )

    final = await run(model, small_corpus, mode)

    model.assert_complete()
    results: dict[str, WorkerResult] = final["worker_results"]
    assert {r.status for r in results.values()} == {"ok"}
    assert results["q0"].output == f"Encrypted with AES ({CHECKPOINTS})."
    assert results["q0"].evidence[0].source == CHECKPOINTS
    assert results["q0"].confidence == pytest.approx(results["q0"].evidence[0].score)
    assert results["q1"].evidence[0].source == RETRIES
    answer = final["final_answer"]
    assert f"- Checkpoints are encrypted at rest with AES. (`{CHECKPOINTS}`)" in answer
    assert f"- Timeouts are retried three times. (`{RETRIES}`)" in answer
    assert "moon" not in answer
    assert "1 claim(s) left out" in answer
    findings = CitationCompliance().assess(final, CONTEXT)
    assert [f.severity for f in findings] == ["info"], findings
    [fact] = final["memory_writes"]
    assert (fact.object, fact.confidence) == ("AES", 1.0)
    assert fact.provenance.model_dump(include={"thread_id", "task_id", "source"}) == {
        "thread_id": "t1",
        "task_id": "q0",
        "source": CHECKPOINTS,
    }
    assert small_corpus.store.keys(FACTS_NAMESPACE) == [fact.id]
    reviewer_request = human_text(model.requests[6])
    assert "Changed this round: q0, q1" in reviewer_request
    assert "round 1: 2 tasks ok" in reviewer_request


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_revise_plan_replans_from_the_summary_not_the_log(
    small_corpus: Corpus, mode: Mode
) -> None:
    reason = "the plan searched the weather; search how plans are reviewed"
    model = ScriptedChatModel(
        [
            plan(("What is the weather?", "weather forecast rain"), ids=("w",)),
            *search("w", "weather forecast rain", "Nothing relevant was found."),
            Reply("Nothing relevant.", match="Findings:"),
            verdict("revise_plan", 0.1, reason),
            Structured(
                PlanDraft(
                    goal=QUESTION,
                    sub_questions=[
                        SubQuestion(
                            description="Who approves plans?", query="human reviewer approves plan"
                        )
                    ],
                ),
                match="The reviewer asked for a new plan because:",
            ),
            *search("q0", "human reviewer approves plan", f"A human approves ({REVIEW})."),
            Reply(f"A human reviewer approves plans ({REVIEW}).", match="Findings:"),
            verdict("finish", 0.9, "answered"),
            Structured(FactsDraft(facts=[]), match="Evidence:"),
            report(("Review", "A human reviewer approves or rejects the plan.", REVIEW)),
        ]
    )

    final = await run(model, small_corpus, mode)

    model.assert_complete()
    replan = model.requests[5]
    assert len(replan) == 2  # the system prompt and one request: no message log
    text = human_text(replan)
    assert f"- {reason}" in text
    assert "Progress so far:\nround 1: 1 tasks ok" in text
    assert "Nothing relevant" not in text  # worker outputs stay out; the summary says enough
    assert list(final["tasks"]) == ["q0"]
    assert final["iteration"] == 2
    assert f"(`{REVIEW}`)" in final["final_answer"]
    assert final["memory_writes"] == []


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_failing_worker_model_fails_its_task_only(small_corpus: Corpus, mode: Mode) -> None:
    model = ScriptedChatModel(
        [
            plan(
                ("How are checkpoints protected?", "checkpoint encryption"),
                ("Who approves plans?", "human reviewer approves plan"),
                ("How do workers handle timeouts?", "worker timeouts retry"),
            ),
            *search("q0", "checkpoint encryption", f"AES ({CHECKPOINTS})."),
            Fail(RuntimeError("model unavailable"), match="Task q1:"),
            *search("q2", "worker timeouts retry", f"Three retries ({RETRIES})."),
            Reply("Two of three parts answered.", match="Findings:"),
            verdict("finish", 0.6, "one search failed; enough to answer"),
            Structured(FactsDraft(facts=[]), match="Evidence:"),
            report(("Storage", "Checkpoints are encrypted with AES.", CHECKPOINTS)),
        ]
    )

    final = await run(model, small_corpus, mode)

    model.assert_complete()
    results = final["worker_results"]
    assert results["q1"].status == "failed"
    assert results["q1"].error == "RuntimeError: model unavailable"
    assert results["q0"].status == results["q2"].status == "ok"
    assert results["q2"].evidence[0].source == RETRIES
    assert final["tasks"]["q1"].status == "failed"
    assert (
        "> Search failed: Who approves plans?: RuntimeError: model unavailable"
        in (final["final_answer"])
    )
    assert [f.severity for f in CitationCompliance().assess(final, CONTEXT)] == ["info"]


async def test_a_direct_answer_skips_the_workers(small_corpus: Corpus) -> None:
    draft = PlanDraft(goal="greet", direct_answer="Hello! Ask me about the corpus.")
    model = ScriptedChatModel([Structured(draft)])

    final = await run(model, small_corpus, "sync")

    model.assert_complete()
    assert final["final_answer"] == f"# {QUESTION}\n\nHello! Ask me about the corpus.\n"
    assert final.get("worker_results", {}) == {}


async def test_worker_out_of_steps_fails_saying_so_and_keeps_what_it_found(
    small_corpus: Corpus,
) -> None:
    model = ScriptedChatModel(
        [
            CallTools([("search_corpus", {"query": "checkpoint encryption"})]),
            CallTools([("search_corpus", {"query": "encrypted at rest"})]),
        ]
    )
    worker = ModelWorker(model, small_corpus, max_steps=2)
    task = Task(id="q0", description="checkpoints", inputs={"query": "checkpoint encryption"})

    result = await worker.arun(task, QUESTION, CONTEXT)

    model.assert_complete()
    assert result.status == "failed"  # says so, keeping what it found
    assert result.error is not None
    assert result.error.startswith("no final answer after 2 model steps (")
    assert result.evidence[0].source == CHECKPOINTS
    assert len({e.source for e in result.evidence}) == len(result.evidence)  # best per source
    assert result.confidence == pytest.approx(result.evidence[0].score)


class ToolBlindModel(FakeMessagesListChatModel):
    """Answers from its list whatever tools are bound, so it can call a tool that is not."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolBlindModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def test_worker_answers_an_unknown_tool_with_an_error(small_corpus: Corpus) -> None:
    browse = {"name": "browse", "args": {"url": "https://example.com"}, "id": "c1"}
    model = ToolBlindModel(responses=[AIMessage("", tool_calls=[browse]), AIMessage("none")])
    task = Task(id="q0", description="checkpoints", inputs={"query": "checkpoints"})

    result = ModelWorker(model, small_corpus).run(task, QUESTION, CONTEXT)

    assert (result.status, result.output, result.evidence, result.confidence) == (
        "ok",
        "none",
        [],
        0.0,
    )
    reply = model.seen[-1][-1]
    assert isinstance(reply, ToolMessage)
    assert (reply.status, reply.tool_call_id) == ("error", "c1")
    assert reply.text == "unknown tool 'browse': the only tool is search_corpus"


def test_the_aggregator_reuses_the_summary_of_an_unchanged_round() -> None:
    model = ScriptedChatModel([Reply("summary one")])
    task = Task(id="q0", description="d", status="done")
    state: TeamState = {
        "question": "q",
        "tasks": {"q0": task},
        "worker_results": {"q0": WorkerResult(task_id="q0", status="ok", output="o")},
    }
    aggregator = ModelAggregator(model)

    first = aggregator.consolidate(state, CONTEXT)
    again: TeamState = {**state}  # an equal state, not the same object
    second = aggregator.consolidate(again, CONTEXT)

    assert first == second == "summary one"
    assert len(model.requests) == 1


def test_the_reviewer_gives_new_tasks_free_ids_and_retries_new_queries() -> None:
    draft = ReviewVerdictDraft(
        decision="retry_workers",
        confidence=-0.5,
        reasons=["q1 is weak"],
        retry=[RetryDraft(task_id="q1", query="better query"), RetryDraft(task_id="q0")],
        new_tasks=[
            SubQuestion(description="new one", query="n1"),
            SubQuestion(id="q0", description="clashes", query="n2"),
            SubQuestion(description=" ", query=""),
        ],
    )
    model = ScriptedChatModel([Structured(draft)])
    tasks = {tid: Task(id=tid, description=tid, status="done") for tid in ("q0", "q1")}

    verdict = ModelReviewer(model).review({"question": "q", "tasks": tasks}, CONTEXT)

    assert verdict.confidence == 0.0
    assert verdict.retry_task_ids == ["q1", "q0"]
    assert verdict.retry_inputs == {"q1": {"query": "better query"}}
    assert [(t.id, t.inputs) for t in verdict.new_tasks] == [
        ("q2", {"query": "n1"}),
        ("q3", {"query": "n2"}),
    ]


def test_meta_coordinator_uses_model_assessors_given_a_model(small_corpus: Corpus) -> None:
    model = ScriptedChatModel(
        [
            plan(("How are checkpoints protected?", "checkpoint encryption")),
            *search("q0", "checkpoint encryption", f"AES ({CHECKPOINTS})."),
            Reply("AES.", match="Findings:"),
            verdict("finish", 0.9, "answered"),
            Structured(FactsDraft(facts=[]), match="Evidence:"),
            report(("Storage", "Checkpoints are encrypted with AES.", CHECKPOINTS)),
            Structured(
                FindingsDraft(
                    findings=[FindingDraft(severity="warning", message="one source", task_id="q0")]
                ),
                match="Task results:",
            ),
            Structured(
                FindingsDraft(findings=[FindingDraft(severity="info", message="all cited")]),
                match="Sources the workers found:",
            ),
        ]
    )
    setup = TeamSetup(corpus=small_corpus, store=small_corpus.store, model=model)
    assert isinstance(model_roles(model, small_corpus).worker, ModelWorker)

    final = compile_team(meta_coordinator(setup)).invoke({"question": QUESTION})

    model.assert_complete()
    risk, compliance = final["findings"]["risk_assessment"], final["findings"]["compliance_check"]
    assert [(f.phase, f.severity, f.task_id) for f in risk] == [
        ("risk_assessment", "warning", "q0")
    ]
    assert [(f.phase, f.message) for f in compliance] == [("compliance_check", "all cited")]
    compliance_request = human_text(model.requests[-1])
    assert f": - Checkpoints are encrypted with AES. (`{CHECKPOINTS}`)" in compliance_request
    assert f"- {CHECKPOINTS}" in compliance_request
