"""The MetaCoordinator: intake -> research_team (subgraph) -> risk_assessment -> compliance_check.

:func:`build_phased_coordinator` runs several teams in order instead of one research team (the
extraction team, then the memory supervisor team, for ``--team meta-knowledge``).

The research team is one node: its compiled graph. Keys the two states share (question, plan,
tasks, worker_results, consolidated, final_answer, memory_writes, reflection, iteration, the
human review trail and rejections, and evidence for a research phase without workers, such as
the hypothesis team) flow between them;
the research team's message log and counters stay inside it. Any graph whose state has
``question`` and ``final_answer`` can be the research phase.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Annotated, Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from framework.engine.builder import compile_team
from framework.engine.middleware import Middleware
from framework.engine.nodes.team_node import TeamNode
from framework.engine.records import (
    Evidence,
    Finding,
    MemoryFact,
    Plan,
    ReviewVerdict,
    Task,
    WorkerResult,
)
from framework.engine.runtime import NodeContext
from framework.engine.state import (
    GovernedState,
    append_unique,
    append_unique_facts,
    merge_by_id,
    merge_results,
    merge_tasks,
)
from framework.errors import ConfigError
from framework.policy import inherit_policies
from framework.review.records import AuditEntry
from teams.meta.assessors import Assessor

__all__ = ["MetaState", "Phase", "build_meta_coordinator", "build_phased_coordinator"]

TEAM = "meta"


class MetaState(GovernedState, total=False):
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


Phase = StateGraph[Any, Any, Any, Any] | CompiledStateGraph[Any, Any, Any, Any]
"""A team run as one node of the coordinator: any graph whose state has ``question`` and
``final_answer``."""


def build_meta_coordinator(
    research: Phase,
    risk: Assessor,
    compliance: Assessor,
    middleware: Sequence[Middleware] = (),
) -> StateGraph[Any, Any, Any, Any]:
    """The MetaCoordinator graph (uncompiled) around a research team graph."""
    return build_phased_coordinator([("research_team", research)], risk, compliance, middleware)


def build_phased_coordinator(
    phases: Sequence[tuple[str, Phase]],
    risk: Assessor,
    compliance: Assessor,
    middleware: Sequence[Middleware] = (),
) -> StateGraph[Any, Any, Any, Any]:
    """The MetaCoordinator graph (uncompiled) running team ``phases`` in order after intake,
    then risk assessment and compliance check. Policy middleware in ``middleware`` governs the
    phases' nodes too (before their own policies).

    Raises:
        ConfigError: No phase, a phase name that is taken, or an assessor without ``assess``.
    """
    for name, assessor in (("risk", risk), ("compliance", compliance)):
        if not isinstance(assessor, Assessor):
            raise ConfigError(f"{name} must implement assess(state, context): got {assessor!r}")
    names = [name for name, _ in phases]
    taken = {"intake", "risk_assessment", "compliance_check"}
    if not names or len(set(names)) < len(names) or taken & set(names):
        raise ConfigError(
            f"phases {names} must be at least one, with unique names other than {sorted(taken)}"
        )
    graph = StateGraph(MetaState)
    graph.add_node("intake", TeamNode("intake", TEAM, _intake, middleware=middleware))
    for name, team in phases:
        inherit_policies(team, middleware)
        compiled = compile_team(team, name=name) if isinstance(team, StateGraph) else team
        graph.add_node(name, compiled)
    for phase, assessor in (("risk_assessment", risk), ("compliance_check", compliance)):
        body = _assessment(phase, assessor)
        graph.add_node(phase, TeamNode(phase, TEAM, body, middleware=middleware))
    order = [START, "intake", *names, "risk_assessment", "compliance_check", END]
    for before, after in pairwise(order):
        graph.add_edge(before, after)
    return graph
