"""What a team's workers can call, found by walking the team's graph (``cadre tools list``).

:func:`team_tools` reads a built, uncompiled team graph without running it: each node that
keeps the role it runs (:attr:`~framework.engine.nodes.team_node.TeamNode.role`, the worker of a
worker
node) is described by :func:`worker_tools`, and a node that is a compiled team (a phase of the
MetaCoordinator, the extraction team's document graph) is walked in turn, its rows named by
the path of teams (``meta/research``).

A worker is described, first rule that applies:

1. :class:`~framework.engine.worker_kinds.WorkerKinds`: each kind's worker, under the kind's name;
2. a :class:`~framework.engine.team_worker.TeamWorker` (a kind that is a whole team): the rows
   of its team, their kinds and teams under its own (``deep/docs``, ``support/deep``), so the
   tree of kinds reads from the rows;
3. a worker that lists itself (:class:`ListsItself`: a remote kind's
   :class:`~framework.kinds.remote.RemoteWorker` gives one row, its source ``remote_graph:URL``
   or ``a2a:URL``, the kind's name as its tool, the name policies match);
4. a wrapper holding another worker in ``worker`` (research memory around the model-backed
   worker): the worker it wraps;
5. a worker with ``tools`` (a :class:`~framework.tools.worker.ToolWorker`'s name -> tool
   mapping, or a sequence of tools) or ``servers`` (MCP servers it starts when it first runs),
   or a role with ``sources`` (the hypothesis team's searcher): one row per tool, its source
   ``python`` or ``mcp:SERVER``; servers are started to list their tools and stopped again;
6. any other worker: one ``builtin:CLASS`` row with no tool, described by its docstring.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from langchain_core.tools import BaseTool
from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph
from pydantic import BaseModel

from framework.engine.nodes.team_node import TeamNode
from framework.engine.roles import Worker
from framework.engine.team_worker import TeamWorker
from framework.engine.worker_kinds import WorkerKinds
from framework.policy.names import TeamNames
from framework.tools._mcp_tool import McpTool, describe
from framework.tools.mcp import McpServer, McpToolbox

__all__ = [
    "ANY_KIND",
    "NO_TOOLS",
    "ListsItself",
    "ToolRow",
    "team_names",
    "team_tools",
    "tool_row",
    "worker_tools",
]

ANY_KIND = "*"
"""The kind of a worker that takes every task (a team without worker kinds)."""

NO_TOOLS = "none"
"""The source of the one row of a team none of whose nodes calls tools."""


@dataclass(frozen=True, kw_only=True)
class ToolRow:
    """One tool a worker of a team can call (or one tool-less worker, ``tool`` ``-``).

    Attributes:
        team: The team, with the teams it is nested in (``meta/research``).
        kind: The worker kind (``*``: the team's one worker takes every task; ``-``: none).
        source: ``python``, ``mcp:SERVER``, ``remote_graph:URL`` or ``a2a:URL`` (a remote
            kind), ``builtin:CLASS`` (a worker that calls no tool) or ``none`` (no node of the
            team calls tools).
        tool: The name a model calls the tool by, a remote kind's name (``-``: none).
        description: One line.
        arguments: The JSON schema of its arguments (``{}``: none).
        aliases: Other names it goes by, which policies match too (an MCP tool's name on its
            server when the team exposes it prefixed); not in :meth:`as_dict`.
    """

    team: str
    kind: str
    source: str
    tool: str = "-"
    description: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "description", " ".join(self.description.split()))

    def as_dict(self) -> dict[str, Any]:
        """The row as a JSON object."""
        row = asdict(self)
        del row["aliases"]
        return row


@runtime_checkable
class ListsItself(Protocol):
    """A worker that gives its own rows (rule 3 of the module)."""

    def tool_rows(self, *, team: str, kind: str) -> list[ToolRow]:
        """Its rows, named ``team`` and ``kind``."""


def team_tools(graph: StateGraph[Any, Any, Any, Any], team: str | None = None) -> list[ToolRow]:
    """Every tool the workers of ``graph`` and of the teams nested in it can call.

    Args:
        graph: A team's uncompiled graph.
        team: What to call the team in the rows (default: the team name its nodes carry).

    Returns:
        The rows in node order, kinds in their order; a team none of whose nodes calls tools
        gives one ``none`` row, so every team listed shows up.

    Raises:
        ToolServerError: An MCP server of a worker could not be started.
    """
    name = team or _team_name(graph) or "team"
    rows = list(_walk(graph, name))
    if rows:
        return rows
    what = "no node of this team runs a worker role that calls tools"
    return [ToolRow(team=name, kind="-", source=NO_TOOLS, description=what)]


def team_names(graph: StateGraph[Any, Any, Any, Any]) -> TeamNames:
    """What ``graph`` has by the names policies match: its workers' tools (MCP servers started
    to list theirs), its teams and nodes (nested ones too)."""
    rows = team_tools(graph)
    teams: set[str] = set()
    nodes: set[str] = set()
    _teams_and_nodes(graph, teams, nodes)
    return TeamNames(
        tools=frozenset(name for row in rows for name in (row.tool, *row.aliases) if name != "-"),
        teams=frozenset(teams),
        nodes=frozenset(nodes),
    )


def _teams_and_nodes(
    graph: StateGraph[Any, Any, Any, Any], teams: set[str], nodes: set[str]
) -> None:
    for name, spec in graph.nodes.items():
        nodes.add(name)
        node = spec.runnable
        if isinstance(node, TeamNode):
            teams.add(node.team)
            for nested in _team_workers(node.role):
                _teams_and_nodes(nested.team.builder, teams, nodes)
        elif isinstance(node, CompiledStateGraph):
            _teams_and_nodes(node.builder, teams, nodes)


def _team_workers(role: object) -> list[TeamWorker]:
    """The whole teams a worker role runs tasks with (a team kind)."""
    if isinstance(role, WorkerKinds):
        return [kind.worker for kind in role.kinds.values() if isinstance(kind.worker, TeamWorker)]
    return [role] if isinstance(role, TeamWorker) else []


def worker_tools(worker: object, *, team: str, kind: str = ANY_KIND) -> list[ToolRow]:
    """The rows of one worker (see the module for the rules), named ``team`` and ``kind``."""
    if isinstance(worker, WorkerKinds):
        return [
            row
            for spec in worker.kinds.values()
            for row in worker_tools(spec.worker, team=team, kind=spec.name)
        ]
    if isinstance(worker, TeamWorker):
        return [
            replace(row, team=f"{team}/{row.team}", kind=f"{kind}/{row.kind}")
            for row in team_tools(worker.team.builder)
        ]
    if isinstance(worker, ListsItself):
        return worker.tool_rows(team=team, kind=kind)
    wrapped = getattr(worker, "worker", None)
    if isinstance(wrapped, Worker):
        return worker_tools(wrapped, team=team, kind=kind)
    tools = [*_tools_of(worker, "tools"), *_tools_of(worker, "sources")]
    declared = getattr(worker, "servers", ())
    servers = (
        [s for s in declared if isinstance(s, McpServer)] if isinstance(declared, Sequence) else []
    )
    if not tools and not servers:
        cls = type(worker)
        summary = (inspect.getdoc(cls) or "").split("\n\n")[0]
        return [
            ToolRow(team=team, kind=kind, source=f"builtin:{cls.__name__}", description=summary)
        ]
    rows = [tool_row(tool, team, kind) for tool in tools]
    if servers:
        with McpToolbox(servers) as toolbox:
            rows.extend(tool_row(tool, team, kind) for tool in toolbox.tools)
    return rows


def _walk(graph: StateGraph[Any, Any, Any, Any], team: str) -> Iterator[ToolRow]:
    for spec in graph.nodes.values():
        node = spec.runnable
        if isinstance(node, TeamNode) and node.role is not None:
            yield from worker_tools(node.role, team=team)
        elif isinstance(node, CompiledStateGraph):
            inner = _team_name(node.builder)
            nested = (
                team if inner is None or team.rsplit("/", 1)[-1] == inner else f"{team}/{inner}"
            )
            yield from _walk(node.builder, nested)


def _team_name(graph: StateGraph[Any, Any, Any, Any]) -> str | None:
    """The team name the graph's nodes carry (None: no team node)."""
    for spec in graph.nodes.values():
        if isinstance(spec.runnable, TeamNode):
            return spec.runnable.team
    return None


