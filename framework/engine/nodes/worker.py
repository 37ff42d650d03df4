"""The worker node: runs one task (its node's slot limiter holds the dispatch's cap); failures
become results.

A worker never raises a task's failure into the graph: in an async run that would cancel the
siblings and lose their work. Transient errors are retried first, as the retry policy names.
An outage (:class:`~framework.errors.OutageError`: a call that failed for a transient reason on
every try it was allowed) or a full disk (:class:`~framework.errors.StorageFullError`: nothing
can be saved) is no task's failure: it is raised, so the run stops where it is with what
finished kept, and ``cadre resume`` runs the task again once the cause has passed.
"""

from __future__ import annotations

from typing import Any

from langgraph.errors import GraphBubbleUp

from framework.engine.nodes.dispatcher import WorkerInput
from framework.engine.records import Task, WorkerResult
from framework.engine.retrying import RetryPolicy, acall_with_retry, call_with_retry
from framework.engine.roles import Worker
from framework.engine.runtime import NodeContext
from framework.errors import CryptoError, OutageError, PolicyDenied, StorageFullError

__all__ = ["WorkerBodies"]

_STOPS_THE_RUN = (GraphBubbleUp, CryptoError, OutageError, StorageFullError)
"""What a task raises that is no failure of its own: the run stops there, to resume."""


class WorkerBodies:
    """The sync and async bodies of the worker node for one worker role."""

    def __init__(self, role: Worker, retry: RetryPolicy | None = None) -> None:
        self.role = role
        self.retry = retry

    def run(self, payload: WorkerInput, context: NodeContext) -> dict[str, Any]:
        """Run the task in a sync graph."""
        task = payload["task"]
        retries: list[int] = []
        context.emit("task_started", task_id=task.id, kind=task.kind)
        try:
            result = call_with_retry(
                self.retry,
                lambda: _validated(self.role.run(task, payload["question"], context)),
                retries.append,
            )
        except _STOPS_THE_RUN:  # a pause, data not to read past, an outage or a full disk:
            raise  # the run stops, to resume
        except Exception as error:
            result = failed_result(task, error)
        return self._update(task, result, len(retries), context)

    async def arun(self, payload: WorkerInput, context: NodeContext) -> dict[str, Any]:
        """Run the task in an async graph."""
        task = payload["task"]
        retries: list[int] = []

        async def attempt() -> WorkerResult:
            return _validated(await self.role.arun(task, payload["question"], context))

        context.emit("task_started", task_id=task.id, kind=task.kind)
        try:
            result = await acall_with_retry(self.retry, attempt, retries.append)
        except _STOPS_THE_RUN:  # a pause, data not to read past, an outage or a full disk:
            raise  # the run stops, to resume
        except Exception as error:
            result = failed_result(task, error)
        return self._update(task, result, len(retries), context)

    @staticmethod
    def refused(payload: WorkerInput, reason: str) -> dict[str, Any]:
        """The update of a task a policy refused before it ran: a failed result with the reason."""
        task = payload["task"]
        return {"worker_results": {task.id: failed_result(task, PolicyDenied(reason))}}

    @staticmethod
    def _update(
        task: Task, result: WorkerResult, retries: int, context: NodeContext
    ) -> dict[str, Any]:
        result, carried = result.carried()
        if result.task_id != task.id or result.attempt != task.attempt:
            result = result.model_copy(update={"task_id": task.id, "attempt": task.attempt})
        ok = result.status == "ok"
        context.emit(
            "task_done" if ok else "task_failed",
            task_id=task.id,
            kind=task.kind,
            error=result.error,
        )
        update: dict[str, Any] = {**carried, "worker_results": {task.id: result}}
        if retries:  # outcomes are counted by the aggregator: one write per task is cheaper
            update["metrics"] = {"retries": retries}
        return update


def _validated(result: Any) -> WorkerResult:
    """Validate a role's result inside the error handler: a bad one fails its task only."""
    return WorkerResult.model_validate(result)


def failed_result(task: Task, error: BaseException) -> WorkerResult:
    """The result of a task whose worker raised ``error``; a policy's refusal (of the task, or
    of a call in it) reads ``refused: <the policy and its reason>``."""
    refused = isinstance(error, PolicyDenied)
    return WorkerResult(
        task_id=task.id,
        status="failed",
        error=f"refused: {error}" if refused else f"{type(error).__name__}: {error}",
        attempt=task.attempt,
        refused=refused,
    )
