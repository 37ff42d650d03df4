"""Assistants: one per served team (see :mod:`framework.server._served` for their names and
ids), at version 1; their graphs, schemas and nested teams.
Assistants are not created, changed or deleted over the API (see ``_unsupported``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from framework.runs.launch import LaunchRequest
from framework.runs.spec import RunSpec
from framework.server._http import blocking, body_of, caller_of, json_response, server_of
from framework.server._requests import (
    AssistantCountBody,
    AssistantLatestBody,
    AssistantSearchBody,
    AssistantVersionsBody,
)
from framework.server._schemas import graph_schemas, team_schemas
from framework.server._served import (
    assistant_id,
    assistant_name,
    served_teams,
    team_description,
    team_of,
)
from framework.server._shapes import iso

__all__ = ["assistant_routes"]

App = CompiledStateGraph[Any, Any, Any, Any]

_EPOCH = 1_790_000_000.0  # assistants are as old as the server's teams: a fixed time


def _assistant(team: str) -> dict[str, Any]:
    name = assistant_name(team)
    what = team_description(team)
    return {
        "assistant_id": assistant_id(team),
        "graph_id": name,
        "config": {"configurable": {}},
        "context": {},
        "created_at": iso(_EPOCH),
        "updated_at": iso(_EPOCH),
        "metadata": {"created_by": "system"},
        "version": 1,
        "name": name,
        "description": what,
    }


async def _get(request: Request) -> Response:
    caller_of(request, "read")
    return json_response(_assistant(team_of(request.path_params["assistant_id"])))


def _matching(body: AssistantCountBody) -> list[dict[str, Any]]:
    """The assistants a search or count names (``name`` as a substring, any case)."""
    return [
        assistant
        for assistant in map(_assistant, served_teams())
        if body.graph_id in (None, assistant["graph_id"])
        and (body.name is None or body.name.lower() in assistant["name"].lower())
        and _has(assistant["metadata"], body.metadata)
    ]


def _has(metadata: dict[str, Any], wanted: dict[str, Any] | None) -> bool:
    return all(metadata.get(key) == value for key, value in (wanted or {}).items())


def _selected(
    items: Iterable[dict[str, Any]], select: Sequence[str] | None
) -> list[dict[str, Any]]:
    """Only the fields ``select`` names of each item (all without it)."""
    if not select:
        return list(items)
    return [{key: item[key] for key in select if key in item} for item in items]


async def _search(request: Request) -> Response:
    caller_of(request, "read")
    body = await body_of(request, AssistantSearchBody)
    found = _matching(body)
    if body.sort_by is not None:
        found.sort(key=lambda item: str(item[body.sort_by or "name"]))
        if body.sort_order == "desc":
            found.reverse()
    page = found[body.offset : body.offset + body.limit]
    more = body.offset + body.limit < len(found)
    headers = {"X-Pagination-Next": str(body.offset + body.limit)} if more else None
    return json_response(_selected(page, body.select), headers=headers)


async def _count(request: Request) -> Response:
    caller_of(request, "read")
    body = await body_of(request, AssistantCountBody)
    return json_response(len(_matching(body)))


async def _versions(request: Request) -> Response:
    """An assistant's versions: one, the team as installed."""
    caller_of(request, "read")
    body = await body_of(request, AssistantVersionsBody)
    assistant = _assistant(team_of(request.path_params["assistant_id"]))
    version = {key: value for key, value in assistant.items() if key != "updated_at"}
    found = [version] if _has(version["metadata"], body.metadata) else []
    return json_response(found[body.offset : body.offset + body.limit])


async def _set_latest(request: Request) -> Response:
    """Make a version the latest: version 1, the only one, is."""
    caller_of(request, "read")
    body = await body_of(request, AssistantLatestBody)
    team = team_of(request.path_params["assistant_id"])
    if body.version != 1:
        raise HTTPException(
            404,
            f"assistant {team} has no version {body.version}: an assistant is an installed "
            "team, at version 1 (install another version of its package to change it)",
        )
    return json_response(_assistant(team))


def _with_app(request: Request, team: str, work: Callable[[App], Any]) -> Any:
    """``work`` done on the team's app (compiled to read only)."""
    server = server_of(request)
    launch = LaunchRequest(spec=RunSpec(team=team), home=server.home, read_only=True)
    with server.apps.use(launch) as app:
        return work(app.app)


async def _graph(request: Request) -> Response:
    caller_of(request, "read")
    team = team_of(request.path_params["assistant_id"])
    xray = request.query_params.get("xray", "false")
    depth: bool | int = int(xray) if xray.isdigit() else xray == "true"
    graph = await blocking(_with_app, request, team, lambda app: app.get_graph(xray=depth))
    return json_response(graph.to_json())


async def _schemas(request: Request) -> Response:
    caller_of(request, "read")
    team = team_of(request.path_params["assistant_id"])
    schemas = await blocking(team_schemas, server_of(request), team)
    return json_response(schemas.json())


async def _subgraphs(request: Request) -> Response:
    """The team's nested teams by namespace (``research_team``; with ``recurse``, theirs
    too: ``extraction_team|document``), each with its schemas."""
    caller_of(request, "read")
    team = team_of(request.path_params["assistant_id"])
    namespace = request.path_params.get("namespace")
    recurse = request.query_params.get("recurse", "false") == "true"

    def nested(app: App) -> dict[str, Any]:
        return {
            name: graph_schemas(team, subgraph).json()
            for name, subgraph in app.get_subgraphs(namespace=namespace, recurse=recurse)
        }

    found: dict[str, Any] = await blocking(_with_app, request, team, nested)
    if namespace is not None and not found:
        raise HTTPException(404, f"team {team} has no nested team {namespace}")
    return json_response(found)


def assistant_routes() -> list[Route]:
    """The assistants endpoints."""
    return [
        Route("/assistants/search", _search, methods=["POST"]),
        Route("/assistants/count", _count, methods=["POST"]),
        Route("/assistants/{assistant_id}", _get, methods=["GET"]),
        Route("/assistants/{assistant_id}/graph", _graph, methods=["GET"]),
        Route("/assistants/{assistant_id}/schemas", _schemas, methods=["GET"]),
        Route("/assistants/{assistant_id}/subgraphs", _subgraphs, methods=["GET"]),
        Route("/assistants/{assistant_id}/subgraphs/{namespace}", _subgraphs, methods=["GET"]),
        Route("/assistants/{assistant_id}/versions", _versions, methods=["POST"]),
        Route("/assistants/{assistant_id}/latest", _set_latest, methods=["POST"]),
    ]
