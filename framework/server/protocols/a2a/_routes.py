"""The routes of the A2A agents: each served team's agent card and JSON-RPC endpoint, and the
host's card (the default team's, naming every team's card)."""

from __future__ import annotations

import importlib.metadata
import logging
from collections.abc import Mapping
from pathlib import Path

from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes import create_jsonrpc_routes
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentSkill,
    APIKeySecurityScheme,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH, PROTOCOL_VERSION_CURRENT
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, Router

from framework.kinds.team_file import load_team_file
from framework.runs.teams import DEFAULT_TEAM, TEAM_FILE_PREFIX
from framework.server.protocols._base import Authenticated, ServedTeam, jsonrpc_refusal, served
from framework.server.protocols.a2a._calls import AuthenticatedCalls
from framework.server.protocols.a2a._handler import TeamHandler

__all__ = ["TEAM_CARDS", "a2a_routes"]

TEAM_CARDS = "urn:cadre:a2a:team-cards"
"""The extension of the host's card whose parameters name each served team's card."""
_TEAM_CARDS_SAY = (
    "Every team this server serves is an A2A agent of its own: its parameters map each team's "
    "name to its agent card"
)

_PREFIX = "/a2a"
_MODES = ["text/plain", "application/json"]
_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
_SECURITY = {
    "apiKey": SecurityScheme(
        api_key_security_scheme=APIKeySecurityScheme(
            location="header", name="x-api-key", description="a cadre API token"
        )
    ),
    "bearer": SecurityScheme(
        http_auth_security_scheme=HTTPAuthSecurityScheme(
            scheme="Bearer", description="a cadre API token"
        )
    ),
}


def _kinds(team: ServedTeam) -> list[str]:
    """The task kinds of a team file's team (none for an installed team: its planner says)."""
    if not team.team.startswith(TEAM_FILE_PREFIX):
        return []
    spec = load_team_file(Path(team.team.removeprefix(TEAM_FILE_PREFIX))).spec
    return [kind.name for kind in spec.kinds]


def _card(team: ServedTeam, url: str) -> AgentCard:
    """The agent card of ``team``, its JSON-RPC endpoint at ``url``."""
    kinds = _kinds(team)
    skill = AgentSkill(
        id=team.name,
        name=team.name,
        description=(
            f"Answers a question with its sources cited ({team.description}); a run may "
            "pause for a human review of its plan, tasks or answer"
            + (f"; its workers take tasks of kind {', '.join(kinds)}" if kinds else "")
        ),
        tags=["cadre", "research", *kinds],
    )
    return AgentCard(
        name=team.name,
        description=team.description,
        version=importlib.metadata.version("cadre"),
        supported_interfaces=[
            AgentInterface(
                url=url, protocol_binding="JSONRPC", protocol_version=PROTOCOL_VERSION_CURRENT
            )
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=_MODES,
        default_output_modes=_MODES,
        skills=[skill],
        security_schemes=_SECURITY,
        security_requirements=[
            SecurityRequirement(schemes={name: StringList()}) for name in _SECURITY
        ],
    )


def _at(card: AgentCard, endpoint: str) -> AgentCard:
    """``card`` naming its JSON-RPC endpoint at the absolute address ``endpoint``."""
    here = AgentCard()
    here.CopyFrom(card)
    here.supported_interfaces[0].url = endpoint
    return here


def _card_route(team: ServedTeam, card: AgentCard) -> Route:
    """The card, its endpoint named by the address the caller reached it at."""
    path = f"/{team.name}{AGENT_CARD_WELL_KNOWN_PATH}"

    async def shown(request: Request) -> Response:
        address = str(request.url.replace(query="", fragment=""))
        here = _at(card, address.removesuffix(AGENT_CARD_WELL_KNOWN_PATH))
        return JSONResponse(agent_card_to_dict(here))

    return Route(path, shown, methods=["GET"])


def _root_card_route(cards: Mapping[str, AgentCard]) -> Route:
    """The host's card, where A2A clients look first: the default team's card (the first
    served team's when it is not served), with an extension naming every served team's card
    by team name."""
    name = DEFAULT_TEAM if DEFAULT_TEAM in cards else next(iter(cards))

    async def shown(request: Request) -> Response:
        agents = f"{str(request.base_url).rstrip('/')}{_PREFIX}"
        here = _at(cards[name], f"{agents}/{name}")
        listing = AgentExtension(uri=TEAM_CARDS, description=_TEAM_CARDS_SAY)
        listing.params.update(
            {team: f"{agents}/{team}{AGENT_CARD_WELL_KNOWN_PATH}" for team in cards}
        )
        here.capabilities.extensions.append(listing)
        return JSONResponse(agent_card_to_dict(here))

    return Route(AGENT_CARD_WELL_KNOWN_PATH, shown, methods=["GET"])


async def _other_binding(request: Request) -> Response:
    raise HTTPException(
        501,
        "A2A's HTTP+JSON and gRPC bindings are not supported: call the JSON-RPC endpoint the "
        "agent card names",
    )


def _quiet_sdk() -> None:
    """Keep a2a-sdk's debug logging off: it logs request bodies (questions) and call contexts
    (headers), and nothing sensitive goes to cadre's logs unless asked for."""
    sdk = logging.getLogger("a2a")
    if sdk.getEffectiveLevel() < logging.INFO:
        sdk.setLevel(logging.INFO)


def a2a_routes() -> list[BaseRoute]:
    """``/a2a/{name}`` (JSON-RPC, authenticated, with or without a final slash) and its public
    card, for every served team, and the host's public card (:func:`_root_card_route`); any
    other path under an agent answers 501."""
    _quiet_sdk()
    routes: list[BaseRoute] = []
    public = []
    cards = {}
    for team in served():
        card = cards[team.name] = _card(team, f"{_PREFIX}/{team.name}")
        routes.append(_card_route(team, card))
        public.append(f"/{team.name}{AGENT_CARD_WELL_KNOWN_PATH}")
        handler = TeamHandler(team, card)
        for endpoint in (f"/{team.name}", f"/{team.name}/"):  # a client may add the slash
            routes += create_jsonrpc_routes(handler, endpoint, context_builder=AuthenticatedCalls())
        routes.append(Route(f"/{team.name}/{{rest:path}}", _other_binding, methods=_METHODS))
    return [
        _root_card_route(cards),
        Mount(
            _PREFIX,
            app=Authenticated(Router(routes), public=public, refuse=jsonrpc_refusal(200)),
        ),
    ]
