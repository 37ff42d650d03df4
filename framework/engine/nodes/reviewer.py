"""The reviewer node: applies the stop rules to the role's verdict, then the verdict itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage

from framework.engine.records import ReviewVerdict, Task
from framework.engine.roles import Reviewer
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState
from framework.engine.stopping import StopRule

__all__ = ["apply_stop_rules", "reviewer_body"]

_RETRYABLE = ("done", "failed")


def apply_stop_rules(
    state: TeamState, verdict: ReviewVerdict, iteration: int, rules: Sequence[StopRule]
) -> ReviewVerdict:
    """Force ``finish`` when a rule says so, naming the rule and its reason."""
    if verdict.decision == "finish":
        return verdict
    for rule in rules:
        reason = rule.check(state, verdict, iteration)
        if reason is not None:
            return _finish(verdict, reason, forced_by=rule.name)
    return verdict


def _finish(verdict: ReviewVerdict, reason: str, forced_by: str | None = None) -> ReviewVerdict:
    return verdict.model_copy(
        update={"decision": "finish", "reasons": [*verdict.reasons, reason], "forced_by": forced_by}
    )


def _retry_tasks(state: TeamState, verdict: ReviewVerdict) -> dict[str, Task]:
    """The tasks the verdict names to run again: finished ones, not refused (a policy or a
    person refused them: another attempt would be refused alike)."""
    tasks = state.get("tasks") or {}
    results = state.get("worker_results") or {}
    retried = {}
    for task_id in verdict.retry_task_ids:
        task, result = tasks.get(task_id), results.get(task_id)
        if task is None or task.status not in _RETRYABLE or (result and result.refused):
            continue
        inputs = {**task.inputs, **verdict.retry_inputs.get(task_id, {})}
        retried[task_id] = task.model_copy(
            update={"status": "pending", "attempt": task.attempt + 1, "inputs": inputs}
        )
    return retried


def _new_tasks(state: TeamState, verdict: ReviewVerdict) -> dict[str, Task]:
    known = state.get("tasks") or {}
    return {
        task.id: task.model_copy(update={"status": "pending"})
        for task in verdict.new_tasks
        if task.id not in known
    }


def _apply(state: TeamState, verdict: ReviewVerdict) -> tuple[ReviewVerdict, dict[str, Task]]:
    if verdict.decision == "retry_workers":
        retried = _retry_tasks(state, verdict)
        if not retried:
            return _finish(verdict, "no finished task among those named to retry"), {}
        return verdict, retried
    if verdict.decision == "dispatch":
        added = _new_tasks(state, verdict)
        if not added:
            return _finish(verdict, "no new task to dispatch"), {}
        return verdict, added
    return verdict, {}


def reviewer_body(role: Reviewer, rules: Sequence[StopRule]) -> Any:
    """Return the body of the reviewer node for ``role`` under ``rules``."""

    def body(state: TeamState, context: NodeContext) -> dict[str, Any]:
        iteration = state.get("iteration", 0) + 1
        proposed = ReviewVerdict.model_validate(role.review(state, context))
        verdict, tasks = _apply(state, apply_stop_rules(state, proposed, iteration, rules))
        context.emit(
            "review",
            iteration=iteration,
            decision=verdict.decision,
            forced_by=verdict.forced_by,
            reasons=verdict.reasons,
            confidence=verdict.confidence,
        )
        note = (
            f"review {iteration}: {verdict.decision} ({'; '.join(verdict.reasons) or 'no notes'})"
        )
        return {
            "reflection": verdict,
            "iteration": iteration,
            "tasks": tasks,
            "control_signal": verdict.decision,
            "messages": [AIMessage(note, name="reviewer")],
            "metrics": {"review_rounds": 1},
        }

    return body
