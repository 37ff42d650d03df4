"""MCP over streamable HTTP (the mcp SDK): each served team over this protocol (being built)."""

from __future__ import annotations

from starlette.routing import BaseRoute

__all__ = ["mcp_routes"]


def mcp_routes() -> list[BaseRoute]:
    """The routes of this protocol."""
    return []
