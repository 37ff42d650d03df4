"""A thread's graph in its metadata: ``graph_id`` (the team) and ``assistant_id`` (its
assistant's id), as LangGraph's server sets them when a thread gets a run, so clients that
list threads by graph find them (Agent Inbox searches ``metadata={"graph_id": ...}``, or
``{"assistant_id": ...}`` when given a UUID)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.exceptions import HTTPException

from framework.server._http import Server
from framework.server._served import assistant_id, assistant_name, team_of

__all__ = ["name_graph", "with_assistant"]


def _named(team: str) -> dict[str, str]:
    return {"graph_id": assistant_name(team), "assistant_id": assistant_id(team)}


def with_assistant(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A new thread's metadata, with the assistant of the ``graph_id`` it names (when it names
    an installed team and no assistant)."""
    graph = metadata.get("graph_id")
    if not isinstance(graph, str) or "assistant_id" in metadata:
        return dict(metadata)
    try:
        team = team_of(graph)
    except HTTPException:  # a graph no team here is: kept as the client said it
        return dict(metadata)
    return {**metadata, "assistant_id": assistant_id(team)}


def name_graph(server: Server, tenant: str, thread_id: str, team: str) -> None:
    """Name the graph of a thread that got a run on ``team``: the team its first run recorded,
    whatever a later run names."""
    spec = server.runs.thread_spec(thread_id)
    named = _named(spec.team if spec is not None else team)
    row = server.tables.thread(tenant, thread_id)
    if row is not None and any(row.metadata.get(key) != value for key, value in named.items()):
        server.tables.update_thread(thread_id, metadata=named)
