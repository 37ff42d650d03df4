"""The endpoints of LangGraph's server API that ``langgraph-sdk`` calls and cadre does not
serve: each answers 501 naming what is not supported and what to do instead, never a bare
404 or 405. Their routes come after every served one, so a route served later takes over."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from framework.server._http import Handler, caller_of

__all__ = ["UNSUPPORTED", "Unsupported", "is_unsupported", "unsupported_routes"]

_ASSISTANTS = (
    "assistants are not created, changed or deleted over the API: each is one of cadre's "
    "installed teams, at version 1 (see POST /assistants/search); install a team package to "
    "add one, and set review points, max_parallel and model in a run's config.configurable"
)
_CRONS = (
    "crons are not supported: use the fleet's queue (cadre submit) from the scheduler you "
    "have (cron, a systemd timer, a Kubernetes CronJob)"
)


@dataclass(frozen=True)
class Unsupported:
    """An endpoint cadre does not serve: the SDK method that calls it and why it is not."""

    method: str
    path: str
    sdk: str
    reason: str


UNSUPPORTED: tuple[Unsupported, ...] = (
    Unsupported("POST", "/assistants", "assistants.create", _ASSISTANTS),
    Unsupported("PATCH", "/assistants/{assistant_id}", "assistants.update", _ASSISTANTS),
    Unsupported("DELETE", "/assistants/{assistant_id}", "assistants.delete", _ASSISTANTS),
    Unsupported("POST", "/runs/crons", "crons.create", _CRONS),
    Unsupported("POST", "/threads/{thread_id}/runs/crons", "crons.create_for_thread", _CRONS),
    Unsupported("PATCH", "/runs/crons/{cron_id}", "crons.update", _CRONS),
    Unsupported("DELETE", "/runs/crons/{cron_id}", "crons.delete", _CRONS),
    Unsupported("POST", "/runs/crons/search", "crons.search", _CRONS),
    Unsupported("POST", "/runs/crons/count", "crons.count", _CRONS),
    Unsupported(
        "GET",
        "/threads/{thread_id}/stream",
        "threads.join_stream",
        "the thread-level stream is not supported: join each run's stream "
        "(GET /threads/{id}/runs/{run_id}/stream)",
    ),
    Unsupported(
        "POST",
        "/threads/{thread_id}/commands",
        "threads.stream",
        "LangGraph's thread-centric streaming protocol (v3) is not supported: use runs.stream",
    ),
    Unsupported(
        "GET",
        "/threads/{thread_id}/stream/events",
        "threads.stream",
        "LangGraph's thread-centric streaming protocol (v3) is not supported: use runs.stream",
    ),
)
"""Every endpoint ``langgraph-sdk`` calls that cadre does not serve."""


_REFUSALS: dict[Handler, Unsupported] = {}
"""The 501 handlers made, and what each refuses."""


def _refusal(endpoint: Unsupported) -> Handler:
    async def refuse(request: Request) -> Response:
        caller_of(request, "read")  # through the gate: no token, no answer
        raise HTTPException(501, f"{endpoint.method} {endpoint.path}: {endpoint.reason}")

    _REFUSALS[refuse] = endpoint
    return refuse


def unsupported_routes() -> list[Route]:
    """A 501 route for each of :data:`UNSUPPORTED` (put them after every served route)."""
    return [
        Route(endpoint.path, _refusal(endpoint), methods=[endpoint.method])
        for endpoint in UNSUPPORTED
    ]


def is_unsupported(route: Route) -> bool:
    """Whether ``route`` is one of the 501 routes."""
    return route.endpoint in _REFUSALS
