"""The MetaCoordinator: intake -> research_team (subgraph) -> risk_assessment -> compliance_check.

The research team is one node: its compiled graph. Keys the two states share (question, plan,
tasks, worker_results, consolidated, final_answer, memory_writes, reflection, iteration, the
human review trail and rejections, and evidence for a research phase without workers, such as
the hypothesis team) flow between them;
the research team's message log and counters stay inside it. Any graph whose state has
``question`` and ``final_answer`` can be the research phase.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from framework.builder import compile_team
from framework.errors import ConfigError
from framework.middleware import Middleware
from framework.nodes._node import TeamNode
from framework.records import (
    Evidence,
    Finding,
    MemoryFact,
    Plan,
    ReviewVerdict,
    Task,
    WorkerResult,
)
from framework.review.records import AuditEntry
from framework.runtime import NodeContext
from framework.state import (
    append_unique,
    append_unique_facts,
    merge_by_id,
    merge_results,
    merge_tasks,
)
from teams.meta.assessors import Assessor

__all__ = ["MetaState", "build_meta_coordinator"]

TEAM = "meta"


class MetaState(TypedDict, total=False):
    """The MetaCoordinator's state: the research keys it shares plus each phase's findings."""

    question: str
    plan: Plan | None
    tasks: Annotated[dict[str, Task], merge_tasks]
    worker_results: Annotated[dict[str, WorkerResult], merge_results]
    consolidated: str
    final_answer: str
    memory_writes: Annotated[list[MemoryFact], append_unique_facts]
    reflection: ReviewVerdict | None
    iteration: int
    audit: Annotated[list[AuditEntry], append_unique]
    rejections: Annotated[dict[str, str], merge_by_id]
    evidence: list[Evidence]
    findings: Annotated[dict[str, list[Finding]], merge_by_id]


def _intake(state: MetaState, context: NodeContext) -> dict[str, Any]:
    question = " ".join(state.get("question", "").split())
    if not question:
        raise ConfigError("the question is empty: pass the question to research")
    finding = Finding(
        phase="intake", severity="info", message=f"question of {len(question.split())} words"
    )
    context.emit("intake", question=question)
    return {"question": question, "findings": {"intake": [finding]}}


def _assessment(phase: str, assessor: Assessor) -> Any:
    def body(state: MetaState, context: NodeContext) -> dict[str, Any]:
        findings = [Finding.model_validate(f) for f in assessor.assess(state, context)]
        context.emit(phase, findings=[f.model_dump() for f in findings])
        return {"findings": {phase: findings}}

    return body


def build_meta_coordinator(
    research: StateGraph[Any, Any, Any, Any] | CompiledStateGraph[Any, Any, Any, Any],
    risk: Assessor,
    compliance: Assessor,
    middleware: Sequence[Middleware] = (),
) -> StateGraph[Any, Any, Any, Any]:
    """The MetaCoordinator graph (uncompiled) around a research team graph."""
    for name, assessor in (("risk", risk), ("compliance", compliance)):
        if not isinstance(assessor, Assessor):
            raise ConfigError(f"{name} must implement assess(state, context): got {assessor!r}")
    if isinstance(research, StateGraph):
        research = compile_team(research, name="research_team")
    graph = StateGraph(MetaState)
    graph.add_node("intake", TeamNode("intake", TEAM, _intake, middleware=middleware))
    graph.add_node("research_team", research)
    for phase, assessor in (("risk_assessment", risk), ("compliance_check", compliance)):
        body = _assessment(phase, assessor)
        graph.add_node(phase, TeamNode(phase, TEAM, body, middleware=middleware))
    graph.add_edge(START, "intake")
    graph.add_edge("intake", "research_team")
    graph.add_edge("research_team", "risk_assessment")
    graph.add_edge("risk_assessment", "compliance_check")
    graph.add_edge("compliance_check", END)
    return graph
