"""The ``lifecycle`` stream mode: when each subgraph of a run starts and ends, read from the
graph's ``tasks`` chunks by LangGraph's rules (``langgraph.stream.transformers``'
``LifecycleTransformer``, whose ``LifecyclePayload`` each event is):

- ``{"event": "started", "namespace": [...], "graph_name": ..., "trigger_call_id": ...}`` at
  the first task of a namespace below the run's graph (its last segment ``node:task_id``
  names the graph and the parent's task that runs it);
- ``{"event": "completed" | "failed" | "interrupted", "namespace": [...]}`` (``error`` when
  it failed) when that parent task's result comes; any still open when the run ends close
  as ``completed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["Lifecycle"]


class Lifecycle:
    """The lifecycle events of one run's subgraphs."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, ...]] = set()
        self._open: dict[tuple[str, ...], str] = {}
        """Each started subgraph's namespace -> the id of the parent task running it."""

    def of_tasks(self, namespace: tuple[str, ...], payload: Any) -> list[dict[str, Any]]:
        """The events a ``tasks`` chunk of ``namespace`` makes."""
        if not isinstance(payload, Mapping):
            return []
        if "result" in payload:
            return self._ended(namespace, payload)
        if not namespace or namespace in self._seen:
            return []
        self._seen.add(namespace)
        name, _, trigger = namespace[-1].partition(":")
        if not trigger:  # no parent task to close it: LangGraph sends no start either
            return []
        self._open[namespace] = trigger
        started: dict[str, Any] = {"event": "started", "namespace": list(namespace)}
        if name:
            started["graph_name"] = name
        started["trigger_call_id"] = trigger
        return [started]

    def _ended(self, namespace: tuple[str, ...], result: Mapping[str, Any]) -> list[dict[str, Any]]:
        ended = [
            child
            for child, task_id in self._open.items()
            if child[:-1] == namespace and task_id == result.get("id")
        ]
        events = []
        for child in ended:
            del self._open[child]
            event: dict[str, Any] = {"event": "completed", "namespace": list(child)}
            if result.get("interrupts"):
                event["event"] = "interrupted"
            elif result.get("error"):
                event.update(event="failed", error=str(result["error"]))
            events.append(event)
        return events

    def finish(self) -> list[dict[str, Any]]:
        """The ``completed`` events of the subgraphs still open when the run ended."""
        events = [{"event": "completed", "namespace": list(ns)} for ns in self._open]
        self._open.clear()
        return events
