"""The dispatcher: selects unfinished tasks and fans them out, one ``Send`` per task, or per
batch of tasks when a dispatch has more than the team's batch size
(:mod:`framework.engine.batching`)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, Literal, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.types import Send

from framework.engine.batching import WorkerBatch, batches
from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState

__all__ = ["WorkerInput", "dispatcher_body", "route_to_workers"]


class WorkerInput(TypedDict):
    """What one ``Send`` carries to a worker."""

    task: Task
    question: str
    dispatch_id: str


def dispatcher_body(state: TeamState, context: NodeContext) -> dict[str, Any]:
    """Mark every pending task as running under a new dispatch id."""
    selected = {
        task_id: task.model_copy(update={"status": "running"})
        for task_id, task in (state.get("tasks") or {}).items()
        if task.status == "pending"
    }
    context.emit("dispatch", task_ids=list(selected))
    return {
        "tasks": selected,
        "dispatch_id": uuid.uuid4().hex,
        "metrics": {"dispatches": 1, "tasks_dispatched": len(selected)},
    }


def route_to_workers(
    worker: str,
    aggregator: str,
    batch: int = 1,
    batchable: Callable[[Task], bool] | None = None,
) -> Any:
    """Return the router after the dispatcher: a ``Send`` per running task, or the aggregator.

    When more than ``batch`` running tasks are ``batchable``, those go in batches of at most
    ``batch`` tasks (one ``Send`` each); every other task still goes alone. A run whose config
    sets LangGraph's ``max_concurrency`` sends every task alone: that cap counts Pregel tasks.
    """

    def route(state: TeamState, config: RunnableConfig) -> list[Send] | Literal["aggregator"]:
        question = state.get("question", "")
        dispatch_id = state.get("dispatch_id", "")
        running = [task for task in (state.get("tasks") or {}).values() if task.status == "running"]
        grouped: list[Task] = []
        if (
            batchable is not None
            and len(running) > batch > 1
            and config.get("max_concurrency") is None
        ):
            grouped = [task for task in running if batchable(task)]
        if len(grouped) <= batch:
            grouped = []
        batched = {task.id for task in grouped}
        alone = [task for task in running if task.id not in batched]
        sends = [
            Send(worker, WorkerInput(task=task, question=question, dispatch_id=dispatch_id))
            for task in alone
        ]
        sends += [
            Send(worker, WorkerBatch(batch=tasks, question=question, dispatch_id=dispatch_id))
            for tasks in (batches(grouped, batch) if grouped else ())
        ]
        return sends or aggregator  # type: ignore[return-value]

    return route
