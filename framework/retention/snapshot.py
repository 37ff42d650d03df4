"""A thread's state read straight from its checkpoints, as ``app.get_state(config,
subgraphs=True)`` returns it, without compiling the thread's graph: what ``cadre show`` and
``cadre reviews`` print (its values, merged over the subgraphs it is in, and its review requests).

:func:`thread_snapshot` returns a :class:`ThreadSnapshot`, with the fields of LangGraph's
``StateSnapshot`` (its tasks :class:`ThreadTask`, with those of ``PregelTask``), so that reading
one imports none of LangGraph's runtime. Read through a
:class:`~framework.persistence.reader.CheckpointReader` (as the commands read it), a value of a
class that is not cadre's stays in its stored form (see :mod:`framework.persistence.reader`);
through a saver, values are revived as ``get_state`` revives them.

LangGraph builds a snapshot from the graph's channels; :func:`thread_snapshot` builds it from what
LangGraph stores (the conventions of :mod:`framework.retention._pending`; tests/test_fast_show.py
checks them against ``get_state()`` on threads of every kind):

* ``values``: the channel values of the namespace's latest checkpoint (LangGraph's own channels
  left out: node triggers, ``__start__``, the step's sends), with what a live ``get_state()``
  lays over them: the step's input (the null task's writes), then the output of every task that
  finished in a step left open (a sibling paused or failed, or the process stopped). These
  writes go through the reducers of :class:`framework.engine.state.TeamState` (imported only
  then); a key it does not declare takes the last write.
* ``tasks``: the tasks of the step that recorded writes or ran a subgraph, sends first (in the
  order they were sent), then nodes by name. Each carries the interrupts still waiting for an
  answer (a finished task has none), its error, and, for a subgraph, the subgraph's own
  snapshot, read the same way from its namespace ``NODE:TASK_ID``: the namespace whose latest
  checkpoint ran under this checkpoint (its ``parents`` metadata).

What differs from ``get_state()``, none of it read by the commands: a reducer key never written is
absent instead of empty; a key outside the graph's output schema is present; a task due that
recorded nothing and runs no subgraph is only in ``next``; two nodes of one step are ordered by
name (LangGraph orders them as the graph adds them, which is not stored); ``next`` lists the due
nodes in :func:`next_nodes` order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from framework.engine.ledger import LEDGER_CHANNEL
from framework.persistence.steps import next_nodes
from framework.retention._rows import namespaces, task_paths, thread_rows

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.channels.binop import BinaryOperatorAggregate
    from langgraph.checkpoint.base import CheckpointMetadata, PendingWrite
    from langgraph.types import Interrupt

    from framework.persistence.reader import (
        AnyCheckpointTuple,
        CheckpointReader,
        StoredInterrupt,
    )

__all__ = ["AnyInterrupt", "ThreadSnapshot", "ThreadTask", "thread_ids", "thread_snapshot"]

AnyInterrupt: TypeAlias = "Interrupt | StoredInterrupt"
"""A pending interrupt: LangGraph's (read by a saver) or its stored form (read by a reader)."""

_NULL_TASK = "00000000-0000-0000-0000-000000000000"
"""The task id of a step's input writes (LangGraph's ``NULL_TASK_ID``)."""
_CONTROL = frozenset({"__error__", "__error_source_node__", "__interrupt__", "__resume__"})
"""Writes that say what happened to a task, not what it produced (LangGraph's
``CONTROL_WRITES``): a task with any other write finished."""
_PUSH = "~__pregel_push"
_PULL = "~__pregel_pull"
_SEP = "|"
_END = ":"


class ThreadTask(NamedTuple):
    """A task of a thread's step: the fields of LangGraph's ``PregelTask``."""

    id: str
    name: str
    path: tuple[str | int, ...]
    error: Any = None
    interrupts: tuple[AnyInterrupt, ...] = ()
    state: ThreadSnapshot | None = None
    """The snapshot of the subgraph the task runs, when it runs one."""
    result: Any = None


class ThreadSnapshot(NamedTuple):
    """A thread's state read from its checkpoints: the fields of LangGraph's ``StateSnapshot``."""

    values: dict[str, Any]
    next: tuple[str, ...]
    config: RunnableConfig
    metadata: CheckpointMetadata | None
    created_at: str | None
    parent_config: RunnableConfig | None
    tasks: tuple[ThreadTask, ...]
    interrupts: tuple[AnyInterrupt, ...]


