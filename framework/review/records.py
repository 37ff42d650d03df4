"""The records of human review: what a paused run asks, what a reviewer decides, what is kept.

A review point pauses a run with a typed request (:class:`PlanReview`, :class:`TaskReview`,
:class:`AnswerReview`, :class:`NodeReview`); a policy asks with a :class:`PolicyReview`, a remote
agent's free-text question with a :class:`QuestionReview`. A reviewer answers with a
:class:`Decision`;
the review point applies the decision and appends an :class:`AuditEntry` to the thread's state,
where it is checkpointed (and encrypted) with everything else.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, model_validator

from framework.engine.nesting import place
from framework.engine.records import Plan, Record, Task

__all__ = [
    "ALLOWED_DECISIONS",
    "REQUEST_ADAPTER",
    "AnswerReview",
    "AnyReviewRequest",
    "AuditEntry",
    "CheckpointSummary",
    "Decision",
    "DecisionKind",
    "NodeReview",
    "PlanReview",
    "PolicyReview",
    "QuestionReview",
    "ReviewKind",
    "ReviewRequest",
    "TaskReview",
    "pending_revision",
    "request_place",
]

ReviewKind = Literal["plan", "tasks", "answer", "node", "policy", "question"]
"""Where a run pauses: after the planner, before each task is dispatched, at the answer,
before a node the team names, where a policy asks a human, or where a remote agent asks a
question in free text."""

DecisionKind = Literal[
    "approve", "edit_plan", "edit_tasks", "reject_tasks", "edit_answer", "reject", "respond"
]
"""What a reviewer can decide."""

ALLOWED_DECISIONS: dict[ReviewKind, tuple[DecisionKind, ...]] = {
    "plan": ("approve", "edit_plan", "edit_tasks", "reject_tasks"),
    "tasks": ("approve", "reject_tasks", "edit_tasks"),
    "answer": ("approve", "edit_answer"),
    "node": ("approve",),
    "policy": ("approve", "reject"),
    "question": ("respond", "reject"),
}
"""The decisions each kind of request allows."""


class ReviewRequest(Record):
    """One open review request: a run paused at a review point, waiting for a decision.

    Attributes:
        id: The id of the interrupt that paused the run; a decision names it.
        kind: The kind of review point.
        thread_id: The thread that is paused.
        path: Where in the team hierarchy: the subgraph nodes and worker kinds it runs under,
            then its team (``["research_team", "research"]`` inside the MetaCoordinator,
            ``["deep", "leaf"]`` for team ``leaf`` behind the kind ``deep``).
        where: The same in words, with the team and task of each kind it runs under:
            ``team top > kind deep (task q0) > team leaf`` (empty in a request of an older
            cadre: read :attr:`place`).
        node: The review node (or the reviewed node) that paused.
        checkpoint_ns: The namespace of the graph that paused ("" at the top).
        allowed: The decisions this request accepts.
        task_kinds: The task kinds the team's workers take (empty: any); an edit that gives a
            task another kind is refused.
    """

    id: str = ""
    kind: ReviewKind
    thread_id: str = ""
    path: list[str] = Field(default_factory=list)
    where: str = ""
    node: str
    checkpoint_ns: str = ""
    allowed: list[DecisionKind] = Field(default_factory=list)
    task_kinds: list[str] = Field(default_factory=list)

    @property
    def place(self) -> str:
        """Where it is, for a reviewer: :attr:`where`, else the path (``top`` for none)."""
        return request_place({"where": self.where, "path": self.path})


class PlanReview(ReviewRequest):
    """The planner's plan and the tasks it set, before any of them is dispatched."""

    kind: Literal["plan"] = "plan"
    plan: Plan
    tasks: list[Task] = Field(default_factory=list)


class TaskReview(ReviewRequest):
    """One task about to be dispatched: approve it, edit it or reject it."""

    kind: Literal["tasks"] = "tasks"
    task: Task


class AnswerReview(ReviewRequest):
    """The answer the formatter wrote (``draft``) and the findings it wrote it from."""

    kind: Literal["answer"] = "answer"
    consolidated: str = ""
    draft: str = ""


class NodeReview(ReviewRequest):
    """A node the team asked to approve before it runs, with a one-line summary of its input."""

    kind: Literal["node"] = "node"
    summary: str = ""


class PolicyReview(ReviewRequest):
    """A policy asks a human whether a call may go on: approve it, or reject it (the call is
    refused with the reason).

    Attributes:
        policy: The policy that asks.
        hook: Where it asks (``before_tool``, ``before_node``...).
        target: What the call is about (a tool, a model, a node).
        question: The policy's question.
        summary: One line about the call (its arguments or input, shortened).
        task_id: The worker task the call runs in, if any.
    """

    kind: Literal["policy"] = "policy"
    policy: str
    hook: str
    target: str
    question: str
    summary: str = ""
    task_id: str | None = None


class QuestionReview(ReviewRequest):
    """A remote agent asks a question in free text (an A2A task left ``input-required``):
    respond with the text it is sent, or reject it (the task fails with the reason).

    Attributes:
        remote: Who asks: the remote, as failures name it (``a2a URL``).
        question: What it asks, as it said it.
        task_id: The worker task the remote runs.
    """

    kind: Literal["question"] = "question"
    remote: str
    question: str
    task_id: str


