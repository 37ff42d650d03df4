"""Batched dispatch: one Pregel task runs many tasks of a dispatch, each saved as it ends.

LangGraph spends about as much per Pregel task (its preparation, run config and future, and the
step's pending writes listed again as each task ends) as a short task takes, and that cost grows
with the fan-out (docs/benchmarks/fanout.md). A dispatch of more tasks than the team's
``dispatch_batch`` sends them to the worker node in batches of at most that many: the node runs
a batch's tasks concurrently, each through the same slot of the dispatch's cap, drain admission,
middleware (its own span, its own policy calls) and body as a task sent alone.

Each task's update is saved in the checkpointer as the task ends, in the batch's ledger
(:mod:`framework.engine.ledger`; in an async run, the tasks that end while one save is being
written go together in the next). When a run resumes in the step a batch was cut short in (a
kill, a stop, an outage), the batch runs only the tasks the ledger does not hold. A batch never
cancels its tasks for one that raised: it waits for the others (saving each), then raises the
first error, so what can finish is kept.

Tasks a worker may pause in (``interrupt()``: remote kinds, nested teams, approvals, a policy
that asks a human) are never batched: the resume values of two pauses in one Pregel task could
not be told apart. They are sent one by one, as before.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import get_executor_for_config
from langgraph.types import Command

from framework.engine.ledger import TaskLedger
from framework.engine.records import Task

__all__ = [
    "WorkerBatch",
    "arun_batch",
    "batches",
    "is_batch",
    "may_pause",
    "run_batch",
]


class WorkerBatch(TypedDict):
    """What one ``Send`` carries to a worker when it carries several tasks."""

    batch: list[Task]
    question: str
    dispatch_id: str


def may_pause(worker: object, task: Task) -> bool:
    """Whether ``worker`` may pause in ``task``: what its ``may_pause(task)`` says; a worker
    without one may."""
    check = getattr(worker, "may_pause", None)
    return check is None or bool(check(task))


def is_batch(payload: Any) -> bool:
    """Whether a worker's input is a :class:`WorkerBatch` (else one task's ``WorkerInput``)."""
    return isinstance(payload, dict) and isinstance(payload.get("batch"), list)


def batches(tasks: Sequence[Task], size: int) -> list[list[Task]]:
    """``tasks`` in order, cut into as few batches of at most ``size`` as hold them, of sizes
    that differ by at most one."""
    count = -(-len(tasks) // size)
    share, extra = divmod(len(tasks), count)
    cut, start = [], 0
    for index in range(count):
        end = start + share + (index < extra)
        cut.append(list(tasks[start:end]))
        start = end
    return cut


def _payloads(batch: WorkerBatch) -> list[dict[str, Any]]:
    """The batch as the ``WorkerInput`` of each task, as if each were sent alone."""
    question, dispatch_id = batch["question"], batch["dispatch_id"]
    return [
        {"task": task, "question": question, "dispatch_id": dispatch_id} for task in batch["batch"]
    ]


class _GroupedSaves:
    """Saves the tasks of an async batch as they end: the tasks that end while a save is
    being written go together in the next one (one sealed write for many tasks)."""

    def __init__(self, ledger: TaskLedger) -> None:
        self._ledger = ledger
        self._waiting: dict[str, Any] = {}
        self._writing: asyncio.Future[None] | None = None

    def add(self, task_id: str, update: Any) -> None:
        """Queue a task's update; it is written without the task waiting for it."""
        if self._ledger.saver is None:
            return
        self._waiting[task_id] = update
        if self._writing is None or self._writing.done():
            self._writing = asyncio.ensure_future(self._write())

    async def _write(self) -> None:
        while self._waiting:
            group, self._waiting = self._waiting, {}
            await self._ledger.asave(group)

    async def flushed(self) -> None:
        """Return once every queued update is written (a failed write is only logged)."""
        if self._writing is not None:
            await self._writing


async def arun_batch(
    run_one: Callable[[Any, RunnableConfig], Awaitable[Any]],
    batch: WorkerBatch,
    config: RunnableConfig,
) -> list[Command[Any]]:
    """Run a batch's tasks concurrently with ``run_one`` (a task's whole node execution), each
    saved as it ends; the tasks saved before a resume are not run again."""
    ledger = TaskLedger.of(config)
    updates: dict[str, Any] = await ledger.adone()
    saves = _GroupedSaves(ledger)
    payloads = _payloads(batch)

    async def one(payload: dict[str, Any]) -> None:
        task_id = payload["task"].id
        update = await run_one(payload, config)
        updates[task_id] = update
        saves.add(task_id, update)

    running = [
        asyncio.ensure_future(one(payload))
        for payload in payloads
        if payload["task"].id not in updates
    ]
    try:
        if running:
            await asyncio.wait(running)
    except BaseException:  # the batch itself was cancelled: so are its tasks, and awaited
        for future in running:
            future.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        raise
    finally:
        await saves.flushed()
    _raise_first([_error_of(future) for future in running])
    return _merged([updates[payload["task"].id] for payload in payloads])


def _error_of(future: asyncio.Future[None]) -> BaseException | None:
    """What a task of the batch raised: a task cancelled on its own raises as cancelled."""
    return asyncio.CancelledError() if future.cancelled() else future.exception()


def run_batch(
    run_one: Callable[[Any, RunnableConfig], Any], batch: WorkerBatch, config: RunnableConfig
) -> list[Command[Any]]:
    """:func:`arun_batch` in a sync run: the tasks run on the run's executor threads."""
    ledger = TaskLedger.of(config)
    updates: dict[str, Any] = ledger.done()
    payloads = _payloads(batch)

    def one(payload: dict[str, Any]) -> None:
        task_id = payload["task"].id
        update = run_one(payload, config)
        ledger.save({task_id: update})
        updates[task_id] = update

    with get_executor_for_config(config) as executor:
        running = [
            executor.submit(one, payload)
            for payload in payloads
            if payload["task"].id not in updates
        ]
        concurrent.futures.wait(running)
    _raise_first([future.exception() for future in running])
    return _merged([updates[payload["task"].id] for payload in payloads])


def _raise_first(errors: Sequence[BaseException | None]) -> None:
    for error in errors:
        if error is not None:
            raise error


def _merged(updates: Sequence[Any]) -> list[Command[Any]]:
    """The batch's updates as the node's output: every task's results in one write, each
    task's other keys as its own update (applied by their reducers, in the tasks' order)."""
    results: dict[str, Any] = {}
    others: list[Command[Any]] = []
    for update in updates:
        rest = dict(update)
        part = rest.pop("worker_results", None)
        if isinstance(part, Mapping):
            results.update(part)
        elif part is not None:
            rest["worker_results"] = part
        if rest:
            others.append(Command(update=rest))
    return [Command(update={"worker_results": results}), *others]
