"""What the server says about itself: ``GET /info`` (versions and what it supports) and
``GET /openapi.json``, an OpenAPI 3.1 document of the routes it serves, read from its route
table (the 501 ones and the console left out), with the request bodies it checks."""

from __future__ import annotations

import importlib.metadata
import re
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from framework.server._http import caller_of, json_response, server_of
from framework.server._requests import (
    AssistantCountBody,
    AssistantLatestBody,
    AssistantSearchBody,
    AssistantVersionsBody,
    DeleteItemBody,
    HistoryBody,
    NamespacesBody,
    PutItemBody,
    RunBody,
    SearchItemsBody,
    StateBody,
    StateUpdateBody,
    ThreadBody,
    ThreadCountBody,
    ThreadPruneBody,
    ThreadSearchBody,
    ThreadUpdateBody,
)
from framework.server.langgraph_api._unsupported import is_unsupported

__all__ = ["OPERATIONS", "info_routes", "openapi_document"]

_RUNS = "/threads/{thread_id}/runs"

OPERATIONS: dict[tuple[str, str], tuple[str, type[BaseModel] | None]] = {
    ("GET", "/info"): ("info", None),
    ("GET", "/openapi.json"): ("openapi", None),
    ("POST", "/assistants/search"): ("assistants.search", AssistantSearchBody),
    ("POST", "/assistants/count"): ("assistants.count", AssistantCountBody),
    ("GET", "/assistants/{assistant_id}"): ("assistants.get", None),
    ("GET", "/assistants/{assistant_id}/graph"): ("assistants.get_graph", None),
    ("GET", "/assistants/{assistant_id}/schemas"): ("assistants.get_schemas", None),
    ("GET", "/assistants/{assistant_id}/subgraphs"): ("assistants.get_subgraphs", None),
    ("GET", "/assistants/{assistant_id}/subgraphs/{namespace}"): (
        "assistants.get_subgraphs (namespace)",
        None,
    ),
    ("POST", "/assistants/{assistant_id}/versions"): (
        "assistants.get_versions",
        AssistantVersionsBody,
    ),
    ("POST", "/assistants/{assistant_id}/latest"): ("assistants.set_latest", AssistantLatestBody),
    ("POST", "/threads"): ("threads.create", ThreadBody),
    ("POST", "/threads/search"): ("threads.search", ThreadSearchBody),
    ("POST", "/threads/count"): ("threads.count", ThreadCountBody),
    ("POST", "/threads/prune"): ("threads.prune", ThreadPruneBody),
    ("GET", "/threads/{thread_id}"): ("threads.get", None),
    ("PATCH", "/threads/{thread_id}"): ("threads.update", ThreadUpdateBody),
    ("DELETE", "/threads/{thread_id}"): ("threads.delete", None),
    ("POST", "/threads/{thread_id}/copy"): ("threads.copy", None),
    ("GET", "/threads/{thread_id}/state"): ("threads.get_state", None),
    ("POST", "/threads/{thread_id}/state"): ("threads.update_state", StateUpdateBody),
    ("POST", "/threads/{thread_id}/state/checkpoint"): (
        "threads.get_state (checkpoint)",
        StateBody,
    ),
    ("GET", "/threads/{thread_id}/state/{checkpoint_id}"): (
        "threads.get_state (checkpoint_id)",
        None,
    ),
    ("POST", "/threads/{thread_id}/history"): ("threads.get_history", HistoryBody),
    ("POST", _RUNS): ("runs.create", RunBody),
    ("GET", _RUNS): ("runs.list", None),
    ("POST", f"{_RUNS}/wait"): ("runs.wait", RunBody),
    ("POST", f"{_RUNS}/stream"): ("runs.stream", RunBody),
    ("GET", f"{_RUNS}/{{run_id}}"): ("runs.get", None),
    ("DELETE", f"{_RUNS}/{{run_id}}"): ("runs.delete", None),
    ("GET", f"{_RUNS}/{{run_id}}/join"): ("runs.join", None),
    ("GET", f"{_RUNS}/{{run_id}}/stream"): ("runs.join_stream", None),
    ("POST", f"{_RUNS}/{{run_id}}/cancel"): ("runs.cancel", None),
    ("POST", "/runs"): ("runs.create (no thread)", RunBody),
    ("POST", "/runs/wait"): ("runs.wait (no thread)", RunBody),
    ("POST", "/runs/stream"): ("runs.stream (no thread)", RunBody),
    ("PUT", "/store/items"): ("store.put_item", PutItemBody),
    ("GET", "/store/items"): ("store.get_item", None),
    ("DELETE", "/store/items"): ("store.delete_item", DeleteItemBody),
    ("POST", "/store/items/search"): ("store.search_items", SearchItemsBody),
    ("POST", "/store/namespaces"): ("store.list_namespaces", NamespacesBody),
}
"""Each served route's ``langgraph-sdk`` method and the body it checks (None: no body); a
route missing here is documented by its method and path alone, its body undescribed."""

