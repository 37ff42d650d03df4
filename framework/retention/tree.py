"""The teams a thread ran behind worker kinds (``team:`` kinds), read from its checkpoints
without the graph: which task of which team each answered, its latest state, and the teams it
ran in turn (what ``cadre show`` prints under a task).

A nested team writes its checkpoints under its task's namespace with its
:class:`~framework.engine.nesting.Nesting` in their metadata: that names the task it answers.
Its parent is the nearest nested team whose namespace holds its own (the thread's top team when
none does; a subgraph node in between belongs to the team it runs in). A task that ran its team
more than once (a retry, a re-plan) shows its latest run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.engine.nesting import Nesting, nesting_at
from framework.retention._rows import namespaces
from framework.retention.snapshot import thread_snapshot

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from framework.persistence.reader import CheckpointReader

__all__ = ["NestedRun", "nested_runs"]

_SEP = "|"


@dataclass(frozen=True, kw_only=True)
class NestedRun:
    """One run of a team behind a worker kind.

    Attributes:
        nesting: Where it ran (its team, and the task and kind it answered).
        checkpoint_ns: The namespace of its checkpoints.
        values: Its latest state.
        below: The runs of its own tasks' teams, by task id.
    """

    nesting: Nesting
    checkpoint_ns: str
    values: Mapping[str, Any]
    below: dict[str, NestedRun] = field(default_factory=dict)


def nested_runs(saver: CheckpointReader, thread_id: str) -> dict[str, NestedRun]:
    """The latest nested run of each task of the thread's top team that ran a team, by task id,
    each with the runs below it (empty for a thread that ran none).

    Raises:
        CryptoError: A blob cannot be opened with the saver's keys.
    """
    found: dict[str, tuple[Nesting, str]] = {}
    for namespace in namespaces(saver, thread_id):
        saved = saver.get_tuple(_config(thread_id, namespace)) if namespace else None
        nesting = nesting_at(namespace, saved.metadata) if saved is not None else None
        if saved is not None and nesting is not None:
            found[namespace] = (nesting, str(saved.config["configurable"]["checkpoint_id"]))
    latest: dict[tuple[str, str], tuple[str, str]] = {}  # (parent, task) -> (checkpoint, ns)
    for namespace, (nesting, checkpoint_id) in found.items():
        key = (_parent(namespace, found), nesting.task)
        latest[key] = max(latest.get(key, ("", "")), (checkpoint_id, namespace))
    runs = {
        namespace: NestedRun(
            nesting=found[namespace][0],
            checkpoint_ns=namespace,
            values=thread_snapshot(saver, thread_id, checkpoint_ns=namespace).values,
        )
        for _, namespace in latest.values()
    }
    top: dict[str, NestedRun] = {}
    for (parent, task), (_, namespace) in sorted(latest.items()):
        if not parent:
            top[task] = runs[namespace]
        elif parent in runs:  # else under an earlier run of its parent's task: not shown
            runs[parent].below[task] = runs[namespace]
    return top


def _config(thread_id: str, checkpoint_ns: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns}}


def _parent(namespace: str, nested: Mapping[str, object]) -> str:
    """The namespace of the nearest nested team holding ``namespace`` ("" for the top team)."""
    parts = namespace.split(_SEP)[:-1]
    while parts and _SEP.join(parts) not in nested:
        parts.pop()
    return _SEP.join(parts)
