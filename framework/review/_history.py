"""A thread's checkpoints, nested namespaces included, each with its step, what wrote it and a
summary, read from the checkpoints alone: no graph reads them, so a nested team's checkpoints
(whose graph is not the top team's) read as well as the top team's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from framework.engine.nesting import NESTING_KEY, Nesting, namespace_nodes, place_in_words
from framework.persistence.steps import next_nodes
from framework.review._pending import checkpointer_of, thread_config, unknown_thread
from framework.review._summary import pause_summary, state_summary
from framework.review.records import CheckpointSummary

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph.state import CompiledStateGraph

    from framework.persistence.reader import AnyCheckpointTuple

__all__ = ["checkpoint_history", "history"]

_SEP = "|"
_END = ":"
_INTERRUPT = "__interrupt__"


class Checkpoints(Protocol):
    """What the history reads: a LangGraph checkpointer, or a cadre checkpoint reader."""

    def list(self, config: RunnableConfig | None) -> Iterable[AnyCheckpointTuple]: ...

    def get_tuple(self, config: RunnableConfig) -> AnyCheckpointTuple | None: ...


def _id(config: RunnableConfig | None) -> str | None:
    return config["configurable"].get("checkpoint_id") if config is not None else None


def _writer(saved: AnyCheckpointTuple, parents: Mapping[str | None, AnyCheckpointTuple]) -> str:
    """What wrote a checkpoint: the nodes due from the one before it (the step that ran), or
    how it was put there (``input``, ``update``, ``fork``); ``?`` when the checkpoint before
    it was pruned."""
    source = str((saved.metadata or {}).get("source", "loop"))
    if source != "loop":
        return source
    parent = parents.get(_id(saved.parent_config))
    if parent is None:
        return "?"
    return ",".join(dict.fromkeys(next_nodes(parent.checkpoint))) or "?"


def _paused(saved: AnyCheckpointTuple, latest: bool, subgraph_tasks: frozenset[str]) -> str:
    """What the step that ran from the checkpoint paused for. A pause inside a subgraph (or a
    nested team) shows on its parent's checkpoint only while that is the parent's latest (the
    subgraph lists them one by one)."""
    kinds = [
        str(interrupt_value.get("kind"))
        for task_id, channel, value in saved.pending_writes or ()
        if channel == _INTERRUPT and (latest or task_id not in subgraph_tasks)
        for interrupt in (value if isinstance(value, list | tuple) else [value])
        if isinstance(interrupt_value := getattr(interrupt, "value", None), dict)
        and "kind" in interrupt_value
    ]
    return pause_summary(kinds)


def _state_values(saved: AnyCheckpointTuple) -> dict[str, Any]:
    """The state keys of a checkpoint (not LangGraph's triggers, joins, sends or signals)."""
    channels: Mapping[str, Any] = saved.checkpoint["channel_values"]
    return {k: v for k, v in channels.items() if _END not in k and not k.startswith("__")}


def _subgraph_tasks(namespace: str, namespaces: Iterable[str]) -> frozenset[str]:
    """The ids of the tasks of ``namespace`` that ran a graph of their own (a namespace
    ``NODE:TASK_ID`` one level below it)."""
    prefix = f"{namespace}{_SEP}" if namespace else ""
    return frozenset(
        below.removeprefix(prefix).rsplit(_END, 1)[-1]
        for below in namespaces
        if below
        and below != namespace
        and below.startswith(prefix)
        and _SEP not in below.removeprefix(prefix)
    )


def _summary(
    saved: AnyCheckpointTuple,
    parents: Mapping[str | None, AnyCheckpointTuple],
    latest: bool,
    subgraph_tasks: frozenset[str],
    team: str,
) -> CheckpointSummary:
    configurable = saved.config["configurable"]
    parts = (state_summary(_state_values(saved)), _paused(saved, latest, subgraph_tasks))
    namespace = str(configurable.get("checkpoint_ns", ""))
    return CheckpointSummary(
        checkpoint_id=configurable["checkpoint_id"],
        checkpoint_ns=namespace,
        step=int((saved.metadata or {}).get("step", -1)),
        node=_writer(saved, parents),
        created_at=str(saved.checkpoint["ts"]),
        summary="; ".join(part for part in parts if part),
        place=_place(namespace, saved.metadata or {}, team),
    )


def _place(namespace: str, metadata: Mapping[str, Any], team: str) -> str:
    """Where the graph that wrote a checkpoint runs, in words (``team top > kind deep (task q0)
    > team leaf``): a nested team by its name, a subgraph node by its node; the top graph as
    team ``team`` (empty when that is not known)."""
    nodes = namespace_nodes(namespace)
    nesting = Nesting.loads(metadata.get(NESTING_KEY))
    if nesting is None or nesting.depth > len(nodes):
        return place_in_words(None, nodes, "" if nodes else team)
    below = nodes[nesting.depth :]
    return place_in_words(nesting, below, "" if below else nesting.team)


def checkpoint_history(
    saver: Checkpoints, thread_id: str, *, team: str = ""
) -> list[CheckpointSummary]:
    """Every checkpoint of a thread held by ``saver``, subgraph ones included, newest first
    (see :func:`history`); ``team`` is the name of the thread's team, for the top graph's place.

    Raises:
        ReviewError: The thread is unknown.
        CryptoError: A blob cannot be opened with the saver's keys.
        IncompleteCheckpointError: A namespace's newest checkpoints were deleted (its head is
            read first, as every status and ``show`` read it, so a rolled-back thread is
            refused, not listed as if it had stopped earlier).
    """
    namespaces = list(
        dict.fromkeys(
            str(saved.config["configurable"].get("checkpoint_ns", ""))
            for saved in saver.list(thread_config(thread_id))
        )
    )
    if not namespaces:
        raise unknown_thread(thread_id)
    summaries: list[CheckpointSummary] = []
    for namespace in namespaces:
        saver.get_tuple(thread_config(thread_id, namespace))
        saved = list(saver.list(thread_config(thread_id, namespace)))
        by_id = {_id(checkpoint.config): checkpoint for checkpoint in saved}
        parents = {_id(checkpoint.parent_config) for checkpoint in saved}
        below = _subgraph_tasks(namespace, namespaces)
        summaries += [
            _summary(checkpoint, by_id, _id(checkpoint.config) not in parents, below, team)
            for checkpoint in saved
        ]
    summaries.sort(key=lambda entry: (entry.created_at, entry.checkpoint_id), reverse=True)
    return summaries


def history(app: CompiledStateGraph[Any, Any, Any, Any], thread_id: str) -> list[CheckpointSummary]:
    """Every checkpoint of a thread, subgraph ones included, newest first.

    Each has its step, the nodes that wrote it and a one-line summary (``plan: 3 tasks``,
    ``2 results``, ``paused for plan review``); pass one's id and namespace to :func:`fork`.

    Raises:
        ReviewError: The thread is unknown.
    """
    return checkpoint_history(checkpointer_of(app), thread_id)
