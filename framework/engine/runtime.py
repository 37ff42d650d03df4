"""The run context handed to every role: where it runs, what it may emit, what it may store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import get_runtime
from langgraph.store.base import BaseStore

__all__ = ["NodeContext"]


def _discard(_: Any) -> None:
    """Stream writer used outside a graph run."""


@dataclass(frozen=True, kw_only=True, slots=True)
class NodeContext:
    """What a node knows about its execution: names, thread, checkpoint, store, event stream.

    ``checkpoint_ns`` is the namespace of the graph the node runs in ("" at the top, the
    subgraph's path when nested) and ``checkpoint_id`` the checkpoint its step started from.
    """

    node: str
    team: str
    thread_id: str | None = None
    checkpoint_ns: str = ""
    checkpoint_id: str | None = None
    store: BaseStore | None = None
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
        task_ns = configurable.get("checkpoint_ns", "")
        graph_ns = task_ns.rpartition("|")[0]  # the node's task is the last segment
        checkpoints = configurable.get("checkpoint_map") or {}
        try:
            runtime = get_runtime()
        except (KeyError, RuntimeError):
            runtime = None
        return cls(
            node=node,
            team=team,
            thread_id=configurable.get("thread_id"),
            checkpoint_ns=graph_ns,
            checkpoint_id=configurable.get("checkpoint_id") or checkpoints.get(graph_ns),
            store=runtime.store if runtime is not None else None,
            writer=runtime.stream_writer if runtime is not None else _discard,
        )

    def for_trace(self, text: str) -> str:
        """``text`` as the execution's policies let it into a span (content capture)."""
        for redact in self.trace_filters:
            text = redact(text)
        return text

    def emit(self, event: str, **data: Any) -> None:
        """Send a progress event on the run's ``custom`` stream."""
        self.writer({"event": event, "team": self.team, "node": self.node, **data})
