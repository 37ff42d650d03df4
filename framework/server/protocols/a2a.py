"""A2A 1.0 (a2a-sdk): each served team over this protocol (being built)."""

from __future__ import annotations

from starlette.routing import BaseRoute

__all__ = ["a2a_routes"]


def a2a_routes() -> list[BaseRoute]:
    """The routes of this protocol."""
    return []
