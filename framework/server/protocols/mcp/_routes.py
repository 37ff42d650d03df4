"""The MCP endpoint's routes and the SDK's session manager, kept while the server runs."""

from __future__ import annotations

import contextlib
import importlib.metadata
from collections.abc import AsyncIterator
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server as McpServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import State
from starlette.requests import Request
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from framework.server.protocols._base import Authenticated, jsonrpc_refusal
from framework.server.protocols.mcp._tools import call_tool, list_tools

__all__ = ["mcp_routes", "mcp_sessions"]


def _mcp_server() -> McpServer[Any, Request]:
    """The MCP server: its tools, each call answered as the request's caller."""
    server: McpServer[Any, Request] = McpServer(
        "cadre",
        version=importlib.metadata.version("cadre"),
        instructions=(
            "Each tool but answer_review asks one of cadre's teams a question and answers "
            "with sources cited. A run that pauses for a human review returns its reviews: "
            "answer them with answer_review."
        ),
    )

    @server.list_tools()  # type: ignore[no-untyped-call,untyped-decorator]
    async def listed() -> list[types.Tool]:
        return await list_tools()

    @server.call_tool()  # type: ignore[untyped-decorator]
    async def called(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        return await call_tool(name, arguments, server.request_context)

    return server


@contextlib.asynccontextmanager
async def mcp_sessions(state: State) -> AsyncIterator[None]:
    """Serve MCP requests while the block runs (the server's lifespan): the SDK's session
    manager, stateless, kept in ``state``."""
    sessions = StreamableHTTPSessionManager(_mcp_server(), stateless=True)
    state.mcp = sessions
    async with sessions.run():
        yield


async def _endpoint(scope: Scope, receive: Receive, send: Send) -> None:
    sessions: StreamableHTTPSessionManager = scope["app"].state.mcp
    await sessions.handle_request(scope, receive, send)


def mcp_routes() -> list[BaseRoute]:
    """``/mcp``: MCP's streamable HTTP endpoint, POST only (without sessions there is no
    stream for the server's own messages to GET, nor a session to DELETE: 405)."""
    return [Route("/mcp", Authenticated(_endpoint, refuse=jsonrpc_refusal(400)), methods=["POST"])]
