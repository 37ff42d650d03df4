"""The run context handed to every role: where it runs, what it may emit, what it may store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import get_runtime
from langgraph.store.base import BaseStore

from framework.engine.nesting import (
    NESTING_KEY,
    Nesting,
    namespace_nodes,
    place_in_words,
    step_of,
)
from framework.engine.records import Task

__all__ = ["NodeContext"]


def _discard(_: Any) -> None:
    """Stream writer used outside a graph run."""


@dataclass(frozen=True, kw_only=True, slots=True)
class NodeContext:
    """What a node knows about its execution: names, thread, checkpoint, store, event stream.

    ``checkpoint_ns`` is the namespace of the graph the node runs in ("" at the top, the
    subgraph's path when nested) and ``checkpoint_id`` the checkpoint its step started from;
    ``nesting`` is where its team runs when it is a team behind a worker kind (None otherwise).
    """

    node: str
    team: str
    thread_id: str | None = None
    checkpoint_ns: str = ""
    checkpoint_id: str | None = None
    store: BaseStore | None = None
    nesting: Nesting | None = None
    writer: Any = field(default=_discard, repr=False)
    trace_filters: list[Callable[[str], str]] = field(
        default_factory=list, repr=False, compare=False
    )
    """How content of this execution may enter traces: the policies governing it add their
    redaction here (:meth:`for_trace`)."""

    @classmethod
    def from_config(cls, node: str, team: str, config: RunnableConfig) -> NodeContext:
        """Build the context of a node from the run config LangGraph passes to it."""
        configurable = config.get("configurable") or {}
        metadata = config.get("metadata") or {}
        graph_ns, checkpoint_id = step_of(configurable)
        try:
            runtime = get_runtime()
        except (KeyError, RuntimeError):
            runtime = None
        return cls(
            node=node,
            team=team,
            thread_id=configurable.get("thread_id"),
            checkpoint_ns=graph_ns,
            checkpoint_id=checkpoint_id,
            store=runtime.store if runtime is not None else None,
            nesting=Nesting.loads(metadata.get(NESTING_KEY)),
            writer=runtime.stream_writer if runtime is not None else _discard,
        )

    def path(self) -> list[str]:
        """Where the node is in the hierarchy: the worker kinds and subgraph nodes its team runs
        under, then its team (``["research_team", "research"]`` inside the MetaCoordinator,
        ``["deep", "leaf"]`` for team ``leaf`` behind kind ``deep``)."""
        return [*(self.nesting.path if self.nesting else ()), *self._below(), self.team]

    def where(self) -> str:
        """:meth:`path` in words, with the team and task of each worker kind it runs under:
        ``team top > kind deep (task q0) > team leaf``; ``node research_team > team research``."""
        return place_in_words(self.nesting, self._below(), self.team)

    def nested(self, task: Task, team: str) -> Nesting:
        """Where team ``team`` runs when this node runs it for ``task`` (in its namespace)."""
        return Nesting(
            team=team,
            depth=len(namespace_nodes(self.checkpoint_ns)) + 1,
            task=task.id,
            kind=task.kind,
            path=(*self.path()[:-1], task.kind),
            where=f"{self.where()} > kind {task.kind} (task {task.id})",
            tasks=(*self.within(), task.id),
        )

    def within(self) -> tuple[str, ...]:
        """The tasks of the teams above that this node's team runs in, outermost first
        (empty at the top)."""
        return self.nesting.tasks if self.nesting is not None else ()

    def _below(self) -> list[str]:
        """The subgraph nodes between the task its team runs (the top, for none) and the
        node's graph."""
        nodes = namespace_nodes(self.checkpoint_ns)
        return nodes[self.nesting.depth :] if self.nesting is not None else nodes

    def for_trace(self, text: str) -> str:
        """``text`` as the execution's policies let it into a span (content capture)."""
        for redact in self.trace_filters:
            text = redact(text)
        return text

    def emit(self, event: str, **data: Any) -> None:
        """Send a progress event on the run's ``custom`` stream."""
        self.writer({"event": event, "team": self.team, "node": self.node, **data})
