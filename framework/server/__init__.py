"""The HTTP API and the reviewer console, and what the fleet and the CLI share with them.

- :mod:`.run_path`: the run path every door shares, from admission to outcome;
- :mod:`.langgraph_api`: LangGraph's server API;
- :mod:`.protocols`: A2A, MCP and AG-UI, one sub-package each over a shared base;
- :mod:`.console`: the reviewer console;
- :mod:`.app`: the app of ``cadre serve``; :mod:`.tokens`: its API tokens;
- private modules every part shares: the server's parts and errors as JSON (``_http``), the
  tables of threads and runs (``_tables``), request bodies, answer shapes, the served teams'
  names and schemas.

It may import runs and everything below; never the fleet nor the CLI (``cadre serve --queue``
hands the app the fleet's dispatch). Names load on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.server._requests import RunBody
    from framework.server._tables import (
        RUN_EVENTS_CHANNEL,
        UNFINISHED,
        RunRow,
        ServerTables,
        ThreadRow,
    )
    from framework.server.app import ServerOptions, build_app
    from framework.server.run_path.apps import TeamApps
    from framework.server.run_path.outage import until_written
    from framework.server.run_path.owners import add_owned_thread, claim_for_local
    from framework.server.run_path.segments import Segments

__all__ = [
    "RUN_EVENTS_CHANNEL",
    "UNFINISHED",
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
        "framework.server._requests": ("RunBody",),
        "framework.server._tables": (
            "RUN_EVENTS_CHANNEL",
            "UNFINISHED",
            "RunRow",
            "ServerTables",
            "ThreadRow",
        ),
        "framework.server.app": ("ServerOptions", "build_app"),
        "framework.server.run_path.apps": ("TeamApps",),
        "framework.server.run_path.outage": ("until_written",),
        "framework.server.run_path.owners": ("add_owned_thread", "claim_for_local"),
        "framework.server.run_path.segments": ("Segments",),
    },
)
