"""A thread's checkpoints, nested namespaces included, each with its step, node and summary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from langgraph.types import StateSnapshot

from framework.engine.nesting import nesting_at
from framework.review._pending import checkpointer_of, thread_config, unknown_thread
from framework.review._summary import pause_summary, state_summary
from framework.review.records import CheckpointSummary

__all__ = ["history"]


def _id(snapshot: StateSnapshot | None) -> str | None:
    if snapshot is None:
        return None
    return snapshot.config["configurable"].get("checkpoint_id")


def _parent_id(snapshot: StateSnapshot) -> str | None:
    parent = snapshot.parent_config
    return parent["configurable"].get("checkpoint_id") if parent is not None else None


def _writer(snapshot: StateSnapshot, next_of: Mapping[str | None, tuple[str, ...]]) -> str:
    """What wrote a checkpoint: the nodes of the step before it, or how it was put there."""
    source = (snapshot.metadata or {}).get("source", "loop")
    if source != "loop":
        return str(source)
    return ",".join(dict.fromkeys(next_of.get(_parent_id(snapshot), ()))) or "?"


def _paused(snapshot: StateSnapshot, latest: bool) -> str:
    """What the checkpoint's step paused for. A subgraph's pauses show on the parent's
    checkpoint only while it is the parent's latest (the subgraph lists them one by one)."""
    kinds = [
        str(interrupt.value.get("kind"))
        for task in snapshot.tasks
        if task.state is None or latest
        for interrupt in task.interrupts
        if isinstance(interrupt.value, dict) and "kind" in interrupt.value
    ]
    return pause_summary(kinds)


def _summary(
    snapshot: StateSnapshot, next_of: Mapping[str | None, tuple[str, ...]], latest: bool
) -> CheckpointSummary:
    configurable = snapshot.config["configurable"]
    parts = (state_summary(snapshot.values), _paused(snapshot, latest))
    namespace = configurable.get("checkpoint_ns", "")
    nesting = nesting_at(namespace, snapshot.metadata)
    return CheckpointSummary(
        checkpoint_id=configurable["checkpoint_id"],
        checkpoint_ns=namespace,
        step=int((snapshot.metadata or {}).get("step", -1)),
        node=_writer(snapshot, next_of),
        created_at=snapshot.created_at or "",
        summary="; ".join(part for part in parts if part),
        place="/".join((*nesting.path, nesting.team)) if nesting is not None else "",
    )


def history(app: CompiledStateGraph[Any, Any, Any, Any], thread_id: str) -> list[CheckpointSummary]:
    """Every checkpoint of a thread, subgraph ones included, newest first.

    Each has its step, the node that wrote it and a one-line summary (``plan: 3 tasks``,
    ``2 results``, ``paused for plan review``); pass one's id and namespace to :func:`fork`.

    Raises:
        ReviewError: The thread is unknown.
    """
    checkpointer = checkpointer_of(app)
    namespaces = dict.fromkeys(
        str(saved.config["configurable"].get("checkpoint_ns", ""))
        for saved in checkpointer.list(thread_config(thread_id))
    )
    if not namespaces:
        raise unknown_thread(thread_id)
    summaries: list[CheckpointSummary] = []
    for namespace in namespaces:
        snapshots = list(app.get_state_history(thread_config(thread_id, namespace)))
        next_of = {_id(snapshot): snapshot.next for snapshot in snapshots}
        parents = {_parent_id(snapshot) for snapshot in snapshots}
        summaries += [
            _summary(snapshot, next_of, _id(snapshot) not in parents) for snapshot in snapshots
        ]
    summaries.sort(key=lambda entry: (entry.created_at, entry.checkpoint_id), reverse=True)
    return summaries