_PARAMETER = re.compile(r"{([^}:]+)(?::[^}]+)?}")
_ERROR = {
    "description": "an error, with one line saying what to do",
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {"detail": {"type": "string"}},
                "required": ["detail"],
            }
        }
    },
}


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


async def _info(request: Request) -> Response:
    caller_of(request, "read")
    server = server_of(request)
    return json_response(
        {
            "version": _version("cadre"),
            "langgraph_py_version": _version("langgraph"),
            "flags": {
                "assistants": True,
                "crons": False,
                "langsmith": False,
                "langsmith_tracing_replicas": False,
                "store": True,
                "thread_ttl": True,
                "queue": server.runs.on_queue,
                "auth": server.tokens is not None,
            },
            "host": {"kind": "cadre", "project_id": None, "revision_id": None, "tenant_id": None},
        }
    )


def openapi_document(routes: list[Any]) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``routes`` (the app's): every served route of the API."""
    paths: dict[str, dict[str, Any]] = {}
    schemas: dict[str, Any] = {}
    for route in routes:
        if not isinstance(route, Route) or _hidden(route):
            continue
        path = _PARAMETER.sub(r"{\1}", route.path)
        for method in sorted((route.methods or set()) - {"HEAD"}):
            paths.setdefault(path, {})[method.lower()] = _operation(method, path, schemas)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "cadre: LangGraph's server API",
            "version": _version("cadre") or "0",
            "description": "The part of LangGraph's server API cadre serves (docs/server.md); "
            "what langgraph-sdk calls and cadre does not serve answers 501.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"},
                "bearer": {"type": "http", "scheme": "bearer"},
            },
        },
        "security": [{"apiKey": []}, {"bearer": []}],
    }


def _hidden(route: Route) -> bool:
    """Whether a route is left out: the console's pages, the agent protocols' endpoints (each
    described by its own protocol: docs/protocols.md), the 501 routes, the health probes."""
    own = route.path.startswith(("/console", "/mcp", "/a2a", "/agui"))
    return own or is_unsupported(route) or route.path in ("/", "/ok")


def _operation(method: str, path: str, schemas: dict[str, Any]) -> dict[str, Any]:
    sdk, body = OPERATIONS.get((method, path), (f"{method} {path}", None))
    operation: dict[str, Any] = {
        "operationId": re.sub(r"\W+", "_", f"{method}_{path}").strip("_").lower(),
        "summary": sdk,
        "parameters": [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in _PARAMETER.findall(path)
        ],
        "responses": {"200": {"description": "the answer"}, "default": _ERROR},
    }
    if body is not None:
        schema = body.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(schema.pop("$defs", {}))
        schemas[body.__name__] = schema
        operation["requestBody"] = {
            "required": bool(schema.get("required")),
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{body.__name__}"}}
            },
        }
    return operation


async def _openapi(request: Request) -> Response:
    caller_of(request, "read")
    return json_response(openapi_document(list(request.app.routes)))


def info_routes() -> list[Route]:
    """``/info`` and ``/openapi.json``."""
    return [
        Route("/info", _info, methods=["GET"]),
        Route("/openapi.json", _openapi, methods=["GET"]),
    ]
