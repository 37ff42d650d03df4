"""The MetaCoordinator: the research team as a subgraph, risk and compliance phases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from framework.engine.builder import compile_team
from framework.engine.records import Evidence, ReviewVerdict, Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError
from framework.memory import Corpus
from framework.persistence.checkpointer import sqlite_checkpointer
from teams.meta import CitationCompliance, EvidenceRisk, build_meta_coordinator
from teams.research import build_research_team, offline_roles
from teams.research.model_roles import render_report
from teams.research.report import cited_report
from teams.research.schemas import ReportDraft

CONTEXT = NodeContext(node="test", team="meta")


def _meta(corpus: Corpus) -> Any:
    research = build_research_team(offline_roles(corpus, corpus.store))
    return build_meta_coordinator(research, EvidenceRisk(), CitationCompliance())


def test_meta_coordinator_runs_end_to_end_with_sqlite(small_corpus: Corpus, tmp_path: Path) -> None:
    checkpointer = sqlite_checkpointer(tmp_path / "checkpoints.sqlite")
    app = compile_team(_meta(small_corpus), checkpointer=checkpointer)
    config = {"configurable": {"thread_id": "meta-1"}}
    events = list(
        app.stream(
            {"question": "  How do   workers retry transient errors? "},
            config,
            stream_mode="custom",
            subgraphs=True,
        )
    )
    state = app.get_state(config).values
    assert state["question"] == "How do workers retry transient errors?"
    assert set(state["findings"]) == {"intake", "risk_assessment", "compliance_check"}
    assert [f.severity for f in state["findings"]["compliance_check"]] == ["info"]
    assert "docs/retries.md:3" in state["final_answer"]
    assert all(r.status == "ok" for r in state["worker_results"].values())
    namespaces = {namespace[0].split(":")[0] for namespace, _ in events if namespace}
    assert namespaces == {"research_team"}
    top_level = [event["event"] for namespace, event in events if not namespace]
    assert top_level == ["intake", "risk_assessment", "compliance_check"]
    nested = [event["event"] for namespace, event in events if namespace]
    assert nested[0] == "plan" and nested[-1] == "answer"
    checkpointer.conn.close()


def test_meta_state_keeps_research_internals_inside(small_corpus: Corpus) -> None:
    """The research team's counters stay inside it; its message log is the thread's chat (a
    chat front end shows the coordinator's ``messages``), its answer last."""
    state = compile_team(_meta(small_corpus)).invoke({"question": "How are runs checkpointed?"})
    assert "metrics" not in state
    assert state["messages"][-1].name == "formatter"
    assert state["memory_writes"]  # shared key, written once
    assert len({fact.id for fact in state["memory_writes"]}) == len(state["memory_writes"])


def test_empty_question_is_refused_at_intake(small_corpus: Corpus) -> None:
    with pytest.raises(ConfigError, match="question is empty"):
        compile_team(_meta(small_corpus)).invoke({"question": "   "})


def test_assessors_are_checked_at_build_time(small_corpus: Corpus) -> None:
    research = build_research_team(offline_roles(small_corpus))
    with pytest.raises(ConfigError, match="risk must implement assess"):
        build_meta_coordinator(research, object(), CitationCompliance())  # type: ignore[arg-type]


def _result(task_id: str, confidence: float, *texts: tuple[str, str]) -> WorkerResult:
    evidence = [Evidence(source=source, text=text, score=confidence) for source, text in texts]
    return WorkerResult(task_id=task_id, status="ok", evidence=evidence, confidence=confidence)


def test_risk_flags_weak_failed_and_conflicting_evidence() -> None:
    results = {
        "q0": _result("q0", 0.9, ("a.md:1", "The cache holds 100 entries per worker process.")),
        "q1": _result("q1", 0.8, ("b.md:4", "The cache holds 200 entries per worker process.")),
        "q2": _result("q2", 0.7, ("c.md:2", "Workers retry transient errors with backoff.")),
        "q3": _result("q3", 0.7, ("d.md:9", "Workers never retry transient errors with backoff.")),
        "q4": _result("q4", 0.2, ("e.md:1", "Bread rises with yeast.")),
        "q5": WorkerResult(task_id="q5", status="failed", error="TimeoutError: slow"),
    }
    findings = EvidenceRisk().assess({"worker_results": results}, CONTEXT)
    messages = [f.message for f in findings]
    numbers = "a.md:1 and b.md:4 may conflict: different numbers (100 entries, 200 entries)"
    assert any(numbers in m for m in messages)
    assert any("c.md:2 and d.md:9 may conflict: one negates" in m for m in messages)
    assert any(f.task_id == "q4" and "weak evidence" in f.message for f in findings)
    assert any(f.task_id == "q5" and f.severity == "error" for f in findings)
    assert not any("e.md:1 and" in m or "and e.md:1" in m for m in messages)


def test_compliance_flags_uncited_and_unknown_sources() -> None:
    report = (
        "# Q\n\n## Findings\n\n### part\n\n- Cited claim. (`a.md:1`)\n- Uncited claim.\n"
        "- Invented source. (`zzz.md:9`)\n\n## Sources\n\n- `a.md:1`\n"
    )
    results = {"q0": _result("q0", 0.9, ("a.md:1", "Cited claim."))}
    findings = CitationCompliance().assess(
        {"final_answer": report, "worker_results": results}, CONTEXT
    )
    assert [f.message for f in findings] == [
        "line 8: uncited claim: - Uncited claim.",
        "line 9: cites zzz.md:9, which no worker found",
    ]
    clean = report.replace("- Uncited claim.\n", "")
    clean = clean.replace("- Invented source. (`zzz.md:9`)\n", "")
    ok = CitationCompliance().assess({"final_answer": clean, "worker_results": results}, CONTEXT)
    assert [(f.severity, f.message) for f in ok] == [("info", "all 1 claims cite their sources")]


def test_facts_name_the_checkpoint_they_came_from(small_corpus: Corpus, tmp_path: Path) -> None:
    checkpointer = sqlite_checkpointer(tmp_path / "checkpoints.sqlite")
    app = compile_team(_meta(small_corpus), checkpointer=checkpointer)
    config = {"configurable": {"thread_id": "prov"}}
    state = app.invoke({"question": "How do workers retry transient errors?"}, config)
    top_ids = {s.config["configurable"]["checkpoint_id"] for s in app.get_state_history(config)}
    all_ids = {c.config["configurable"]["checkpoint_id"] for c in checkpointer.list(config)}
    facts = state["memory_writes"]
    fact_ids = {f.provenance.checkpoint_id for f in facts}
    assert facts and all(f.provenance.thread_id == "prov" for f in facts)
    assert None not in fact_ids and fact_ids <= all_ids - top_ids  # a research-team checkpoint
    checkpointer.conn.close()


def _reviewed_state(uncited: str = "") -> dict[str, Any]:
    """A research run with a found, a weak, a failed and a rejected task, then its report."""
    tasks = {
        "q0": Task(id="q0", description="How are runs checkpointed", status="done"),
        "q1": Task(id="q1", description="What is the airspeed of a swallow", status="done"),
        "q2": Task(id="q2", description="How is the cache sized", status="done"),
        "q3": Task(id="q3", description="Who approves the plan", status="rejected"),
    }
    results = {
        "q0": _result("q0", 0.9, ("a.md:3", "Every run is checkpointed after each step.")),
        "q1": _result("q1", 0.1, ("b.md:1", "Bread rises with yeast.")),
        "q2": WorkerResult(task_id="q2", status="failed", error="TimeoutError: slow"),
    }
    state: dict[str, Any] = {
        "question": "How are runs checkpointed?",
        "tasks": tasks,
        "worker_results": results,
        "rejections": {"q3": "out of scope"},
        "reflection": ReviewVerdict(decision="finish", confidence=0.5, reasons=["enough"]),
        "iteration": 2,
    }
    report = cited_report(state)  # type: ignore[arg-type]
    if uncited:
        report = report.replace("\n## Not answered", f"{uncited}\n\n## Not answered")
    return {**state, "final_answer": report}


def test_compliance_reads_only_the_claims_not_cadres_own_sections() -> None:
    state = _reviewed_state()
    answer = state["final_answer"]
    assert "## Rejected in review" in answer and "> Not researched: Who approves" in answer
    assert "> Search failed: How is the cache sized" in answer
    assert "> No passage answers: What is the airspeed" in answer
    findings = CitationCompliance().assess(state, CONTEXT)
    assert [(f.severity, f.message) for f in findings] == [
        ("info", "all 1 claims cite their sources")
    ]


def test_compliance_still_reports_an_uncited_claim_beside_cadres_notes() -> None:
    state = _reviewed_state(uncited="- Runs are never checkpointed.")
    findings = CitationCompliance().assess(state, CONTEXT)
    assert [(f.severity, f.message.split(": ", 1)[1]) for f in findings] == [
        ("error", "uncited claim: - Runs are never checkpointed.")
    ]


@pytest.mark.parametrize("title", ["Review", "Sources", "Rejected in review"])
def test_a_models_section_named_like_a_note_section_is_still_checked(title: str) -> None:
    results = {"q0": _result("q0", 0.9, ("a.md:1", "Cited claim."))}
    draft = ReportDraft.model_validate(
        {"sections": [{"heading": title, "claims": [{"text": "Cited.", "source": "a.md:1"}]}]}
    )
    tasks = {"q0": Task(id="q0", description="part", status="done")}
    state: dict[str, Any] = {"question": "Q", "worker_results": results, "tasks": tasks}
    state["final_answer"] = render_report(state, draft)  # type: ignore[arg-type]
    findings = CitationCompliance().assess(state, CONTEXT)
    assert [f.message for f in findings] == ["all 1 claims cite their sources"]