AnyReviewRequest = Annotated[
    PlanReview | TaskReview | AnswerReview | NodeReview | PolicyReview | QuestionReview,
    Field(discriminator="kind"),
]
"""Any review request, told apart by ``kind``."""

REQUEST_ADAPTER: TypeAdapter[AnyReviewRequest] = TypeAdapter(
    AnyReviewRequest, config=ConfigDict(defer_build=True)
)
"""Validates a request read back from an interrupt (built when it first does)."""

_NEEDS: dict[DecisionKind, str | None] = {
    "approve": None,
    "edit_plan": "plan",
    "edit_tasks": "tasks",
    "reject_tasks": "task_ids",
    "edit_answer": "answer",
    "reject": None,
    "respond": "response",
}


class Decision(Record):
    """A reviewer's answer to one pending request.

    Attributes:
        request_id: The id of the request it answers.
        kind: What the reviewer decided.
        reviewer: Who decided; recorded in the audit trail.
        plan: The edited plan (``edit_plan``).
        tasks: The edited tasks, whole (``edit_tasks``).
        task_ids: The tasks to reject (``reject_tasks``; a task review may leave it empty to
            mean its own task).
        reason: Why; the team's reviewer role sees the reason of a rejection.
        answer: The edited answer (``edit_answer``).
        response: The text that answers a remote's question (``respond``).
    """

    request_id: str = Field(min_length=1)
    kind: DecisionKind
    reviewer: str = Field(min_length=1)
    plan: Plan | None = None
    tasks: list[Task] | None = None
    task_ids: list[str] = Field(default_factory=list)
    reason: str = ""
    answer: str | None = None
    response: str | None = None

    @model_validator(mode="after")
    def _carries_what_its_kind_needs(self) -> Decision:
        needed = _NEEDS[self.kind]
        given = {
            name
            for name in ("plan", "tasks", "answer", "response")
            if getattr(self, name) is not None and name != needed
        }
        if self.task_ids and self.kind != "reject_tasks":
            given.add("task_ids")
        if given:
            raise ValueError(f"{self.kind} carries no {', '.join(sorted(given))}: leave it out")
        if needed in ("plan", "answer") and getattr(self, needed) is None:
            raise ValueError(f"{self.kind} needs the edited {needed}")
        if needed == "tasks" and not self.tasks:
            raise ValueError("edit_tasks needs the edited tasks")
        if self.answer is not None and not self.answer.strip():
            raise ValueError("edit_answer needs a non-empty answer")
        if needed == "response" and not (self.response or "").strip():
            raise ValueError("respond needs a non-empty response: the text the remote is sent")
        return self


class AuditEntry(Record):
    """One applied decision, as kept in the thread's audit trail.

    Attributes:
        request_id: The request it answered.
        request_kind: The kind of that request.
        decision_kind: What was decided.
        reviewer: Who decided.
        at: When it was applied, ISO 8601 UTC.
        path: Where in the team hierarchy (as the request's ``path``).
        where: The same in words (as the request's ``where``; empty in an older entry).
        diff: A unified diff of what changed (JSON of records, lines of text); empty for an
            approval.
        reason: The reviewer's reason, if any.
        response: The text a ``respond`` sent the remote that asked.
    """

    request_id: str
    request_kind: ReviewKind
    decision_kind: DecisionKind
    reviewer: str
    at: str
    path: list[str] = Field(default_factory=list)
    where: str = ""
    diff: str = ""
    reason: str = ""
    response: str = ""

    @property
    def id(self) -> str:
        """A stable id: a subgraph handing the trail back to its parent adds no duplicate."""
        key = "\x1f".join((self.request_id, self.decision_kind, self.reviewer, self.at))
        return hashlib.sha256(key.encode()).hexdigest()[:16]


class CheckpointSummary(Record):
    """One checkpoint of a thread, as :func:`framework.review.history` lists it.

    Attributes:
        checkpoint_id: The checkpoint's id (pass it to ``fork``).
        checkpoint_ns: Its graph's namespace ("" at the top, ``research_team:<task>`` inside).
        step: The step of its graph that wrote it (-1 for the input).
        node: What wrote it: the nodes of that step, ``input`` or ``update``.
        created_at: When it was written, ISO 8601.
        summary: One line about the state it holds.
        place: Where its graph runs, as every surface writes a place (``team top > kind deep
            (task q0) > team leaf``, ``node research_team``); empty for the top graph when its
            team is not known.
    """

    checkpoint_id: str
    checkpoint_ns: str = ""
    step: int
    node: str
    created_at: str
    summary: str
    place: str = ""


def request_place(request: Mapping[str, Any]) -> str:
    """:attr:`ReviewRequest.place` of a request read as JSON (an interrupt's value)."""
    return place(str(request.get("where") or ""), request.get("path") or ())


def pending_revision(requests: Sequence[ReviewRequest]) -> str:
    """A short fingerprint of a thread's pending requests: a decision taken against it names
    what its reviewer saw, and is refused once the pending set changed."""
    ids = "\n".join(sorted(request.id for request in requests))
    return hashlib.sha256(ids.encode()).hexdigest()[:10]
