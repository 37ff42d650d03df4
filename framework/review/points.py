"""The review points: node bodies that pause the run with LangGraph's ``interrupt()``.

Each body builds a typed request, pauses with it (a dynamic interrupt: it carries an id and
surfaces through subgraphs), and on resume applies the decision it is given and appends an
audit entry. A body reruns from its start on resume, so everything before ``interrupt()`` is a
pure function of its input. The builder wraps these bodies in team nodes, so middleware and
telemetry see them like any other node.

* ``plan_review`` runs after the planner, on the dispatch route;
* ``task_review`` runs once per pending task (one ``Send`` each) before the dispatcher, so
  several requests are pending at once;
* ``answer_review`` runs after the formatter, on the answer it wrote;
* :func:`reviewed` wraps any node so that it asks for approval before its body runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypedDict, get_args

from langgraph.types import Send, interrupt

from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState
from framework.errors import ConfigError
from framework.review._apply import apply_decision, decision_entry
from framework.review._rules import check_decision, parse_decision
from framework.review._summary import input_summary
from framework.review.records import (
    ALLOWED_DECISIONS,
    AnswerReview,
    Decision,
    NodeReview,
    PlanReview,
    ReviewKind,
    ReviewRequest,
    TaskReview,
)

__all__ = [
    "REVIEW_NODES",
    "REVIEW_POINTS",
    "TaskReviewInput",
    "answer_review_body",
    "areviewed",
    "ask",
    "check_review_settings",
    "plan_review_body",
    "review_fields",
    "review_path",
    "reviewed",
    "route_to_task_reviews",
    "task_review_body",
]

REVIEW_NODES: dict[ReviewKind, str] = {
    "plan": "plan_review",
    "tasks": "task_review",
    "answer": "answer_review",
}
"""The node each review point adds to a team's graph."""

REVIEW_POINTS: tuple[ReviewKind, ...] = tuple(
    kind for kind in get_args(ReviewKind) if kind not in ("node", "policy", "question")
)
"""The review points a team turns on by kind (a node review names its nodes instead; a policy
asks where it decides, a remote agent when it asks a question)."""


def check_review_settings(
    review: Iterable[str], nodes: Iterable[str], known_nodes: Iterable[str]
) -> None:
    """Refuse unknown review points and review nodes that name none of ``known_nodes``.

    Raises:
        ConfigError: Naming the bad value and the ones there are.
    """
    if isinstance(review, str) or isinstance(nodes, str):
        raise ConfigError(
            "review and review_nodes take collections of names, not one string: "
            "review=frozenset({'plan'}), review_nodes=('memory_curator',)"
        )
    for kind in review:
        if kind == "node":
            raise ConfigError(
                "review point 'node' is not turned on by kind: name the nodes to approve in "
                "review_nodes=(...)"
            )
        if kind == "policy":
            raise ConfigError(
                "review point 'policy' is not turned on by kind: a policy asks a human by "
                "answering ask() at its hook"
            )
        if kind not in REVIEW_POINTS:
            raise ConfigError(
                f"unknown review point {kind!r}: choose among {', '.join(REVIEW_POINTS)}"
            )
    known = list(known_nodes)
    unknown = sorted(set(nodes) - set(known))
    if unknown:
        raise ConfigError(f"review_nodes {unknown} name no node of a team: choose from {known}")


class TaskReviewInput(TypedDict):
    """What one ``Send`` carries to a task review."""

    task: Task


def review_path(context: NodeContext) -> list[str]:
    """The subgraph nodes and worker kinds a node runs under, then its team:
    ``["research_team", "research"]`` (see :meth:`NodeContext.path`)."""
    return context.path()


def review_fields(
    kind: ReviewKind, context: NodeContext, task_kinds: Iterable[str] = ()
) -> dict[str, Any]:
    """The fields every request raised in ``context`` carries: thread, path and where, node,
    allowed."""
    return {
        "thread_id": context.thread_id or "",
        "path": review_path(context),
        "where": context.where(),
        "node": context.node,
        "checkpoint_ns": context.checkpoint_ns,
        "allowed": list(ALLOWED_DECISIONS[kind]),
        "task_kinds": sorted(task_kinds),
    }


