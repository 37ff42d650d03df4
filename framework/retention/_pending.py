"""What a thread's latest checkpoint says it is doing, read from what LangGraph stores.

These are LangGraph 1.x storage conventions (private constants upstream), not an API (the nodes
due: :func:`framework.persistence.steps.next_nodes`): a task that raised or called
``interrupt()`` leaves an ``__error__`` or ``__interrupt__`` pending write on the checkpoint it
ran from (kept when the task, resumed, later finishes: its other writes then say it did).
``tests/test_retention.py`` checks them against ``get_state()`` for every status.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from framework.persistence.steps import next_nodes

if TYPE_CHECKING:
    from langgraph.checkpoint.base import Checkpoint

    from framework.persistence.reader import AnyCheckpointTuple

__all__ = ["PendingState", "ThreadState", "pending_state"]

ThreadState = Literal["interrupted", "paused", "failed", "done", "unreadable"]
"""What a thread is doing; see :class:`framework.retention.pruning.ThreadStatus`."""

_ERROR = "__error__"
_INTERRUPT = "__interrupt__"
_RESUME = "__resume__"
_SIGNALS = (_ERROR, _INTERRUPT, _RESUME)
"""Writes that say how a task went, not what it produced."""


@dataclass(frozen=True, kw_only=True)
class PendingState:
    """What a latest checkpoint waits for."""

    state: ThreadState
    next_nodes: tuple[str, ...]
    interrupts: int = 0
    error: str | None = None


def _count(value: Any) -> int:
    return len(value) if isinstance(value, list | tuple) else 1


def pending_state(
    latest: AnyCheckpointTuple, newest: AnyCheckpointTuple | None = None
) -> PendingState:
    """The state of a thread from its latest top-level checkpoint and its pending writes: an
    error write fails it, an interrupt pauses it, due nodes leave it interrupted, a run whose
    every task failed is failed, else done.

    ``newest``: the thread's newest checkpoint in any namespace. A top-level interrupt stays
    written while a subteam goes on after its review was decided; when the process stopped
    there (killed mid-dispatch), the subteam's newest checkpoint has work due and no
    interrupt: the thread is interrupted (resume it), not paused."""
    if newest is not None and newest is not latest and _decided_and_stopped(newest):
        return PendingState(state="interrupted", next_nodes=next_nodes(latest.checkpoint))
    writes = latest.pending_writes or []
    errors = [str(value) for _, channel, value in writes if channel == _ERROR]
    finished = {task for task, channel, _ in writes if channel not in _SIGNALS}
    interrupts = sum(
        _count(value)
        for task, channel, value in writes
        if channel == _INTERRUPT and task not in finished  # decided, then done: not waiting
    )
    due = next_nodes(latest.checkpoint)
    if errors:
        return PendingState(
            state="failed", next_nodes=due, interrupts=interrupts, error="; ".join(errors)
        )
    if interrupts:
        return PendingState(state="paused", next_nodes=due, interrupts=interrupts)
    if not due and (failed := _all_failed(latest.checkpoint)):
        return PendingState(state="failed", next_nodes=due, error=failed)
    return PendingState(state="interrupted" if due else "done", next_nodes=due)


def _all_failed(checkpoint: Checkpoint) -> str | None:
    """Why a finished run failed when every task it ran failed, not all of them refused (its
    answer rests on no evidence, and ``cadre run`` exits 1 for it); None otherwise."""
    results = checkpoint["channel_values"].get("worker_results") or {}
    if not isinstance(results, dict) or not results:
        return None
    statuses = [_field(result, "status") for result in results.values()]
    if any(status != "failed" for status in statuses):
        return None
    failed = [result for result in results.values() if not _field(result, "refused")]
    if not failed:  # every task refused by a person or a policy: a decision, not a fault
        return None
    first = failed[0]
    return f"all {len(results)} task(s) failed (task {_field(first, 'task_id')}: " + (
        f"{_field(first, 'error')})"
    )


def _field(record: Any, name: str) -> Any:
    """A field of a record as the reader gives it back: the record, or its stored mapping."""
    return record.get(name) if isinstance(record, dict) else getattr(record, name, None)


def _decided_and_stopped(newest: AnyCheckpointTuple) -> bool:
    """Whether a subgraph's newest checkpoint has work due and waits for no review."""
    writes = newest.pending_writes or []
    if any(channel in (_INTERRUPT, _ERROR) for _, channel, _ in writes):
        return False
    return bool(next_nodes(newest.checkpoint))
