"""LangGraph's server API (the part ``langgraph-sdk`` and ``RemoteGraph`` speak, see
docs/server.md), one private module per group of routes: assistants, threads (and their
search, time to live and pruning), runs on a thread and stateless runs, the store, ``/info``
with the OpenAPI document, and the endpoints not supported (501, served last). Runs start and
end on the shared run path (:mod:`framework.server.run_path`)."""

from __future__ import annotations

from framework.server.langgraph_api._assistants import assistant_routes
from framework.server.langgraph_api._expiry import prune_routes, sweep_forever
from framework.server.langgraph_api._info import info_routes
from framework.server.langgraph_api._run_routes import run_routes
from framework.server.langgraph_api._stateless import stateless_routes
from framework.server.langgraph_api._store_routes import store_routes
from framework.server.langgraph_api._thread_search import thread_search_routes
from framework.server.langgraph_api._threads import thread_routes
from framework.server.langgraph_api._unsupported import unsupported_routes

__all__ = [
    "assistant_routes",
    "info_routes",
    "prune_routes",
    "run_routes",
    "stateless_routes",
    "store_routes",
    "sweep_forever",
    "thread_routes",
    "thread_search_routes",
    "unsupported_routes",
]
