"""Assistants: one per installed team, its id a fixed UUID of its name (a team's name is
accepted wherever an assistant id is)."""

from __future__ import annotations

import functools
import typing
import uuid
from collections.abc import Callable
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from framework.runs.launch import LaunchRequest
from framework.runs.spec import RunSpec
from framework.runs.teams import available_teams
from framework.server._http import blocking, body_of, caller_of, json_response, server_of
from framework.server._requests import AssistantSearchBody
from framework.server._shapes import iso

__all__ = ["assistant_routes", "team_of"]

App = CompiledStateGraph[Any, Any, Any, Any]

_NAMESPACE = uuid.UUID("6f1c1c2e-52b1-4c8e-9f41-3b5f1cb1a0d7")
_EPOCH = 1_790_000_000.0  # assistants are as old as the server's teams: a fixed time


def assistant_id(team: str) -> str:
    """The assistant id of a team."""
    return str(uuid.uuid5(_NAMESPACE, team))


@functools.cache
def _teams() -> tuple[str, ...]:
    """The installed teams, listed once (reading every package's entry points is slow)."""
    return tuple(available_teams())


def team_of(assistant: str) -> str:
    """The team an assistant id (or a team name) names.

    Raises:
        HTTPException: 404 for an assistant that is not there.
    """
    for team in _teams():
        if assistant in (team, assistant_id(team)):
            return team
    raise HTTPException(404, f"assistant {assistant} not found")


def _assistant(team: str) -> dict[str, Any]:
    return {
        "assistant_id": assistant_id(team),
        "graph_id": team,
        "config": {"configurable": {}},
        "context": {},
        "created_at": iso(_EPOCH),
        "updated_at": iso(_EPOCH),
        "metadata": {"created_by": "system"},
        "version": 1,
        "name": team,
        "description": f"cadre's {team} team",
    }


async def _get(request: Request) -> Response:
    caller_of(request, "read")
    return json_response(_assistant(team_of(request.path_params["assistant_id"])))


async def _search(request: Request) -> Response:
    caller_of(request, "read")
    body = await body_of(request, AssistantSearchBody)
    teams = [
        team
        for team in _teams()
        if body.graph_id in (None, team) and body.name in (None, team) and not body.metadata
    ]
    page = teams[body.offset : body.offset + body.limit]
    return json_response([_assistant(team) for team in page])


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
    schemas = await blocking(_with_app, request, team, _schemas_of)
    return json_response({"graph_id": team, **schemas})


def _schemas_of(app: App) -> dict[str, Any]:
    return {
        "input_schema": _schema(app, "input"),
        "output_schema": _schema(app, "output"),
        "state_schema": _schema(app, "output"),
        "config_schema": None,
        "context_schema": None,
    }


def _schema(app: App, which: str) -> dict[str, Any]:
    """The JSON schema LangGraph derives; where it cannot (a TypedDict of ``typing`` on this
    Python), the state's keys with no types."""
    try:
        getter = app.get_input_jsonschema if which == "input" else app.get_output_jsonschema
        schema: dict[str, Any] = getter()
        return schema
    except Exception:
        typ = app.builder.input_schema if which == "input" else app.builder.output_schema
        names = typing.get_type_hints(typ, include_extras=False) if typ is not None else {}
        return {
            "title": getattr(typ, "__name__", which),
            "type": "object",
            "properties": {name: {} for name in names},
        }


def assistant_routes() -> list[Route]:
    """The assistants endpoints."""
    return [
        Route("/assistants/search", _search, methods=["POST"]),
        Route("/assistants/{assistant_id}", _get, methods=["GET"]),
        Route("/assistants/{assistant_id}/graph", _graph, methods=["GET"]),
        Route("/assistants/{assistant_id}/schemas", _schemas, methods=["GET"]),
    ]
