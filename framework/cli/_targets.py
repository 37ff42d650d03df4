"""From a reviewer's command to decisions: which pending request each one answers.

The requests are those pending on the thread (the caller lets the review API refuse a thread
with none). A request id may be given whole or as a unique prefix. Task ids are matched to the
request that covers them (the plan review, or each task's own task review); every problem is a
:class:`~framework.errors.ReviewError` raised before anything is decided.
"""

from __future__ import annotations

from collections.abc import Sequence

from framework.cli._render import kind_label
from framework.engine.records import Plan, Task
from framework.errors import ReviewError
from framework.review import AnyReviewRequest, Decision, DecisionKind, tasks_of

__all__ = [
    "approvals",
    "describe",
    "find_request",
    "plan_edit",
    "question_response",
    "task_decisions",
    "text_edit",
]


def _ids(requests: Sequence[AnyReviewRequest]) -> str:
    return ", ".join(f"{request.id} ({request.kind})" for request in requests)


def find_request(
    requests: Sequence[AnyReviewRequest], request_id: str, thread_id: str
) -> AnyReviewRequest:
    """The pending request with id ``request_id``, or the only one it is a prefix of."""
    exact = [request for request in requests if request.id == request_id]
    matches = exact or [request for request in requests if request.id.startswith(request_id)]
    if len(matches) == 1:
        return matches[0]
    problem = "matches several" if matches else "matches no"
    raise ReviewError(
        f"request id {request_id!r} {problem} pending request of thread {thread_id!r}: "
        f"pending are {_ids(requests)}"
    )


def _taking(
    requests: Sequence[AnyReviewRequest], kind: DecisionKind, request_id: str | None, thread: str
) -> list[AnyReviewRequest]:
    """The pending requests that allow ``kind`` (only ``request_id``'s when given)."""
    chosen = [find_request(requests, request_id, thread)] if request_id else requests
    taking = [request for request in chosen if kind in request.allowed]
    if not taking:
        raise ReviewError(
            f"no pending request of thread {thread!r} allows {kind}: pending are {_ids(chosen)}"
        )
    return taking


def _one_taking(
    requests: Sequence[AnyReviewRequest], kind: DecisionKind, request_id: str | None, thread: str
) -> AnyReviewRequest:
    taking = _taking(requests, kind, request_id, thread)
    if len(taking) > 1:
        raise ReviewError(
            f"several pending requests of thread {thread!r} allow {kind}: pass --request "
            f"with one of {_ids(taking)}"
        )
    return taking[0]


def approvals(
    requests: Sequence[AnyReviewRequest], request_id: str | None, reviewer: str, thread: str
) -> list[Decision]:
    """Approve ``request_id``'s request, or every pending request when it is None."""
    chosen = _taking(requests, "approve", request_id, thread)
    return [Decision(request_id=r.id, kind="approve", reviewer=reviewer) for r in chosen]


def plan_edit(
    requests: Sequence[AnyReviewRequest],
    plan: Plan,
    request_id: str | None,
    reviewer: str,
    thread: str,
) -> list[Decision]:
    """Replace the plan under review."""
    request = _one_taking(requests, "edit_plan", request_id, thread)
    return [Decision(request_id=request.id, kind="edit_plan", reviewer=reviewer, plan=plan)]


def text_edit(
    requests: Sequence[AnyReviewRequest],
    answer: str,
    request_id: str | None,
    reviewer: str,
    thread: str,
) -> list[Decision]:
    """Replace the answer under review."""
    request = _one_taking(requests, "edit_answer", request_id, thread)
    return [Decision(request_id=request.id, kind="edit_answer", reviewer=reviewer, answer=answer)]


def question_response(
    requests: Sequence[AnyReviewRequest],
    response: str,
    request_id: str | None,
    reviewer: str,
    thread: str,
) -> list[Decision]:
    """Respond to the remote's question under review with ``response``."""
    request = _one_taking(requests, "respond", request_id, thread)
    return [Decision(request_id=request.id, kind="respond", reviewer=reviewer, response=response)]


def _by_request(
    requests: Sequence[AnyReviewRequest],
    kind: DecisionKind,
    task_ids: Sequence[str],
    request_id: str | None,
    thread: str,
) -> dict[str, list[str]]:
    """Task ids grouped by the id of the pending request that covers each (in order)."""
    taking = _taking(requests, kind, request_id, thread)
    grouped: dict[str, list[str]] = {}
    for task_id in dict.fromkeys(task_ids):
        owners = [r for r in taking if task_id in tasks_of(r)]
        if not owners:
            raise ReviewError(
                f"no pending request of thread {thread!r} that allows {kind} covers task "
                f"{task_id!r}: pending are {_ids(taking)}"
            )
        if len(owners) > 1:  # nested teams number their tasks alike: never pick one
            places = ", ".join(f"{r.id} ({kind_label(r.kind)} at {r.place})" for r in owners)
            raise ReviewError(
                f"task {task_id!r} is in {len(owners)} pending requests of thread {thread!r}: "
                f"pass --request with one of {places}"
            )
        grouped.setdefault(owners[0].id, []).append(task_id)
    return grouped


def task_decisions(
    requests: Sequence[AnyReviewRequest],
    *,
    kind: DecisionKind,
    reviewer: str,
    thread: str,
    task_ids: Sequence[str] = (),
    tasks: Sequence[Task] = (),
    reason: str = "",
    request_id: str | None = None,
) -> list[Decision]:
    """Reject ``task_ids`` or replace ``tasks``: one decision per request that covers them."""
    named = [task.id for task in tasks] if tasks else list(task_ids)
    edits = {task.id: task for task in tasks}
    return [
        Decision(
            request_id=owner,
            kind=kind,
            reviewer=reviewer,
            task_ids=ids if kind == "reject_tasks" else [],
            tasks=[edits[task_id] for task_id in ids] if edits else None,
            reason=reason,
        )
        for owner, ids in _by_request(requests, kind, named, request_id, thread).items()
    ]


_VERBS: dict[str, str] = {
    "approve": "approved",
    "edit_plan": "edited the plan of",
    "edit_tasks": "edited {tasks} in",
    "reject_tasks": "rejected {tasks} in",
    "edit_answer": "edited the answer of",
    "reject": "rejected",
    "respond": "responded to",
}


def describe(decision: Decision, requests: Sequence[AnyReviewRequest]) -> str:
    """One line saying what a decision did, e.g. ``alice rejected q1, q2 in plan review 3f..``."""
    kind = next((kind_label(r.kind) for r in requests if r.id == decision.request_id), "")
    touched = decision.task_ids or [task.id for task in decision.tasks or []]
    verb = _VERBS[decision.kind].format(tasks=", ".join(touched))
    reason = f": {decision.reason}" if decision.reason else ""
    plan = f" ({len(decision.plan.tasks)} tasks)" if decision.plan is not None else ""
    return f"{decision.reviewer} {verb} {kind} {decision.request_id}{plan}{reason}"
