"""One MetaCoordinator run under a budget, a PII policy and tool authorization, with scripted
models: a denied tool call, a redacted tool argument, an answer with a redacted e-mail, a budget
that stops dispatch, and a policy that asks a human who approves; all in the audit trail and in the
trace."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from framework.engine.builder import TeamSettings, compile_team
from framework.engine.worker_kinds import WorkerKind, WorkerKinds
from framework.memory import Corpus
from framework.policy import PolicyMiddleware, Principal, governed
from framework.review import approve_all, pending
from framework.review.records import PolicyReview
from framework.runs.runner import run_team
from framework.testing import CallTools, Reply, ScriptedChatModel, Structured
from framework.tools.worker import ToolWorker
from policies.authorization import ToolAuthorization, ToolRule
from policies.budgets import Budget, Limits
from policies.redaction import PiiRedaction
from teams.meta.assessors import CitationCompliance, EvidenceRisk
from teams.meta.graph import build_meta_coordinator
from teams.research import build_research_team, model_roles
from teams.research.schemas import (
    ClaimDraft,
    FactsDraft,
    PlanDraft,
    ReportDraft,
    ReviewVerdictDraft,
    SectionDraft,
    SubQuestion,
)
from tests.test_telemetry import Recorder

SEEN: dict[str, list[Any]] = {"lookup": [], "delete": [], "refund": []}
RETRIES = "docs/retries.md:3"


@tool
def lookup_customer(email: str) -> str:
    """Find a customer by e-mail."""
    SEEN["lookup"].append(email)
    return "customer plan: gold, write to bob@example.com"


@tool
def delete_account(user: str) -> str:
    """Delete a customer's account."""
    SEEN["delete"].append(user)
    return "deleted"


@tool
def refund(amount: float) -> str:
    """Refund an amount to the customer."""
    SEEN["refund"].append(amount)
    return f"refunded {amount}"


def _script() -> ScriptedChatModel:
    subs = [
        SubQuestion(description="Which plan has bob?", query="bob", kind="support"),
        SubQuestion(description="Close bob's account", query="close", kind="support"),
        SubQuestion(description="Refund bob 30", query="refund", kind="support"),
    ]
    refund_call = CallTools([("refund", {"amount": 30})], match="Task q2:")
    return ScriptedChatModel(
        [
            Structured(PlanDraft(goal="g", sub_questions=subs)),
            CallTools([("lookup_customer", {"email": "bob@example.com"})], match="Task q0:"),
            Reply("Bob is on the gold plan.", match="customer plan"),
            CallTools([("delete_account", {"user": "bob"})], match="Task q1:"),
            Reply("The account could not be closed.", match="was refused"),
            refund_call,
            refund_call,  # the task runs again from its start once the refund is approved
            Reply("Refunded 30.", match="refunded 30"),
            Reply("Findings consolidated.", match="Findings:"),
            Structured(
                ReviewVerdictDraft(
                    decision="dispatch",
                    confidence=0.5,
                    new_tasks=[SubQuestion(description="More?", query="more", kind="support")],
                ),
                match="Consolidated findings:",
            ),
            Structured(
                ReviewVerdictDraft(decision="finish", confidence=0.9, reasons=["enough"]),
                match="Consolidated findings:",
            ),
            Structured(FactsDraft(facts=[]), match="Evidence:"),
            Structured(
                ReportDraft(
                    sections=[
                        SectionDraft(
                            heading="Support",
                            claims=[
                                ClaimDraft(
                                    text="Write to support@example.com for retries.",
                                    source=RETRIES,
                                )
                            ],
                        )
                    ]
                ),
                match="Evidence you may cite:",
            ),
        ]
    )


def _policies(recorder: Recorder) -> PolicyMiddleware:
    rules = [
        ToolRule(tools="delete_*", action="deny", reason="accounts are closed by staff only"),
        ToolRule(tools="refund", action="ask", reason="refunds need a human"),
    ]
    return PolicyMiddleware(
        [
            ToolAuthorization(rules),
            PiiRedaction({"email": "redact"}, apply_to=("tool_args", "answer")),
            Budget(run=Limits(model_calls=9)),
        ],
        principal=Principal(user="carol", tenant="acme", scopes=frozenset({"support"})),
        listeners=(recorder.telemetry.policy_decided,),
    )


def test_a_governed_meta_coordinator_run(small_corpus: Corpus) -> None:
    for calls in SEEN.values():
        calls.clear()
    recorder = Recorder()
    traced = recorder.telemetry.middleware
    model = governed(_script())
    roles = model_roles(model, small_corpus, small_corpus.store, kinds={"support": "support"})
    worker = WorkerKinds(
        [
            WorkerKind(
                name="support",
                worker=ToolWorker(model, [lookup_customer, delete_account, refund]),
                description="support tools",
            )
        ]
    )
    settings = TeamSettings(name="research", middleware=traced)
    research = build_research_team(replace(roles, worker=worker), settings)
    meta = build_meta_coordinator(
        research, EvidenceRisk(), CitationCompliance(), middleware=(*traced, _policies(recorder))
    )
    app = compile_team(meta, checkpointer=InMemorySaver(), name="meta")

    paused = run_team(app, {"question": "Help bob"}, "t1", observer=recorder.telemetry)
    [request] = pending(app, "t1")
    assert isinstance(request, PolicyReview)
    assert (request.policy, request.target, request.task_id) == (
        "tool_authorization",
        "refund",
        "q2",
    )
    assert request.path == ["research_team", "research"]
    assert paused.paused_before
    assert SEEN["refund"] == []

    final = approve_all(app, "t1", "dana", observer=recorder.telemetry).state

    assert SEEN["lookup"] == ["[EMAIL]"]  # redacted before it left
    assert SEEN["delete"] == []  # denied: the model saw an error message
    assert SEEN["refund"] == [30]  # asked, approved, then called
    results = final["worker_results"]
    assert results["q1"].status == "ok"
    assert results["q3"].status == "failed"
    assert "budget exhausted" in (results["q3"].error or "")
    answer = final["final_answer"]
    assert "example.com" not in answer
    assert "[EMAIL]" in answer
    assert "budget ran out" in answer

    trail = {(e.policy, e.action, e.target) for e in final["policy_audit"]}
    assert ("tool_authorization", "deny", "delete_account") in trail
    assert ("pii", "modify", "lookup_customer") in trail
    assert ("tool_authorization", "approved", "refund") in trail
    assert ("budget", "deny", "worker") in trail
    assert ("pii", "modify", "answer") in trail
    approvals = [e for e in final["audit"] if e.request_kind == "policy"]
    assert [(e.decision_kind, e.reviewer) for e in approvals] == [("approve", "dana")]
    for entry in final["policy_audit"]:
        assert "example.com" not in entry.reason
    [approved] = [e for e in final["policy_audit"] if e.action == "approved"]
    assert approved.place == request.place  # one way to write a place, reviews and audit alike
    assert approved.place.startswith("node research_team > team research")
    events = {
        (str(a["cadre.policy.name"]), str(a["cadre.policy.action"]), str(a["cadre.policy.target"]))
        for span in recorder.finished()
        for a in (dict(e.attributes or {}) for e in span.events if e.name == "cadre.policy")
    }
    assert trail <= events  # every audit entry is also in the trace
    recorder.telemetry.close()
    counts = [record.counts for record in final["usage"].values()]
    # lookup and the approved refund; the denied delete_account is not a call made
    assert sum(c.get("tool_calls", 0) for c in counts) == 2
    assert sum(c.get("model_calls", 0) for c in counts) >= 9
