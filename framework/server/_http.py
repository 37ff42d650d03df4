"""What every route shares: the server's parts, the caller, JSON bodies and answers, and errors
as JSON (never a traceback)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from framework.database.home import DataHome
from framework.errors import (
    CadreError,
    ConfigError,
    InvalidUpdate,
    ReviewError,
    ThreadBusyError,
)
from framework.memory.langgraph_store import LangGraphStore
from framework.server._apps import TeamApps
from framework.server._caller import Caller
from framework.server._dispatch import RunDispatch
from framework.server._tables import ServerTables, ThreadRow
from framework.server.tokens import TokenStore

__all__ = [
    "LOCAL_CALLER",
    "Handler",
    "Server",
    "blocking",
    "body_of",
    "caller_of",
    "error_response",
    "json_response",
    "owned_thread",
    "server_of",
]

logger = logging.getLogger("cadre.server")

Model = TypeVar("Model", bound=BaseModel)

LOCAL_CALLER = Caller(tenant="default", name="local", scopes=frozenset({"admin"}))
"""Who calls a server started with ``--no-auth``."""


@dataclass(kw_only=True)
class Server:
    """The parts of a running server."""

    home: DataHome
    tables: ServerTables
    tokens: TokenStore | None
    """None: ``--no-auth`` (every caller is :data:`LOCAL_CALLER`)."""
    apps: TeamApps
    runs: RunDispatch
    store: LangGraphStore

    def close(self) -> None:
        """Stop the runs and close every database."""
        self.runs.close()
        self.runs.saver.close()
        self.apps.close()
        self.store.semantic.close()
        self.tables.close()
        if self.tokens is not None:
            self.tokens.close()


def server_of(request: Request) -> Server:
    """The server answering ``request``."""
    server: Server = request.app.state.cadre
    return server


def caller_of(request: Request, scope: str) -> Caller:
    """Who sent ``request`` (``x-api-key`` or a bearer token), holding ``scope``.

    Raises:
        HTTPException: 401 without a valid token, 403 when it lacks ``scope``.
    """
    server = server_of(request)
    if server.tokens is None:
        return LOCAL_CALLER
    presented = request.headers.get("x-api-key") or _bearer(request.headers.get("authorization"))
    token = server.tokens.verify(presented) if presented else None
    if token is None:
        raise HTTPException(401, "a valid API token is needed: send it as x-api-key")
    if not token.allows(scope):
        raise HTTPException(403, f"the token {token.name!r} lacks the {scope!r} scope")
    return Caller(tenant=token.tenant, name=token.name, scopes=token.scopes)


def _bearer(header: str | None) -> str | None:
    if header is None:
        return None
    kind, _, value = header.partition(" ")
    return value.strip() if kind.lower() == "bearer" else None


async def body_of(request: Request, model: type[Model]) -> Model:
    """The request's JSON body checked against ``model`` (an empty body is ``{}``).

    Raises:
        HTTPException: 422 for a body that is not JSON or does not fit (naming the fields).
    """
    raw = await request.body()
    try:
        data = json.loads(raw) if raw.strip() else {}
        return model.model_validate(data)
    except json.JSONDecodeError as error:
        raise HTTPException(422, f"the body is not JSON: {error.msg}") from None
    except ValidationError as error:
        raise HTTPException(422, _fields(error)) from None


def _fields(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "body"
        message = item["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """``data`` as JSON."""
    return JSONResponse(data, status_code=status, headers=headers)


def owned_thread(server: Server, caller: Caller, thread_id: str) -> ThreadRow:
    """The caller's thread ``thread_id``.

    Raises:
        HTTPException: 404 for a thread that is not there or is another tenant's.
    """
    row = server.tables.thread(caller.tenant, thread_id)
    if row is None:
        raise HTTPException(404, f"thread {thread_id} not found")
    return row


def error_response(error: BaseException) -> Response:
    """The answer to an error: its status and a one-line ``detail``."""
    if isinstance(error, HTTPException):
        return JSONResponse({"detail": error.detail}, status_code=error.status_code)
    if isinstance(error, ThreadBusyError):
        return JSONResponse({"detail": str(error)}, status_code=409)
    if isinstance(error, ReviewError | InvalidUpdate | ConfigError):
        return JSONResponse({"detail": str(error)}, status_code=422)
    if isinstance(error, CadreError):
        return JSONResponse({"detail": str(error)}, status_code=400)
    logger.error("request failed", exc_info=error)
    return JSONResponse({"detail": "the server failed to answer; see its log"}, status_code=500)


async def blocking(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` on a worker thread (databases and graphs block)."""
    return await asyncio.to_thread(function, *args)


Handler = Callable[[Request], Awaitable[Response]]
