"""The recall and supervisor nodes, and the typed router that reads the supervisor's choice."""

from __future__ import annotations

from typing import Any, cast

from langchain_core.messages import AIMessage

from framework.engine.routing import read_step
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError
from framework.memory import ResearchMemory
from teams.hypothesis.events import NextStep, Started, emit
from teams.hypothesis.roles import HypothesisRoles
from teams.hypothesis.rules import iteration_bound, next_step_by_rule
from teams.hypothesis.settings import HypothesisSettings
from teams.hypothesis.state import STEPS, HypothesisState, Step
from teams.hypothesis.verdicts import Decision

__all__ = ["recall_body", "route_next", "supervisor_body"]


def _memory_note(memory: ResearchMemory, evidence: int, hypotheses: int, conflicts: int) -> str:
    summary = memory.summary()
    if not summary.evidence and not sum(summary.hypotheses.values()):
        return f"Started from an empty memory ({memory.name})."
    return (
        f"Started from {memory.describe()}; recalled {evidence} related evidence, "
        f"{hypotheses} hypotheses and {conflicts} conflicts."
    )


def recall_body(roles: HypothesisRoles, settings: HypothesisSettings) -> Any:
    """The body of the recall node: what memory already knows about the question."""
    memory = roles.memory

    def body(state: HypothesisState, context: NodeContext) -> dict[str, Any]:
        question = " ".join(state.get("question", "").split())
        if not question:
            raise ConfigError("the question is empty: pass the question to research")
        n, floor = settings.recall, settings.recall_min_score
        ids = [scored.evidence.id for scored in memory.relevant(question, n, floor)]
        hypotheses = {h.id: h for h in memory.related_hypotheses(question, n, floor)}
        linked = set(ids) | {
            e for h in hypotheses.values() for e in (*h.supporting, *h.contradicting)
        }
        conflicts = {c.id: c for c in memory.conflicts() if {c.source_a, c.source_b} & linked}
        note = _memory_note(memory, len(ids), len(hypotheses), len(conflicts))
        emit(context, Started(question=question, memory_note=note))
        return {
            "question": question,
            "evidence_ids": ids,
            "hypotheses": hypotheses,
            "conflicts": conflicts,
            "memory_note": note,
            "max_iterations": state.get("max_iterations") or settings.max_iterations,
            "messages": [AIMessage(note, name="recall")],
        }

    return body


def supervisor_body(roles: HypothesisRoles, settings: HypothesisSettings) -> Any:
    """The body of the supervisor node: the rule at the bound, else the supervisor role."""

    def body(state: HypothesisState, context: NodeContext) -> dict[str, Any]:
        rule = next_step_by_rule(
            state, enough_new=settings.enough_new, max_iterations=settings.max_iterations
        )
        iteration = state.get("iteration", 0)
        at_bound = iteration >= iteration_bound(state, settings.max_iterations)
        decision = rule if at_bound else roles.supervisor.decide(state, rule, context)
        if decision.step not in STEPS:
            decision = Decision(
                step=rule.step, reason=rule.reason, fallback=f"unknown step {decision.step!r}"
            )
        if decision.step != "synthesize":
            iteration += 1
        note = f"supervisor: {decision.step} ({decision.reason})"
        if decision.fallback:
            note += f"; the rule decided because {decision.fallback}"
        emit(
            context,
            NextStep(step=decision.step, reason=decision.reason, fallback=decision.fallback),
        )
        return {
            "next_step": decision.step,
            "iteration": iteration,
            "messages": [AIMessage(note, name="supervisor")],
        }

    return body


def route_next(state: HypothesisState) -> Step:
    """The step the supervisor chose (ConfigError when a node upstream wrote another)."""
    return cast(Step, read_step(state, STEPS))
