"""``cadre serve``: the installed teams behind LangGraph's server API (the part
``langgraph-sdk`` speaks, see ``docs/server.md``), the agent protocols and the reviewer console,
one process; runs executed in it unless the app is handed another dispatch."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from framework.database.home import DataHome
from framework.errors import CadreError, ConfigError
from framework.memory import ingest_corpus
from framework.memory.langgraph_store import LangGraphStore
from framework.runs.observe import ObserverOptions
from framework.runs.stores import home_checkpointer, home_cipher, home_store
from framework.runs.teams import offer_team_files
from framework.server._http import Server, error_response, json_response
from framework.server._local import LocalOnly
from framework.server._tables import ServerTables
from framework.server._trace_context import TraceContextIn
from framework.server.console import Sessions, console_error, console_routes
from framework.server.langgraph_api import (
    assistant_routes,
    info_routes,
    prune_routes,
    run_routes,
    stateless_routes,
    store_routes,
    sweep_forever,
    thread_routes,
    thread_search_routes,
    unsupported_routes,
)
from framework.server.protocols.a2a import a2a_routes
from framework.server.protocols.agui import agui_routes
from framework.server.protocols.mcp import mcp_routes, mcp_sessions
from framework.server.run_path.apps import TeamApps
from framework.server.run_path.dispatch import DispatchFactory, RunDispatch
from framework.server.run_path.in_process import Runs
from framework.server.run_path.segments import Segments
from framework.server.tokens import TokenStore

__all__ = ["MAX_AGUI_BODY_BYTES", "MAX_BODY_BYTES", "ServerOptions", "build_app"]

logger = logging.getLogger("cadre.server")

MAX_BODY_BYTES = 1_048_576
"""The largest request body accepted (413 beyond)."""
MAX_AGUI_BODY_BYTES = 32 * MAX_BODY_BYTES
"""The largest AG-UI request body: its clients resend the conversation with every run (only
the last user message is read; it is read at all only for an authenticated caller)."""


@dataclass(frozen=True, kw_only=True)
class ServerOptions:
    """How a server runs."""

    home: DataHome
    no_auth: bool = False
    """Serve without tokens (every caller is tenant ``default``, user ``local``)."""
    corpus: Path | None = None
    """A folder to index into the store when the server starts."""
    workers: int = 8
    """How many runs execute at once."""
    policy: str | None = None
    """The text of the policy file governing the runs started over the API (each acting for
    its token's principal)."""
    observe: ObserverOptions | None = field(default_factory=ObserverOptions)
    """How runs are observed (traces under the home by default); None observes nothing."""
    dispatch: DispatchFactory | None = None
    """What executes the runs instead of the server's process (``cadre serve --queue`` hands
    the fleet's queue, whose ``cadre worker`` processes execute them); None: the server's
    process, ``workers`` at once."""
    team_files: tuple[Path, ...] = ()
    """Team files served besides the installed teams, each as an assistant named by its
    team's name (a thread records the file, as ``cadre run --team-config`` does)."""
    allow_origins: tuple[str, ...] = ()
    """Web origins whose pages may call the API from a browser (CORS; tokens still needed,
    no cookies sent): a browser client such as Agent Inbox served from another origin."""


_CORS_HEADERS = ("x-api-key", "authorization", "content-type", "last-event-id")
_CORS_EXPOSED = ("content-location", "location", "x-pagination-next", "x-pagination-total")


def _cross_origin(origins: tuple[str, ...]) -> list[Middleware]:
    """The CORS layer for ``origins`` (none without them): preflights answered, the API's
    headers allowed and exposed, never credentials (a page's calls carry their own token)."""
    if not origins:
        return []
    return [
        Middleware(
            CORSMiddleware,
            allow_origins=list(origins),
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            allow_headers=list(_CORS_HEADERS),
            expose_headers=list(_CORS_EXPOSED),
            allow_credentials=False,
            max_age=600,
        )
    ]


def _open(options: ServerOptions) -> Server:
    home = options.home.create()
    tokens = None if options.no_auth else TokenStore(home.server_target)
    if tokens is not None and not any(t.revoked_at is None for t in tokens.list()):
        tokens.close()
        raise ConfigError(
            "no API token to serve with: make one with `cadre tokens create --tenant T --name N "
            "--scopes run,review,admin`, or start with --no-auth on 127.0.0.1"
        )
    cipher = home_cipher(home)
    store = home_store(home, cipher)
    if options.corpus is not None:
        ingest_corpus(options.corpus, store)
    tables = ServerTables(home.server_target, cipher)
    apps = TeamApps()
    saver = home_checkpointer(home, cipher=cipher)
    segments = Segments(home, apps, saver, options.observe)
    runs: RunDispatch
    if options.dispatch is not None:
        runs = options.dispatch(segments, tables, options.policy)
    else:
        runs = Runs(segments, tables, workers=options.workers, policy=options.policy)
    return Server(
        home=home, tables=tables, tokens=tokens, apps=apps, runs=runs, store=LangGraphStore(store)
    )


async def _failed(request: Request, error: Exception) -> Response:
    if request.url.path.startswith("/console"):
        return console_error(error)
    return error_response(error)


async def _root(request: Request) -> Response:
    return json_response({"name": "cadre", "api": "LangGraph server API (subset)"})


class _BodyLimit:
    """Refuses request bodies over :data:`MAX_BODY_BYTES` (AG-UI's, whose clients send the
    whole conversation back with every run: :data:`MAX_AGUI_BODY_BYTES`) with 413."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        most = MAX_AGUI_BODY_BYTES if scope.get("path", "").startswith("/agui/") else MAX_BODY_BYTES
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > most:
            await _too_large(scope, receive, send, most)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > most:
                raise HTTPException(413, f"the body is over {most} bytes")
            return message

        await self.app(scope, limited, send)


async def _too_large(scope: Scope, receive: Receive, send: Send, most: int) -> None:
    response = json_response({"detail": f"the body is over {most} bytes"}, 413)
    await response(scope, receive, send)


def build_app(options: ServerOptions) -> Starlette:
    """The ASGI app of a server (its databases open when it starts and close when it stops).

    Raises:
        ConfigError: A team file is invalid or gives a name another team has; (at startup)
            no live API token and no ``--no-auth``.
    """
    offer_team_files(options.team_files)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server = _open(options)
        app.state.cadre = server
        app.state.sessions = Sessions()
        resumed = await server.runs.recover()
        if resumed:
            logger.warning("cadre: resuming %d run(s) a stopped server left unfinished", resumed)
        sweeping = asyncio.create_task(sweep_forever(server))
        try:
            async with mcp_sessions(app.state):
                yield
        finally:
            sweeping.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeping
            server.close()

    routes = [
        Route("/", _root, methods=["GET"]),
        Route("/ok", _root, methods=["GET"]),
        *info_routes(),
        *assistant_routes(),
        *thread_search_routes(),
        *prune_routes(),
        *thread_routes(),
        *run_routes(),
        *stateless_routes(),
        *store_routes(),
        *console_routes(),
        *a2a_routes(),
        *mcp_routes(),
        *agui_routes(),
        *unsupported_routes(),  # last: a route served above takes over
    ]
    return Starlette(
        routes=routes,
        middleware=[
            *_cross_origin(options.allow_origins),
            *([Middleware(LocalOnly)] if options.no_auth else []),
            Middleware(_BodyLimit),
            Middleware(TraceContextIn),
        ],
        exception_handlers={Exception: _failed, HTTPException: _failed, CadreError: _failed},
        lifespan=lifespan,
    )
