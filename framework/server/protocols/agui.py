"""AG-UI (ag-ui-protocol): each served team over this protocol (being built)."""

from __future__ import annotations

from starlette.routing import BaseRoute

__all__ = ["agui_routes"]


def agui_routes() -> list[BaseRoute]:
    """The routes of this protocol."""
    return []