@dataclass
class _Task:
    """What one task of a step recorded."""

    id: str
    path: str
    name: str = ""
    output: list[tuple[str, Any]] = field(default_factory=list)
    interrupts: list[AnyInterrupt] = field(default_factory=list)
    error: Any = None
    state: ThreadSnapshot | None = None

    @property
    def finished(self) -> bool:
        return bool(self.output)

    @property
    def order(self) -> tuple[int, str]:
        """Sends first, by index (zero-padded in the path), then nodes by name."""
        return (0 if self.path.startswith(_PUSH) else 1, self.path)


def thread_snapshot(
    saver: CheckpointReader, thread_id: str, *, values: bool = True, checkpoint_ns: str = ""
) -> ThreadSnapshot:
    """The thread's state as ``get_state(config, subgraphs=True)`` returns it (see the module
    docstring); an empty snapshot (``created_at`` None) for a thread ``saver`` does not hold.

    Args:
        saver: The checkpointer (or the reader) holding the thread.
        thread_id: The thread.
        values: Read the values; without, every snapshot's ``values`` are empty (its tasks and
            their interrupts are all a list of review requests needs).
        checkpoint_ns: The graph to read: the thread's own (""), or a nested one's namespace.

    Raises:
        CryptoError: A blob cannot be opened with the saver's keys.
    """
    spaces = namespaces(saver, thread_id)
    return _snapshot(saver, thread_id, checkpoint_ns, spaces, values=values)


def thread_ids(saver: CheckpointReader) -> list[str]:
    """Every thread of ``saver``, most recently written first (read from its rows: nothing is
    opened, unlike :func:`framework.review.thread_ids`, which opens every checkpoint)."""
    return [row.thread_id for row in thread_rows(saver)]


def _config(thread_id: str, checkpoint_ns: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns}}


def _snapshot(
    saver: CheckpointReader,
    thread_id: str,
    checkpoint_ns: str,
    spaces: Sequence[str],
    saved: AnyCheckpointTuple | None = None,
    *,
    values: bool,
) -> ThreadSnapshot:
    config = _config(thread_id, checkpoint_ns)
    saved = saved or saver.get_tuple(config)
    if saved is None:
        return ThreadSnapshot({}, (), config, None, None, None, (), ())
    checkpoint_id = str(saved.config["configurable"]["checkpoint_id"])
    writes = list(saved.pending_writes or [])
    paths = task_paths(saver, thread_id, checkpoint_ns, checkpoint_id)
    tasks = _tasks(writes, paths, saved.checkpoint["channel_values"])
    for child in _children(checkpoint_ns, spaces):
        below = saver.get_tuple(_config(thread_id, child))
        if below is None or (below.metadata.get("parents") or {}).get(checkpoint_ns) != (
            checkpoint_id
        ):
            continue  # ran under an earlier checkpoint: not a task of this step
        name, task_id = child.rsplit(_SEP, 1)[-1].rsplit(_END, 1)
        task = tasks.setdefault(task_id, _Task(id=task_id, path=f"{_PULL}, {name}", name=name))
        task.state = _snapshot(saver, thread_id, child, spaces, below, values=values)
    ordered = sorted(tasks.values(), key=lambda task: task.order)
    read = _values(saved, writes, ordered) if values else {}
    pregel_tasks = tuple(
        ThreadTask(
            task.id,
            task.name,
            _path_tuple(task.path),
            task.error,
            () if task.finished else tuple(task.interrupts),
            task.state,
            None,
        )
        for task in ordered
    )
    return ThreadSnapshot(
        read,
        _next(next_nodes(saved.checkpoint), [task.name for task in ordered if task.finished]),
        saved.config,
        saved.metadata,
        saved.checkpoint["ts"],
        saved.parent_config,
        pregel_tasks,
        tuple(interrupt for task in pregel_tasks for interrupt in task.interrupts),
    )