def _tools_of(role: object, attribute: str) -> list[BaseTool]:
    """The tools a role holds in ``attribute`` (a name -> tool mapping or a sequence)."""
    held = getattr(role, attribute, ())
    if isinstance(held, Mapping):
        held = list(held.values())
    if not isinstance(held, Sequence):
        return []
    return [tool for tool in held if isinstance(tool, BaseTool)]


def tool_row(tool: BaseTool, team: str, kind: str) -> ToolRow:
    """The row of one tool (its source ``python`` or ``mcp:SERVER``)."""
    if isinstance(tool, McpTool):
        described = describe(tool)
        return ToolRow(
            team=team,
            kind=kind,
            source=f"mcp:{described.server}",
            tool=described.name,
            description=described.description,
            arguments=described.input_schema,
            aliases=(described.server_tool,) if described.server_tool != described.name else (),
        )
    return ToolRow(
        team=team,
        kind=kind,
        source="python",
        tool=tool.name,
        description=tool.description or "",
        arguments=_arguments(tool),
    )


def _arguments(tool: BaseTool) -> dict[str, Any]:
    """The JSON schema of the arguments a model gives the tool."""
    schema = tool.tool_call_schema
    if isinstance(schema, dict):
        return schema
    if issubclass(schema, BaseModel):
        return schema.model_json_schema()
    return dict(schema.schema())  # a pydantic v1 model
