"""The reviewer console: server-rendered pages for the reviews, threads and runs of a tenant,
signed in with an API token (no JavaScript build step; a little plain JavaScript follows a
running thread)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.server.console._pages import console_error, console_routes
    from framework.server.console._sessions import Sessions

__all__ = ["Sessions", "console_error", "console_routes"]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.server.console._pages": ("console_error", "console_routes"),
        "framework.server.console._sessions": ("Sessions",),
    },
)
