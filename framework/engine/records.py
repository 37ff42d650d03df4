"""The records that travel in a team's state: small, validated, versioned pydantic models.

A human edit or a model's structured output goes through these models before it enters the
state, so a bad value is refused with the validation errors instead of corrupting a run.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "SCHEMA_VERSION",
    "Evidence",
    "Finding",
    "MemoryFact",
    "Plan",
    "Provenance",
    "Record",
    "ReviewDecision",
    "ReviewVerdict",
    "SourceError",
    "Task",
    "TaskStatus",
    "UsageRecord",
    "WorkerResult",
]

SCHEMA_VERSION = 1
"""Version of the persisted record shapes; bump it with a migration when a shape changes."""

TaskStatus = Literal["pending", "running", "done", "failed", "rejected"]
ReviewDecision = Literal["dispatch", "retry_workers", "revise_plan", "finish"]


class Record(BaseModel):
    """Base of every persisted record: frozen, strict about unknown keys, versioned.

    Each record's validator is built when it first validates (``defer_build``), so a command
    that reads a few records does not build them all as it imports.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    schema_version: int = SCHEMA_VERSION


class Task(Record):
    """One unit of work for a worker."""

    id: str = Field(min_length=1)
    description: str = Field(min_length=1)
    kind: str = "search"
    inputs: dict[str, Any] = Field(default_factory=dict)
    status: TaskStatus = "pending"
    attempt: int = Field(default=0, ge=0)


class Evidence(Record):
    """A passage or tool output a worker relied on."""

    source: str
    text: str
    score: float = 0.0
    disputed: bool = False
    """Another source's rival answer (another value where one is asked, supported as well as
    the answer): reported as a disagreement, never as a finding."""


class UsageRecord(Record):
    """What one node execution used, as kept in the thread's state (keyed by the execution, so
    a subgraph handing its state back counts nothing twice).

    Attributes:
        team: The team of the node.
        path: Where in the hierarchy (subgraph nodes, then the team).
        task_id: The worker task, if the node ran one.
        within: The tasks of the teams above that the node's team ran in, outermost first.
        counts: ``model_calls``, ``tool_calls``, ``input_tokens``, ``output_tokens``,
            ``input_tokens@MODEL``, ``output_tokens@MODEL``, ``wait_s``, and what policies
            added (a budget's grants).
    """

    team: str
    path: list[str] = Field(default_factory=list)
    task_id: str | None = None
    within: list[str] = Field(default_factory=list)
    counts: dict[str, float] = Field(default_factory=dict)


class WorkerResult(Record):
    """The outcome of one task. A failed task is a result too: siblings never lose theirs."""

    task_id: str
    status: Literal["ok", "failed"]
    output: str = ""
    evidence: list[Evidence] = Field(default_factory=list)
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    error: str | None = None
    attempt: int = Field(default=0, ge=0)
    usage: dict[str, UsageRecord] = Field(default_factory=dict)
    """What the worker execution used under policies, keyed by the execution, until the
    aggregator files it in the team's ``usage`` (one state write per task instead of two)."""
    refused: bool = False
    """A policy or a reviewer refused the task (the reason in ``error``): running it again
    would change nothing, so it is not retried."""

    def carried(self) -> tuple[WorkerResult, dict[str, Any]]:
        """This result as the team's state keeps it, and what else its task writes to that
        state: nothing here; a nested team's decisions (see
        :class:`~framework.engine.team_worker.TeamResult`)."""
        return self, {}


class Plan(Record):
    """What the planner decided: tasks to run, or a direct answer."""

    goal: str
    tasks: list[Task] = Field(default_factory=list)
    direct_answer: str | None = None
    rationale: str = ""


class ReviewVerdict(Record):
    """The reviewer's decision after a round of work, with the tasks it touches."""

    decision: ReviewDecision
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    reasons: list[str] = Field(default_factory=list)
    retry_task_ids: list[str] = Field(default_factory=list)
    retry_inputs: dict[str, dict[str, Any]] = Field(default_factory=dict)
    new_tasks: list[Task] = Field(default_factory=list)
    forced_by: str | None = None


class Provenance(Record):
    """Where a fact came from: the thread, checkpoint and task that produced it, and its source."""

    thread_id: str | None = None
    checkpoint_id: str | None = None
    task_id: str | None = None
    source: str | None = None


class MemoryFact(Record):
    """A durable subject-predicate-object statement with its provenance."""

    subject: str
    predicate: str
    object: str
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    provenance: Provenance = Field(default_factory=Provenance)

    @property
    def id(self) -> str:
        """A stable id: the same statement from the same source is the same fact."""
        key = "\x1f".join((self.subject, self.predicate, self.object, self.provenance.source or ""))
        return hashlib.sha256(key.encode()).hexdigest()[:16]


class Finding(Record):
    """What an assessment phase noticed about a run: a weak source, an uncited claim, ..."""

    phase: str
    severity: Literal["info", "warning", "error"]
    message: str
    task_id: str | None = None
    source: str | None = None


class SourceError(Record):
    """A source (a search tool) that failed on a query; the run goes on without its evidence."""

    source: str
    query: str
    error: str
