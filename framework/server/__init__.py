"""The HTTP API (LangGraph's server API; A2A, MCP and AG-UI in :mod:`.protocols`) and the
reviewer console, and what the fleet shares with them: the tables of threads and runs, the apps
of served teams, the run segments and the queue. It may import runs and everything below, and
the fleet's queue (``serve --queue``); never the CLI. Names load on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.server._apps import TeamApps
    from framework.server._outage import until_written
    from framework.server._owners import add_owned_thread, claim_for_local
    from framework.server._queued import QueuedRuns
    from framework.server._requests import RunBody
    from framework.server._segments import Segments
    from framework.server._tables import UNFINISHED, RunRow, ServerTables, ThreadRow
    from framework.server.app import ServerOptions, build_app

__all__ = [
    "UNFINISHED",
    "QueuedRuns",
    "RunBody",
    "RunRow",
    "Segments",
    "ServerOptions",
    "ServerTables",
    "TeamApps",
    "ThreadRow",
    "add_owned_thread",
    "build_app",
    "claim_for_local",
    "until_written",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.server._apps": ("TeamApps",),
        "framework.server._outage": ("until_written",),
        "framework.server._owners": ("add_owned_thread", "claim_for_local"),
        "framework.server._queued": ("QueuedRuns",),
        "framework.server._requests": ("RunBody",),
        "framework.server._segments": ("Segments",),
        "framework.server._tables": ("UNFINISHED", "RunRow", "ServerTables", "ThreadRow"),
        "framework.server.app": ("ServerOptions", "build_app"),
    },
)
