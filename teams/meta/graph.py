"""The MetaCoordinator: intake -> research_team (subgraph) -> risk_assessment -> compliance_check.

:func:`build_phased_coordinator` runs several teams in order instead of one research team (the
extraction team, then the memory supervisor team, for ``--team meta-knowledge``), and
:func:`build_coordinator` any ordered list of steps (:mod:`teams.meta.steps`), as a team
file's ``phases:`` declares them.

The research team is one node: its compiled graph. Keys the two states share (question, the
message log, plan, tasks, worker_results, consolidated, final_answer, memory_writes,
reflection, iteration, the human review trail and rejections, and evidence for a research
phase without workers, such as the hypothesis team) flow between them, so the coordinator's
``messages`` holds each human turn, the research team's notes and its answer, as a chat front
end shows a thread; the research team's counters stay inside it. Any graph whose state has
``question`` and ``final_answer`` can be the research phase.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph import END, START, StateGraph

from framework.engine.middleware import Middleware
from framework.engine.records import (
    Evidence,
    Finding,
    MemoryFact,
    Plan,
    ReviewVerdict,
    Task,
    WorkerResult,
)
from framework.engine.state import (
    MESSAGE_LIMIT,
    GovernedState,
    append_unique,
    append_unique_facts,
    bounded_messages,
    merge_by_id,
    merge_results,
    merge_tasks,
)
from framework.errors import ConfigError
from framework.review.records import AuditEntry
from teams.meta.assessors import Assessor
from teams.meta.steps import TEAM, Assess, Intake, NestedTeam, Phase, Step, Subteam

__all__ = [
    "MetaState",
    "Phase",
    "build_coordinator",
    "build_meta_coordinator",
    "build_phased_coordinator",
]


_BOUNDED = bounded_messages(MESSAGE_LIMIT)


def chat_log(current: list[AnyMessage] | None, update: Any) -> list[AnyMessage]:
    """The coordinator's messages: each phase's message log merged by id and bounded; a phase
    that keeps its log in another form (the supervisor's window of recent messages and gists)
    keeps it to itself."""
    if isinstance(update, Mapping):
        return list(current or [])
    return _BOUNDED(current or [], update)


class MetaState(GovernedState, total=False):
    """The MetaCoordinator's state: the research keys it shares plus each phase's findings."""

    question: str
    messages: Annotated[list[AnyMessage], chat_log]
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
    steps: list[Step] = [
        Intake(),
        *(Subteam(name, team) for name, team in phases),
        Assess("risk_assessment", risk),
        Assess("compliance_check", compliance),
    ]
    return build_coordinator(steps, middleware)


def build_coordinator(
    steps: Sequence[Step], middleware: Sequence[Middleware] = (), team: str = TEAM
) -> StateGraph[Any, Any, Any, Any]:
    """A coordinator graph (uncompiled) running ``steps`` in order, its own nodes named as
    team ``team``. Policy middleware in ``middleware`` governs its teams' nodes too (before
    their own policies).

    Raises:
        ConfigError: No team step, or a step name given twice.
    """
    names = [step.name for step in steps]
    teams = [step.name for step in steps if isinstance(step, Subteam | NestedTeam)]
    if not teams or len(set(names)) < len(names):
        raise ConfigError(f"steps {names} must be at least one team, with unique names")
    graph = StateGraph(MetaState)
    for step in steps:
        graph.add_node(step.name, step.node(team, middleware, teams))
    for before, after in pairwise([START, *names, END]):
        graph.add_edge(before, after)
    return graph
