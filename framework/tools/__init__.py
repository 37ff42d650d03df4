"""Tools for workers: a generic tool-calling worker, tools from MCP servers, and what a team's
workers can call (``cadre tools list``).

It may import the engine, models, storage and policy; never kinds, runs or anything above
them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
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
    from framework.tools.worker import (
        TOOL_WORKER_SYSTEM,
        ToolLike,
        ToolWorker,
        task_request,
    )

__all__ = [
    "ANY_KIND",
    "NO_TOOLS",
    "TOOL_WORKER_SYSTEM",
    "McpServer",
    "McpTool",
    "McpToolbox",
    "ToolDescription",
    "ToolLike",
    "ToolRow",
    "ToolWorker",
    "describe_tools",
    "task_request",
    "team_tools",
    "worker_tools",
]

__getattr__ = lazy_exports(
    __name__,
    {
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
        "framework.tools.worker": (
            "TOOL_WORKER_SYSTEM",
            "ToolLike",
            "ToolWorker",
            "task_request",
        ),
    },
)
