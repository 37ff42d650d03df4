"""Applying a checked decision to a team's state: the update it makes and its audit entry.

An edited plan keeps the work already done: a task whose description, kind and inputs are
unchanged keeps its status (done or rejected) and its result, so only the tasks the edit
affects run again. A plan review edit and a fork with an edited plan share that rule.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from framework.engine.nodes.planner import plan_signal
from framework.engine.records import Plan, Task, WorkerResult
from framework.engine.state import ResultReplacement, TaskReplacement, to_jsonable
from framework.review._rules import tasks_of
from framework.review.records import (
    AnswerReview,
    AuditEntry,
    Decision,
    DecisionKind,
    ReviewKind,
    ReviewRequest,
)

__all__ = [
    "apply_decision",
    "audit_entry",
    "decision_entry",
    "edited_plan",
    "json_diff",
    "text_diff",
]

_KEPT = ("done", "rejected")
"""Statuses an unchanged task keeps through a plan edit; any other status runs again."""


def json_diff(before: Any, after: Any) -> str:
    """A unified diff of the JSON of two values (records dumped, keys sorted)."""
    return text_diff(_json(before), _json(after))


def text_diff(before: str, after: str) -> str:
    """A unified diff of two texts, line by line; empty when they are equal."""
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), "before", "after", lineterm=""
    )
    return "\n".join(lines)


def _json(value: Any) -> str:
    return json.dumps(to_jsonable(value), indent=2, sort_keys=True, ensure_ascii=False)


def _same_work(old: Task, new: Task) -> bool:
    return (old.description, old.kind, old.inputs) == (new.description, new.kind, new.inputs)


def edited_plan(state: Mapping[str, Any], plan: Plan) -> tuple[dict[str, Any], str]:
    """The update that puts ``plan`` in place of the state's plan, and the diff it makes.

    Tasks whose description, kind and inputs are unchanged keep their status when it is done
    (with their result) or rejected; the others are pending, so the dispatcher runs only them.
    """
    tasks: Mapping[str, Task] = state.get("tasks") or {}
    results: Mapping[str, WorkerResult] = state.get("worker_results") or {}
    placed: dict[str, Task] = {}
    kept: dict[str, WorkerResult] = {}
    for task in plan.tasks:
        old = tasks.get(task.id)
        if old is not None and old.status in _KEPT and _same_work(old, task):
            placed[task.id] = old
            if old.status == "done" and task.id in results:
                kept[task.id] = results[task.id]
        else:
            placed[task.id] = task.model_copy(update={"status": "pending", "attempt": 0})
    update: dict[str, Any] = {
        "plan": plan,
        "tasks": TaskReplacement(tasks=placed),
        "control_signal": plan_signal(plan),
    }
    if results:  # as the planner does: no replacement to write when there is nothing to drop
        update["worker_results"] = ResultReplacement(results=kept)
    if plan.direct_answer is not None:
        update["consolidated"] = plan.direct_answer
    before = {"plan": state.get("plan"), "tasks": dict(tasks)}
    return update, json_diff(before, {"plan": plan, "tasks": placed})


def _edited_tasks(known: Mapping[str, Task], decision: Decision) -> dict[str, Task]:
    """The edited tasks, pending again, keeping the attempt count of the task they replace."""
    return {
        task.id: task.model_copy(update={"status": "pending", "attempt": known[task.id].attempt})
        for task in decision.tasks or []
    }


def _rejected(known: Mapping[str, Task], decision: Decision) -> tuple[dict[str, Task], str]:
    ids = decision.task_ids or list(known)
    reason = decision.reason or f"rejected by {decision.reviewer}"
    tasks = {task_id: known[task_id].model_copy(update={"status": "rejected"}) for task_id in ids}
    return tasks, reason


def apply_decision(
    request: ReviewRequest, decision: Decision, state: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The state update of a checked ``decision`` on ``request``, with its audit entry.

    Args:
        request: The request the decision answers.
        decision: The decision, already checked against the request.
        state: The team's state (a plan edit needs its tasks and results).
    """
    known = tasks_of(request)
    update: dict[str, Any] = {}
    diff = ""
    if decision.kind == "edit_plan" and decision.plan is not None:
        update, diff = edited_plan(state or {}, decision.plan)
    elif decision.kind == "edit_tasks":
        edited = _edited_tasks(known, decision)
        update = {"tasks": edited}
        diff = json_diff({i: known[i] for i in edited}, edited)
    elif decision.kind == "reject_tasks":
        rejected, reason = _rejected(known, decision)
        update = {"tasks": rejected, "rejections": dict.fromkeys(rejected, reason)}
        diff = json_diff({i: known[i] for i in rejected}, rejected)
    elif decision.kind == "edit_answer" and decision.answer is not None:
        draft = request.draft if isinstance(request, AnswerReview) else ""
        update = {"final_answer": decision.answer}
        diff = text_diff(draft, decision.answer)
    return {**update, "audit": [decision_entry(request, decision, diff)]}


def decision_entry(request: ReviewRequest, decision: Decision, diff: str = "") -> AuditEntry:
    """The audit entry of ``decision`` on ``request``, stamped now."""
    return audit_entry(
        request.kind,
        decision.kind,
        request_id=decision.request_id,
        reviewer=decision.reviewer,
        path=request.path,
        where=request.where,
        diff=diff,
        reason=decision.reason,
        response=decision.response or "",
    )


def audit_entry(
    request_kind: ReviewKind,
    decision_kind: DecisionKind,
    *,
    request_id: str,
    reviewer: str,
    path: list[str],
    where: str = "",
    diff: str = "",
    reason: str = "",
    response: str = "",
) -> AuditEntry:
    """An audit entry stamped now (ISO 8601, UTC)."""
    return AuditEntry(
        request_id=request_id,
        request_kind=request_kind,
        decision_kind=decision_kind,
        reviewer=reviewer,
        at=datetime.now(UTC).isoformat(timespec="microseconds"),
        path=list(path),
        where=where,
        diff=diff,
        reason=reason,
        response=response,
    )