def ask(request: ReviewRequest, context: NodeContext) -> Decision:
    """Pause the run with ``request``; on resume, return the decision it was given.

    The request's id is the interrupt's, which LangGraph assigns: readers get it from the
    pending interrupt (:func:`framework.review.pending`).

    Raises:
        ReviewError: The run was resumed with a value that is no valid decision for the
            request (the review API checks this before resuming; a raw ``Command`` may not).
    """
    decision = parse_decision(interrupt(request.model_dump(mode="json")))
    check_decision(request, decision)
    context.emit(
        "decided",
        request_kind=request.kind,
        decision=decision.kind,
        reviewer=decision.reviewer,
        request_id=decision.request_id,
    )
    return decision


def plan_review_body(
    state: TeamState, context: NodeContext, task_kinds: Iterable[str] = ()
) -> dict[str, Any]:
    """Pause for a review of the plan; apply the decision. ``task_kinds``: the kinds the
    team's workers take (an edit to another kind is refused; none: any)."""
    plan = state.get("plan")
    if plan is None:  # the planner routes here only with a plan: nothing to review
        return {}
    tasks = list((state.get("tasks") or {}).values())
    request = PlanReview(plan=plan, tasks=tasks, **review_fields("plan", context, task_kinds))
    return apply_decision(request, ask(request, context), state)


def task_review_body(
    payload: TaskReviewInput, context: NodeContext, task_kinds: Iterable[str] = ()
) -> dict[str, Any]:
    """Pause for a review of one task about to be dispatched; apply the decision (see
    :func:`plan_review_body` for ``task_kinds``)."""
    request = TaskReview(task=payload["task"], **review_fields("tasks", context, task_kinds))
    return apply_decision(request, ask(request, context))


def answer_review_body(state: TeamState, context: NodeContext) -> dict[str, Any]:
    """Pause for a review of the answer the formatter wrote; apply the decision."""
    request = AnswerReview(
        consolidated=state.get("consolidated", ""),
        draft=state.get("final_answer", ""),
        **review_fields("answer", context),
    )
    return apply_decision(request, ask(request, context), state)


def route_to_task_reviews(review: str, dispatcher: str) -> Callable[[TeamState], Any]:
    """A router into the dispatcher: one ``Send`` to ``review`` per pending task, or straight
    to ``dispatcher`` when no task is pending."""

    def route(state: TeamState) -> list[Send] | str:
        sends = [
            Send(review, TaskReviewInput(task=task))
            for task in (state.get("tasks") or {}).values()
            if task.status == "pending"
        ]
        return sends or dispatcher

    return route


def _node_review(value: Any, context: NodeContext) -> dict[str, Any]:
    """Ask to approve the context's node on ``value``; the audit entry of the approval."""
    request = NodeReview(summary=input_summary(value), **review_fields("node", context))
    return {"audit": [decision_entry(request, ask(request, context))]}


def _with_audit(update: Any, approval: dict[str, Any]) -> Any:
    if isinstance(update, dict):
        return {**update, "audit": [*update.get("audit", []), *approval["audit"]]}
    return update


def reviewed(body: Callable[[Any, NodeContext], Any]) -> Callable[[Any, NodeContext], Any]:
    """``body`` behind an approval: the node pauses with a :class:`NodeReview` first."""

    def run(value: Any, context: NodeContext) -> Any:
        approval = _node_review(value, context)
        return _with_audit(body(value, context), approval)

    return run


def areviewed(
    body: Callable[[Any, NodeContext], Awaitable[Any]],
) -> Callable[[Any, NodeContext], Awaitable[Any]]:
    """Async form of :func:`reviewed`."""

    async def run(value: Any, context: NodeContext) -> Any:
        approval = _node_review(value, context)
        return _with_audit(await body(value, context), approval)

    return run
