"""Tools for workers: a generic tool-calling worker, tools from MCP servers, team files, and
remote worker kinds (a LangGraph-API graph, an A2A agent) governed like tools.

It may import the engine, models, storage and policy; never runs or anything above them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.tools.a2a_agent import A2AWorker
    from framework.tools.listing import (
        ANY_KIND,
        NO_TOOLS,
        ToolRow,
        team_tools,
        worker_tools,
    )
    from framework.tools.mcp import (
        McpServer,
        McpTool,
        McpToolbox,
        ToolDescription,
        describe_tools,
    )
    from framework.tools.remote import RemoteReply, RemoteWorker
    from framework.tools.remote_graph import RemoteGraphWorker
    from framework.tools.remote_specs import RemoteGraphSpec, RemoteSpec
    from framework.tools.team_file import (
        BUILTIN_KINDS,
        TEAMS_GROUP,
        KindSpec,
        LoadedTeamFile,
        TeamFile,
        load_team_file,
    )
    from framework.tools.worker import (
        TOOL_WORKER_SYSTEM,
        ToolLike,
        ToolWorker,
        task_request,
    )

__all__ = [
    "ANY_KIND",
    "BUILTIN_KINDS",
    "NO_TOOLS",
    "TEAMS_GROUP",
    "TOOL_WORKER_SYSTEM",
    "A2AWorker",
    "KindSpec",
    "LoadedTeamFile",
    "McpServer",
    "McpTool",
    "McpToolbox",
    "RemoteGraphSpec",
    "RemoteGraphWorker",
    "RemoteReply",
    "RemoteSpec",
    "RemoteWorker",
    "TeamFile",
    "ToolDescription",
    "ToolLike",
    "ToolRow",
    "ToolWorker",
    "describe_tools",
    "load_team_file",
    "task_request",
    "team_tools",
    "worker_tools",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.tools.a2a_agent": ("A2AWorker",),
        "framework.tools.listing": (
            "ANY_KIND",
            "NO_TOOLS",
            "ToolRow",
            "team_tools",
            "worker_tools",
        ),
        "framework.tools.mcp": (
            "McpServer",
            "McpTool",
            "McpToolbox",
            "ToolDescription",
            "describe_tools",
        ),
        "framework.tools.remote": ("RemoteReply", "RemoteWorker"),
        "framework.tools.remote_graph": ("RemoteGraphWorker",),
        "framework.tools.remote_specs": ("RemoteGraphSpec", "RemoteSpec"),
        "framework.tools.team_file": (
            "BUILTIN_KINDS",
            "TEAMS_GROUP",
            "KindSpec",
            "LoadedTeamFile",
            "TeamFile",
            "load_team_file",
        ),
        "framework.tools.worker": (
            "TOOL_WORKER_SYSTEM",
            "ToolLike",
            "ToolWorker",
            "task_request",
        ),
    },
)