def _values(
    saved: AnyCheckpointTuple, writes: Sequence[PendingWrite], tasks: Sequence[_Task]
) -> dict[str, Any]:
    """The checkpoint's state values, with the step's input and its finished tasks' output
    laid over them, as a live ``get_state()`` reads them."""
    values = _state_values(saved.checkpoint["channel_values"])
    _apply(values, [(channel, value) for task, channel, value in writes if task == _NULL_TASK])
    by_path = sorted((task for task in tasks if task.finished), key=lambda task: task.path)
    _apply(values, [write for task in by_path for write in task.output])
    return values


def _tasks(
    writes: Iterable[PendingWrite], paths: Mapping[str, str], channels: Mapping[str, Any]
) -> dict[str, _Task]:
    """The tasks that recorded writes, by id (LangGraph's ``read_task_statuses``)."""
    tasks: dict[str, _Task] = {}
    for task_id, channel, value in writes:
        if task_id == _NULL_TASK or channel == LEDGER_CHANNEL:  # a batched task's saved update
            continue
        path = paths.get(task_id, "")
        task = tasks.setdefault(task_id, _Task(id=task_id, path=path, name=_name(path, channels)))
        if channel == "__interrupt__":
            task.interrupts.extend(value if isinstance(value, list | tuple) else [value])
        elif channel == "__error__":
            task.error = value if task.error is None else task.error
        elif channel not in _CONTROL:
            task.output.append((channel, value))
    return tasks


def _name(path: str, channels: Mapping[str, Any]) -> str:
    """The node a task path runs: a pulled node's name, or the node of the send it names."""
    parts = path.split(", ")
    if parts[0] == _PULL and len(parts) > 1:
        return parts[1]
    if parts[0] == _PUSH and len(parts) > 1 and parts[1].isdigit():
        sends = channels.get("__pregel_tasks") or ()
        index = int(parts[1])
        return str(getattr(sends[index], "node", "")) if index < len(sends) else ""
    return ""


def _path_tuple(path: str) -> tuple[str | int, ...]:
    kind, _, rest = path.partition(", ")
    first = rest.split(", ")[0]
    return (kind.lstrip("~"), int(first) if first.isdigit() else first) if rest else ()


def _children(checkpoint_ns: str, spaces: Iterable[str]) -> list[str]:
    """The namespaces one level below ``checkpoint_ns`` (``NODE:TASK_ID`` under it)."""
    prefix = f"{checkpoint_ns}{_SEP}" if checkpoint_ns else ""
    return [
        space
        for space in spaces
        if space
        and space.startswith(prefix)
        and space != checkpoint_ns
        and _SEP not in space[len(prefix) :]
    ]


def _is_state_key(channel: str) -> bool:
    """Whether a channel is a key of the state (not a trigger, a join, a send or a signal)."""
    return _END not in channel and not channel.startswith("__")


def _state_values(channel_values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in channel_values.items() if _is_state_key(key)}


def _apply(values: dict[str, Any], writes: Iterable[tuple[str, Any]]) -> None:
    """Lay ``writes`` over ``values`` as one step's updates (LangGraph's ``apply_writes``)."""
    updates: dict[str, list[Any]] = {}
    for channel, value in writes:
        if _is_state_key(channel):
            updates.setdefault(channel, []).append(value)
    for key, written in updates.items():
        spec = _reducers().get(key)
        if spec is None:  # overwritten (a LastValue channel)
            values[key] = written[-1]
            continue
        empty = type(spec)(spec.typ, spec.operator)  # the type's empty value, as LangGraph's
        reducer = empty.from_checkpoint(values[key]) if key in values else empty
        reducer.update(written)
        values[key] = reducer.get()


@cache
def _reducers() -> Mapping[str, BinaryOperatorAggregate[Any]]:
    """The reducer channels of :class:`TeamState` (imported on first use: graph machinery)."""
    from langgraph.channels.binop import BinaryOperatorAggregate  # noqa: PLC0415
    from langgraph.graph import StateGraph  # noqa: PLC0415

    from framework.engine.state import TeamState  # noqa: PLC0415

    channels = StateGraph(TeamState).channels
    return {
        key: channel
        for key, channel in channels.items()
        if isinstance(channel, BinaryOperatorAggregate)
    }


def _next(due: Sequence[str], finished: Sequence[str]) -> tuple[str, ...]:
    """The due nodes, less one run per finished task."""
    left = list(due)
    for name in finished:
        if name in left:
            left.remove(name)
    return tuple(left)
