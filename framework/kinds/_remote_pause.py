"""A remote's review pause as this run's own, for the remote worker kinds.

A remote that pauses for a cadre review (a remote graph's interrupt, an A2A agent's
``input-required`` task carrying typed requests) pauses this run with the same requests, their
path and place put under this run's task (:func:`remote_request`); a remote that asks in free
text pauses it with a question review placed the same way (:func:`question_request`). When this
run is resumed, LangGraph runs the worker node again from its start and tells it the decisions
made here (:data:`RESUME_KEYS`); a worker that cannot name the remote's paused work from its
task alone reads the pauses its task left in this run's checkpoint (:func:`paused_with`). The
keys read here are LangGraph's own configurable keys (langgraph 1.2): it offers no public way to
them.

Private to :mod:`framework.kinds`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.config import get_config
from langgraph.runtime import get_runtime
from langgraph.types import Interrupt

from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.review import decision_entry
from framework.review.records import (
    ALLOWED_DECISIONS,
    AnswerReview,
    AuditEntry,
    Decision,
    NodeReview,
    PlanReview,
    PolicyReview,
    QuestionReview,
    ReviewRequest,
    TaskReview,
)

__all__ = [
    "INTERRUPT",
    "NO_THREAD",
    "RESUME_KEYS",
    "decided_here",
    "node_configurable",
    "paused_with",
    "question_request",
    "remote_request",
    "resume_map",
]

RESUMING = "__pregel_resuming"
RESUME_MAP = "__pregel_resume_map"
RESUME_KEYS = (RESUMING, RESUME_MAP)
"""What LangGraph tells a node that runs again to answer a pause: that it resumes, and the
decisions by interrupt id (``{id: decision}``, every pause's of the run)."""
CHECKPOINTER = "__pregel_checkpointer"
"""The node's configurable key holding the run's checkpointer."""
INTERRUPT = "__interrupt__"
"""The key of the pauses in a graph's final state, and the channel of a task's pauses in its
checkpoint's pending writes."""
NO_THREAD = (
    "paused for a review, which a run without a thread cannot answer: run this team on a "
    "thread (a checkpointer)"
)
"""Why a remote's pause fails a run without a thread (after ``the graph``, ``the agent``)."""
REQUESTS: dict[str, type[ReviewRequest]] = {
    str(model.model_fields["kind"].default): model
    for model in (PlanReview, TaskReview, AnswerReview, NodeReview, PolicyReview, QuestionReview)
}
"""cadre's review requests by kind: what a remote pause's value is read as."""


def remote_request(
    value: Any, context: NodeContext, task: Task, remote: str
) -> dict[str, Any] | None:
    """A remote's pause as this run shows it: a cadre review request keeps its own fields, its
    path and place under this run's task (``team top > kind pricing (task q0) > REMOTE > team
    research``, ``remote`` naming the remote); None for any other value."""
    model = REQUESTS.get(str(value.get("kind"))) if isinstance(value, Mapping) else None
    if model is None:
        return None
    request = {key: value[key] for key in model.model_fields if key in value}
    return _placed(request, context, task, remote)


def _placed(
    request: dict[str, Any], context: NodeContext, task: Task, remote: str
) -> dict[str, Any]:
    """``request`` with its path and place put under this run's task and the remote."""
    here = context.nested(task, remote)
    request["path"] = [*here.path, *request.get("path", [])]
    remote_place = str(request.get("where") or "")
    request["where"] = " > ".join(p for p in (here.where, remote, remote_place) if p)
    return request


def question_request(
    question: str, context: NodeContext, task: Task, remote: str
) -> dict[str, Any]:
    """A remote's question in free text as this run's question review, placed as
    :func:`remote_request` places a remote's request (``... (task q0) > REMOTE``)."""
    asked = {
        "kind": "question",
        "remote": remote,
        "question": question,
        "task_id": task.id,
        "node": context.node,
        "checkpoint_ns": context.checkpoint_ns,
        "allowed": list(ALLOWED_DECISIONS["question"]),
    }
    return _placed(asked, context, task, remote)


def decided_here(
    pauses: list[Interrupt], context: NodeContext, task: Task, remote: str
) -> list[AuditEntry]:
    """The audit entries of the decisions this run was resumed with on the remote's requests
    among ``pauses`` (what :func:`remote_request` made of them): a remote's pause is decided
    here, so this run's audit trail keeps the decision, as it keeps a nested team's."""
    resume = resume_map()
    place = f"{context.nested(task, remote).where} > {remote}"
    entries = []
    for pause in pauses:
        value, decision = pause.value, resume.get(pause.id)
        if not isinstance(value, Mapping) or not str(value.get("where", "")).startswith(place):
            continue  # not the remote's: a policy's ask in this task is audited where it asks
        if isinstance(decision, Mapping) and "kind" in decision:
            request = REQUESTS[str(value["kind"])].model_validate({**value, "id": pause.id})
            entries.append(decision_entry(request, Decision.model_validate(decision)))
    return entries


def node_configurable() -> Mapping[str, Any]:
    """The configurable of the node running now (empty outside a graph)."""
    try:
        config = get_config()
    except RuntimeError:
        return {}
    return config.get("configurable") or {}


def resume_map() -> Mapping[str, Any]:
    """The decisions the run was resumed with, by interrupt id (empty on a first run)."""
    return node_configurable().get(RESUME_MAP) or {}


async def paused_with(context: NodeContext) -> list[Interrupt]:
    """The pauses this node's task left when it ran before, read from the checkpoint its step
    started from (none unless the run resumes: a first run, or a run without a thread)."""
    configurable = node_configurable()
    saver = configurable.get(CHECKPOINTER)
    if not configurable.get(RESUMING) or not isinstance(saver, BaseCheckpointSaver):
        return []
    run = get_runtime().execution_info
    if run is None:
        return []
    at = {"thread_id": run.thread_id, "checkpoint_ns": context.checkpoint_ns}
    saved = await saver.aget_tuple({"configurable": {**at, "checkpoint_id": run.checkpoint_id}})
    writes = (saved.pending_writes if saved is not None else None) or []
    return [
        pause
        for task_id, channel, pauses in writes
        if task_id == run.task_id and channel == INTERRUPT
        for pause in pauses
    ]
