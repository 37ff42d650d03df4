"""Tools for workers: a generic tool-calling worker, tools from MCP servers, and what a team's
workers can call (``cadre tools list``).

It may import the engine, models, storage and policy; never kinds, runs or anything above
them."""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.tools.listing import ANY_KIND as ANY_KIND
    from framework.tools.listing import NO_TOOLS as NO_TOOLS
    from framework.tools.listing import ToolRow as ToolRow
    from framework.tools.listing import team_tools as team_tools
    from framework.tools.listing import worker_tools as worker_tools
    from framework.tools.mcp import *
    from framework.tools.worker import TOOL_WORKER_SYSTEM as TOOL_WORKER_SYSTEM
    from framework.tools.worker import ToolLike as ToolLike
    from framework.tools.worker import ToolWorker as ToolWorker
    from framework.tools.worker import task_request as task_request

__getattr__, __dir__ = lazy_exports(__name__)
