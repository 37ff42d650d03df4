"""Where a nested team runs in the tree of teams, as a node of it knows and a reviewer reads it.

A team behind a worker kind (:class:`~framework.engine.team_worker.TeamWorker`) runs inside the
worker node, under the namespace of the node's task, which LangGraph names by node and task
uuid (``worker:1f0c...``). The worker records the nested team's :class:`Nesting` (the task and
kind it runs, and the path and words down to it) in the run config's metadata under
:data:`NESTING_KEY`: its nodes read it there (:class:`~framework.engine.runtime.NodeContext`), and,
as a string, it is kept in the metadata of the nested team's checkpoints, where the commands that
read a thread find it without the graph.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

__all__ = [
    "NESTING_KEY",
    "Nesting",
    "namespace_nodes",
    "nesting_at",
    "place",
    "place_in_words",
    "step_of",
]

NESTING_KEY = "cadre_nesting"
"""The run config metadata key that holds a nested team's :class:`Nesting` (JSON)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Nesting:
    """Where a nested team runs: the task of the team above that it answers.

    Attributes:
        team: The nested team's name.
        depth: How many segments its checkpoint namespace has (its task's namespace).
        task: The id of the task it runs.
        kind: That task's kind.
        path: The review path down to it: the kinds and subgraph nodes above it
            (``["deep"]``; a request in it adds its own, then its team).
        where: The same in words, down to the task (``team top > kind deep (task q0)``).
        tasks: The ids of the tasks it runs in, outermost first, its own task last (a task id
            repeats across nested teams: this chain tells them apart).
    """

    team: str
    depth: int
    task: str
    kind: str
    path: tuple[str, ...]
    where: str
    tasks: tuple[str, ...] = ()

    def dumps(self) -> str:
        """The JSON kept in the run config's metadata."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @staticmethod
    def loads(text: Any) -> Nesting | None:
        """The nesting a metadata value holds; None for none, or one this cadre cannot read."""
        return _parsed(text) if isinstance(text, str) else None


@lru_cache(maxsize=256)
def _parsed(text: str) -> Nesting | None:
    try:
        data = json.loads(text)
        tasks = tuple(data.get("tasks") or (data["task"],))
        return Nesting(**{**data, "path": tuple(data["path"]), "tasks": tasks})
    except (ValueError, TypeError, KeyError):
        return None


def step_of(configurable: Mapping[str, Any]) -> tuple[str, str | None]:
    """Where a node's task runs, from its run config's ``configurable``: the namespace of its
    graph (its own, less its last segment: "" at the top) and the checkpoint its step started
    from (LangGraph leaves ``checkpoint_id`` empty inside a node and maps it by namespace)."""
    graph_ns = str(configurable.get("checkpoint_ns", "")).rpartition("|")[0]
    checkpoints = configurable.get("checkpoint_map") or {}
    return graph_ns, configurable.get("checkpoint_id") or checkpoints.get(graph_ns)


def namespace_nodes(checkpoint_ns: str) -> list[str]:
    """The node of each segment of a checkpoint namespace (``worker:1f0c|planner:2a`` ->
    ``["worker", "planner"]``)."""
    return [part.split(":")[0] for part in checkpoint_ns.split("|") if part]


def nesting_at(checkpoint_ns: str, metadata: Mapping[str, Any] | None) -> Nesting | None:
    """The nesting of the team whose graph wrote a checkpoint (at ``checkpoint_ns``, with
    ``metadata``) when that graph is a team behind a worker kind; None for any other graph (the
    top one, a subgraph node, or a graph nested inside such a team)."""
    nesting = Nesting.loads((metadata or {}).get(NESTING_KEY))
    if nesting is None or nesting.depth != len(namespace_nodes(checkpoint_ns)):
        return None
    return nesting


def place_in_words(nesting: Nesting | None, nodes: Sequence[str], team: str = "") -> str:
    """Where a graph runs, in the words every surface writes a place with: the task of the team
    above it (``nesting``'s words), the subgraph nodes below that, then its team when known
    (``team top > kind deep (task q0) > team leaf``, ``node research_team > team research``)."""
    words = [*((nesting.where,) if nesting else ()), *(f"node {node}" for node in nodes)]
    return " > ".join([*words, f"team {team}"] if team else words)


def place(where: str, path: Sequence[str]) -> str:
    """How every surface writes where something happened in a team hierarchy: its ``where``
    (``team top > kind deep (task q0) > team leaf``), else its path joined (``top`` for none)."""
    return where or " / ".join(path) or "top"
