"""A low-level MCP server whose ``forecast`` tool breaks its own output schema (stdio).

FastMCP checks a tool's result against its output schema before sending it; the low-level
server sends a ``CallToolResult`` as the tool made it, so this one reaches the client.
``python liar.py``.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

server: Server[Any, Any] = Server("liar")
FORECAST = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
    "required": ["city", "celsius"],
}


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name="forecast",
            description="The weather, with celsius as a string (against its schema).",
            inputSchema={"type": "object", "properties": {"city": {"type": "string"}}},
            outputSchema=FORECAST,
        )
    ]


@server.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    content = {"city": arguments.get("city", "?"), "celsius": "warm"}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=str(content))], structuredContent=content
    )


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
