"""The judge, resolve and synthesize nodes: each applies its role's decision to research memory.

Memory validates every change; a refused one (:class:`~framework.errors.InvalidUpdate`) is
recorded in the messages and the run goes on.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage
from langgraph.types import Overwrite

from framework.engine.runtime import NodeContext
from framework.errors import InvalidUpdate
from framework.memory import (
    LEGAL_STATUS_CHANGES,
    Conflict,
    Hypothesis,
    HypothesisStatus,
    ResearchMemory,
)
from teams.hypothesis._search import gather
from teams.hypothesis.asked import words_asked_resolution
from teams.hypothesis.events import (
    ConflictFound,
    ConflictResolved,
    HypothesisUpdated,
    ReportWritten,
    emit,
)
from teams.hypothesis.evidence import handed_over
from teams.hypothesis.roles import HypothesisRoles
from teams.hypothesis.rules import conflicts_to_resolve
from teams.hypothesis.safety import Check, check_findings
from teams.hypothesis.state import HypothesisState
from teams.hypothesis.verdicts import (
    Assessment,
    state_asked_resolution,
    year_asked_resolution,
)

__all__ = ["final_check", "judge_body", "resolve_body", "status_path", "synthesize_body"]


def status_path(current: HypothesisStatus, target: HypothesisStatus) -> list[HypothesisStatus]:
    """The legal status changes from ``current`` to ``target``: direct, or through validating.

    Raises:
        InvalidUpdate: No legal path leads there (back to proposed).
    """
    if target == current:
        return []
    if target in LEGAL_STATUS_CHANGES[current]:
        return [target]
    if (
        "validating" in LEGAL_STATUS_CHANGES[current]
        and target in LEGAL_STATUS_CHANGES["validating"]
    ):
        return ["validating", target]
    raise InvalidUpdate(f"a hypothesis cannot go from {current} back to {target}")


def _apply(
    memory: ResearchMemory, assessment: Assessment, known: Hypothesis | None, step: str
) -> Hypothesis | None:
    """Propose and update one hypothesis; None when nothing changed."""
    current = known or memory.propose(
        assessment.statement, step=step, supporting=assessment.supporting
    )
    statuses = status_path(current.status, assessment.status)
    new_ids = set(assessment.supporting) - set(current.supporting)
    new_ids |= set(assessment.contradicting) - set(current.contradicting)
    if not statuses and not new_ids and assessment.confidence == current.confidence:
        return current if known is None else None
    changes: list[HypothesisStatus | None] = [*statuses] or [None]
    for status in changes:
        current = memory.update_hypothesis(
            current.id,
            step=step,
            status=status,
            confidence=assessment.confidence,
            supporting=assessment.supporting,
            contradicting=assessment.contradicting,
            note=assessment.note,
        )
    return current


def judge_body(roles: HypothesisRoles) -> Any:
    """The body of the judge node: assessments and conflicts into memory and the state."""
    memory = roles.memory

    def body(state: HypothesisState, context: NodeContext) -> dict[str, Any]:
        step = f"judge#{state.get('iteration', 0)}"
        judgment = roles.judge.judge(state, context)
        known = state.get("hypotheses") or {}
        by_statement = {h.statement: h for h in known.values()}
        notes = list(judgment.notes)
        hypotheses: dict[str, Hypothesis] = {}
        for assessment in judgment.assessments:
            current = known.get(assessment.hypothesis_id or "") or by_statement.get(
                assessment.statement
            )
            try:
                updated = _apply(memory, assessment, current, step)
            except InvalidUpdate as refused:
                notes.append(f"refused for {assessment.statement!r}: {refused}")
                continue
            if updated is not None:
                hypotheses[updated.id] = updated
                emit(
                    context,
                    HypothesisUpdated(
                        id=updated.id,
                        statement=updated.statement,
                        status=updated.status,
                        confidence=updated.confidence,
                    ),
                )
        conflicts: dict[str, Conflict] = {}
        for claim in judgment.conflicts:
            try:
                conflict = memory.open_conflict(claim.description, claim.source_a, claim.source_b)
            except InvalidUpdate as refused:
                notes.append(f"conflict refused: {refused}")
                continue
            if conflict.id not in (state.get("conflicts") or {}):
                conflicts[conflict.id] = conflict
                emit(context, ConflictFound(id=conflict.id, description=conflict.description))
        note = f"{step}: {len(hypotheses)} hypothesis update(s), {len(conflicts)} new conflict(s)"
        return {
            "hypotheses": hypotheses,
            "conflicts": conflicts,
            "new_evidence": Overwrite(0),
            "messages": [AIMessage("; ".join([note, *notes]), name="judge")],
        }

    return body


def resolve_body(roles: HypothesisRoles) -> Any:
    """The body of the resolve node: search for decisive evidence, then settle each conflict
    (a side of the one year the question asks about against a side of another year first:
    :func:`~teams.hypothesis.verdicts.year_asked_resolution`; then a side of the state it asks
    about, "at low water", against one of another state:
    :func:`~teams.hypothesis.verdicts.state_asked_resolution`; last, where no source
    decides, the side the question's words point to:
    :func:`~teams.hypothesis.asked.words_asked_resolution`)."""
    memory = roles.memory

    def body(state: HypothesisState, context: NodeContext) -> dict[str, Any]:
        known = list(state.get("evidence_ids") or [])
        update: dict[str, Any] = {
            "conflicts": {},
            "evidence_ids": [],
            "errors": [],
            "undecided": [],
        }
        notes: list[str] = []
        conflicts = state.get("conflicts") or {}
        for conflict in (conflicts[cid] for cid in conflicts_to_resolve(state)):
            a, b = memory.evidence([conflict.source_a, conflict.source_b])
            kept = gather(roles, roles.resolver.queries(conflict, a, b), known, context)
            known += kept.new
            update["evidence_ids"] += kept.ids
            update["errors"] += kept.errors
            question = state.get("question") or ""
            asked = year_asked_resolution(conflict, question, a, b) or state_asked_resolution(
                conflict, question, a, b
            )
            resolution = (
                asked
                or roles.resolver.resolve(conflict, a, b, context)
                or words_asked_resolution(conflict, question, a, b)
            )
            if resolution is None:
                update["undecided"].append(conflict.id)
                notes.append(f"{conflict.id} stays open: no source decides")
                continue
            try:
                resolved = memory.resolve_conflict(
                    conflict.id, resolution.resolution, resolved_by=resolution.resolved_by
                )
            except InvalidUpdate as refused:
                notes.append(f"{conflict.id} stays open: {refused}")
                continue
            update["conflicts"][resolved.id] = resolved
            emit(
                context,
                ConflictResolved(
                    id=resolved.id,
                    resolution=resolved.resolution or "",
                    resolved_by=resolved.resolved_by,
                ),
            )
        settled = len(update["conflicts"])
        update["new_evidence"] = len(known) - len(state.get("evidence_ids") or []) + settled
        note = f"resolve: {settled} conflict(s) resolved"
        update["messages"] = [AIMessage("; ".join([note, *notes]), name="resolve")]
        return update

    return body


def final_check(memory: ResearchMemory, state: HypothesisState) -> HypothesisState:
    """The state update of the final check (:mod:`teams.hypothesis.safety`): confirmed
    hypotheses that evidence stands against, undecided, go back to validating (in memory
    too), with why; those decided over it say by what."""
    checks = check_findings(state, memory)
    hypotheses: dict[str, Hypothesis] = {}
    for check in checks:
        if check.held:
            hypotheses[check.hypothesis.id] = _held_back(memory, check)
    return {
        "hypotheses": hypotheses,
        "held_back": [f"{c.hypothesis.statement} ({c.reason})" for c in checks if c.held],
        "decided_over": [
            f"{', '.join(f'`{s}`' for s in c.against)} state otherwise than "
            f'"{c.hypothesis.statement}"; decided by {c.decided}'
            for c in checks
            if c.decided
        ],
    }


def _held_back(memory: ResearchMemory, check: Check) -> Hypothesis:
    note = f"final check: {check.reason}"
    try:
        return memory.update_hypothesis(
            check.hypothesis.id, step="final check", status="validating", note=note
        )
    except InvalidUpdate:  # not stored (a model's hypothesis): held back in this run only
        return check.hypothesis.model_copy(update={"status": "validating"})


def synthesize_body(roles: HypothesisRoles) -> Any:
    """The body of the synthesize node: the final check, then the report (the run's final
    answer)."""

    def body(state: HypothesisState, context: NodeContext) -> dict[str, Any]:
        checked = final_check(roles.memory, state)
        hypotheses = {**(state.get("hypotheses") or {}), **checked.get("hypotheses", {})}
        seen: HypothesisState = {**state, **checked}
        seen["hypotheses"] = hypotheses
        report = roles.synthesizer.synthesize(seen, context)
        confirmed = sum(1 for h in hypotheses.values() if h.status == "confirmed")
        emit(context, ReportWritten(confirmed=confirmed, chars=len(report)))
        return {
            **checked,
            "report": report,
            "final_answer": report,
            "evidence": handed_over(roles.memory, state),
            "messages": [AIMessage(f"report: {confirmed} confirmed finding(s)", name="synthesize")],
        }

    return body
