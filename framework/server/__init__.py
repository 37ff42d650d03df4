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

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.server._requests import RunBody as RunBody
    from framework.server._tables import *
    from framework.server.app import ServerOptions as ServerOptions
    from framework.server.app import build_app as build_app
    from framework.server.run_path.apps import *
    from framework.server.run_path.outage import until_written as until_written
    from framework.server.run_path.owners import add_owned_thread as add_owned_thread
    from framework.server.run_path.owners import claim_for_local as claim_for_local
    from framework.server.run_path.segments import Segments as Segments

__getattr__, __dir__ = lazy_exports(__name__)
