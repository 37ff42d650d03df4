"""The team state: one TypedDict with its reducers declared on it.

| key            | reducer                                     |
|----------------|---------------------------------------------|
| messages       | append (merged by message id), bounded      |
| tasks          | keyed by task id; a :class:`TaskReplacement` replaces the whole list |
| worker_results | keyed by task id: a retry replaces, never duplicates |
| memory_writes  | append, unique by fact id                    |
| audit          | append, unique by entry id (human review decisions) |
| policy_audit   | append, unique by entry id (policy decisions other than allow) |
| usage          | keyed by node execution: what each used (calls, tokens, waits) |
| rejections     | keyed by task id: why a reviewer rejected it |
| metrics        | merge per key, summing                       |
| everything else| overwrite                                    |
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, Protocol, TypedDict, TypeVar

from langchain_core.messages import AnyMessage, BaseMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel

from framework.engine.records import MemoryFact, Plan, Record, ReviewVerdict, Task, WorkerResult
from framework.engine.routing import ControlSignal
from framework.policy.records import PolicyEntry, UsageRecord
from framework.review.records import AuditEntry

__all__ = [
    "MESSAGE_LIMIT",
    "GovernedState",
    "ResultReplacement",
    "TaskReplacement",
    "TeamState",
    "append_unique",
    "append_unique_facts",
    "bounded_messages",
    "merge_by_id",
    "merge_results",
    "merge_sum",
    "merge_tasks",
    "to_jsonable",
]

MESSAGE_LIMIT = 200
"""How many messages a team keeps; older ones are summarised by the aggregator, not kept."""


class TaskReplacement(Record):
    """A write to ``tasks`` that replaces the whole task list (a re-plan) instead of merging."""

    tasks: dict[str, Task]


class ResultReplacement(Record):
    """A write to ``worker_results`` that replaces them all (a re-plan drops the old ones)."""

    results: dict[str, WorkerResult]


def bounded_messages(limit: int) -> Callable[[list[AnyMessage], Any], list[AnyMessage]]:
    """An append reducer merged by message id that keeps only the last ``limit`` messages."""

    def reduce(current: list[AnyMessage], update: Any) -> list[AnyMessage]:
        merged: list[AnyMessage] = add_messages(current or [], update)  # type: ignore[arg-type,assignment]
        return merged[-limit:]

    return reduce


def merge_by_id(current: Mapping[str, Any] | None, update: Mapping[str, Any]) -> dict[str, Any]:
    """Merge an update into a dict keyed by id: a new value for an id replaces the old one."""
    return {**(current or {}), **update}


def merge_results(
    current: Mapping[str, WorkerResult] | None,
    update: Mapping[str, WorkerResult] | ResultReplacement,
) -> dict[str, WorkerResult]:
    """Worker results keyed by task id: a retry replaces; a :class:`ResultReplacement` resets."""
    if isinstance(update, ResultReplacement):
        return dict(update.results)
    return {**(current or {}), **update}


def merge_tasks(
    current: Mapping[str, Task] | None,
    update: Mapping[str, Task] | TaskReplacement | Iterable[Task],
) -> dict[str, Task]:
    """Tasks keyed by id: a mapping or list merges, a :class:`TaskReplacement` replaces all."""
    if isinstance(update, TaskReplacement):
        return dict(update.tasks)
    if isinstance(update, Mapping):
        return {**(current or {}), **update}
    return {**(current or {}), **{task.id: task for task in update}}


def merge_sum(current: Mapping[str, float] | None, update: Mapping[str, float]) -> dict[str, float]:
    """Merge counters per key by summing."""
    merged = dict(current or {})
    for key, value in update.items():
        merged[key] = merged.get(key, 0) + value
    return merged


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


_Item = TypeVar("_Item", bound=_Identified)


def append_unique(current: list[_Item] | None, update: Iterable[_Item]) -> list[_Item]:
    """Append items, skipping any whose id is already present (a subgraph hands its list back
    to its parent whole, so the parent sees its own items again)."""
    items = list(current or [])
    seen = {item.id for item in items}
    for item in update:
        if item.id not in seen:
            seen.add(item.id)
            items.append(item)
    return items


def append_unique_facts(
    current: list[MemoryFact] | None, update: Iterable[MemoryFact]
) -> list[MemoryFact]:
    """Append facts, skipping any whose id is already present (a subgraph may hand them back)."""
    return append_unique(current, update)


class GovernedState(TypedDict, total=False):
    """What the policy layer records in any team's state: its audit trail and the usage of
    every node execution. Team states inherit it, so nothing a policy decided is dropped."""

    policy_audit: Annotated[list[PolicyEntry], append_unique]
    usage: Annotated[dict[str, UsageRecord], merge_by_id]


class TeamState(GovernedState, total=False):
    """The state of a planner-workers-reviewer team."""

    question: str
    messages: Annotated[list[AnyMessage], bounded_messages(MESSAGE_LIMIT)]
    plan: Plan | None
    tasks: Annotated[dict[str, Task], merge_tasks]
    worker_results: Annotated[dict[str, WorkerResult], merge_results]
    consolidated: str
    rolling_summary: str
    last_changes: list[str]
    dispatch_id: str
    stable_rounds: int
    memory_writes: Annotated[list[MemoryFact], append_unique_facts]
    audit: Annotated[list[AuditEntry], append_unique]
    rejections: Annotated[dict[str, str], merge_by_id]
    metrics: Annotated[dict[str, float], merge_sum]
    reflection: ReviewVerdict | None
    iteration: int
    final_answer: str
    control_signal: ControlSignal


def to_jsonable(value: Any) -> Any:
    """A JSON-ready copy of a state value: records dumped, messages as role/name/content."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, BaseMessage):
        return {"type": value.type, "name": value.name, "content": value.content}
    if isinstance(value, Mapping):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set):
        return [to_jsonable(item) for item in value]
    return value
