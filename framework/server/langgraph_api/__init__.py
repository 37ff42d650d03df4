"""LangGraph's server API (the part ``langgraph-sdk`` and ``RemoteGraph`` speak, see
docs/server.md), one private module per group of routes: assistants, threads (and their
search, time to live and pruning), runs on a thread and stateless runs, the store, ``/info``
with the OpenAPI document, and the endpoints not supported (501, served last). Runs start and
end on the shared run path (:mod:`framework.server.run_path`)."""

from framework._lazy import lazy_exports
from framework.server.langgraph_api._assistants import *
from framework.server.langgraph_api._expiry import prune_routes as prune_routes
from framework.server.langgraph_api._expiry import sweep_forever as sweep_forever
from framework.server.langgraph_api._info import info_routes as info_routes
from framework.server.langgraph_api._run_routes import run_routes as run_routes
from framework.server.langgraph_api._stateless import *
from framework.server.langgraph_api._store_routes import *
from framework.server.langgraph_api._thread_search import (
    thread_search_routes as thread_search_routes,
)
from framework.server.langgraph_api._threads import thread_routes as thread_routes
from framework.server.langgraph_api._unsupported import unsupported_routes as unsupported_routes

__getattr__, __dir__ = lazy_exports(__name__)
