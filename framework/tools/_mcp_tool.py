"""MCP tools as LangChain tools: :class:`McpTool`, made from the adapters' conversion.

``langchain-mcp-adapters`` converts each listed MCP tool (name, prefix, description, JSON
argument schema, annotations) and each result (content blocks, structured content). Its tool
would open a session per call when given no session; here an adapters tool-call interceptor
sends every call to the server's :class:`~framework.tools._mcp_link.ServerLink` instead, and
the resulting :class:`McpTool` runs that on the toolbox's loop, sync or async, through a
:class:`Bridge` (the toolbox).
"""

from __future__ import annotations

import typing
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from langchain_mcp_adapters.interceptors import MCPToolCallRequest
from langchain_mcp_adapters.tools import convert_mcp_tool_to_langchain_tool
from mcp.types import CallToolResult
from mcp.types import Tool as McpToolSpec
from pydantic import ConfigDict, PrivateAttr

from framework.errors import ConfigError, ToolError, ToolServerError
from framework.tools._mcp_config import McpServer
from framework.tools._mcp_link import ServerLink

__all__ = ["Bridge", "McpTool", "Result", "ToolDescription", "allowed", "convert", "describe"]

Result = tuple[Any, Any]
"""What one call gives: ``(content, artifact)``."""
Call = Callable[[dict[str, Any]], Coroutine[Any, Any, Result]]
"""One call of one tool, run on the toolbox's loop: arguments -> (content, artifact)."""


class Bridge(Protocol):
    """What runs a tool's call on the toolbox's loop: blocking, or awaited from another loop."""

    def _call_sync(self, tool: McpTool, work: Coroutine[Any, Any, Result]) -> Result: ...

    async def _call_async(self, tool: McpTool, work: Coroutine[Any, Any, Result]) -> Result: ...


@dataclass(frozen=True)
class ToolDescription:
    """One tool of a started toolbox, for a listing: who serves it and how it is called."""

    server: str
    name: str
    """The name models call it by (prefixed when the server's declaration says so)."""
    server_tool: str
    """The name the server lists it under."""
    description: str
    input_schema: dict[str, Any]
    """The JSON schema of its arguments, as the server lists it."""
    output_schema: dict[str, Any] | None
    """The JSON schema of its structured result, when the server declares one."""


class McpTool(BaseTool):
    """One tool of an MCP server, callable sync (``invoke``) and async (``ainvoke``).

    Calls go to the toolbox's session with the server; see :mod:`framework.tools.mcp` for
    results and errors. Callable while its toolbox is started.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    server: str
    """The declared name of the server it comes from."""
    server_tool: str
    """The tool's name on the server."""
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"

    _spec: McpToolSpec | None = PrivateAttr(default=None)
    _call: Call | None = PrivateAttr(default=None)
    _bridge: Bridge | None = PrivateAttr(default=None)

    def _run(self, **arguments: Any) -> Result:
        bridge, call = self._bound()
        return bridge._call_sync(self, call(arguments))

    async def _arun(self, **arguments: Any) -> Result:
        bridge, call = self._bound()
        return await bridge._call_async(self, call(arguments))

    def _bound(self) -> tuple[Bridge, Call]:
        if self._bridge is None or self._call is None:
            raise ToolServerError(f"MCP tool {self.name!r} belongs to no toolbox")
        return self._bridge, self._call


# LangChain looks for a RunnableConfig parameter with typing.get_type_hints on every call; with
# postponed annotations that means evaluating strings each time: resolve them once here.
for _method in (McpTool._run, McpTool._arun):
    _method.__annotations__ = typing.get_type_hints(_method)


def convert(link: ServerLink, specs: Sequence[McpToolSpec], bridge: Bridge) -> list[McpTool]:
    """The server's listed tools as :class:`McpTool` objects calling through ``link``."""

    async def route(
        request: MCPToolCallRequest,
        handler: Callable[[MCPToolCallRequest], Awaitable[Any]],
    ) -> CallToolResult:
        # the adapters' own handler would open a session per call: use the link's instead
        return await link.call(request.name, request.args)

    tools = []
    for spec in specs:
        adapted = convert_mcp_tool_to_langchain_tool(
            None,
            spec,
            connection=link.connection,
            tool_interceptors=[route],
            server_name=link.name,
            tool_name_prefix=link.server.prefix,
            handle_tool_errors=False,
        )
        tool = McpTool(
            name=adapted.name,
            description=adapted.description,
            args_schema=adapted.args_schema,
            metadata={**(adapted.metadata or {}), "mcp_server": link.name, "mcp_tool": spec.name},
            server=link.name,
            server_tool=spec.name,
        )
        tool._spec = spec
        tool._call = _caller(link, spec.name, adapted)
        tool._bridge = bridge
        tools.append(tool)
    return tools


def allowed(server: McpServer, specs: Sequence[McpToolSpec]) -> list[McpToolSpec]:
    """The listed tools the server's allowlist keeps, in the server's order.

    Raises:
        ConfigError: The allowlist names a tool the server does not list.
    """
    if server.tools is None:
        return list(specs)
    offered = {spec.name for spec in specs}
    missing = [name for name in server.tools if name not in offered]
    if missing:
        raise ConfigError(
            f"MCP server {server.name!r} has no tool named {', '.join(map(repr, missing))} "
            f"(its allowlist, tools:); it offers: {', '.join(sorted(offered)) or 'nothing'}"
        )
    return [spec for spec in specs if spec.name in server.tools]


def describe(tool: McpTool) -> ToolDescription:
    """The listing of one tool."""
    spec = tool._spec
    assert spec is not None
    return ToolDescription(
        server=tool.server,
        name=tool.name,
        server_tool=spec.name,
        description=spec.description or "",
        input_schema=dict(spec.inputSchema),
        output_schema=dict(spec.outputSchema) if spec.outputSchema else None,
    )


def _caller(link: ServerLink, name: str, adapted: BaseTool) -> Call:
    """The coroutine function one call runs on the toolbox's loop: the adapters' tool, whose
    interceptor routes to the link, with its errors made :class:`ToolError`."""
    assert isinstance(adapted, StructuredTool) and adapted.coroutine is not None
    coroutine = adapted.coroutine

    async def call(arguments: dict[str, Any]) -> Result:
        try:
            content, artifact = await coroutine(**arguments)
        except ToolError:
            raise
        except ToolException as error:
            raise ToolError(
                f"MCP tool {name!r} on server {link.name!r} reported an error: {error}"
            ) from None
        except Exception as error:
            raise ToolError(
                f"MCP tool {name!r} on server {link.name!r}: its result could not be used "
                f"({type(error).__name__}: {error})"
            ) from error
        return _simplified(content), artifact

    return call


def _simplified(content: Any) -> Any:
    """One text block becomes its text; anything else stays as the adapters made it."""
    if (
        isinstance(content, list)
        and len(content) == 1
        and isinstance(content[0], dict)
        and content[0].get("type") == "text"
    ):
        return content[0].get("text", "")
    return content
