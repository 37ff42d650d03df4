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
    AccessDenied,
    CadreError,
    ConfigError,
    InvalidUpdate,
    ReviewError,
    TeamFileError,
    ThreadBusyError,
    UnknownThread,
)
from framework.memory.langgraph_store import LangGraphStore
from framework.runs.gate import LOCAL_CALLER, Action, Caller, admit
from framework.server._tables import ServerTables, ThreadRow
from framework.server.run_path.apps import TeamApps
from framework.server.run_path.dispatch import RunDispatch
from framework.server.tokens import TokenStore

__all__ = [
    "LOCAL_CALLER",
    "Handler",
    "Server",
    "authenticated",
    "blocking",
    "body_of",
    "caller_of",
    "error_response",
    "foreign_origin",
    "json_response",
    "owned_thread",
    "refusal",
    "server_of",
    "strict_json",
]

logger = logging.getLogger("cadre.server")

Model = TypeVar("Model", bound=BaseModel)


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


def caller_of(request: Request, action: Action) -> Caller:
    """Who sent ``request``, admitted by the gate to do ``action``.

    Raises:
        HTTPException: 401 without a valid token.
        AccessDenied: The token lacks the scope ``action`` needs (answered 403).
    """
    return admit(authenticated(request), action)


def authenticated(request: Request) -> Caller:
    """Who sent ``request`` (``x-api-key`` or a bearer token; :data:`LOCAL_CALLER` under
    ``--no-auth``), before anything of its body is read.

    Raises:
        HTTPException: 401 without a valid token.
    """
    server = server_of(request)
    if server.tokens is None:
        return LOCAL_CALLER
    presented = request.headers.get("x-api-key") or _bearer(request.headers.get("authorization"))
    token = server.tokens.verify(presented) if presented else None
    if token is None:
        raise HTTPException(401, "a valid API token is needed: send it as x-api-key")
    return Caller(tenant=token.tenant, name=token.name, scopes=token.scopes)


def _bearer(header: str | None) -> str | None:
    if header is None:
        return None
    kind, _, value = header.partition(" ")
    return value.strip() if kind.lower() == "bearer" else None


async def body_of(request: Request, model: type[Model]) -> Model:
    """The request's JSON body checked against ``model`` (an empty body is ``{}``); read it
    after the caller is authenticated.

    Raises:
        HTTPException: 422 for a body that is not strict JSON (see :func:`strict_json`) or does
            not fit (naming the fields).
    """
    if CHECKED_BODY in request.scope:  # parsed and checked once, at the protocols' way in
        data = request.scope[CHECKED_BODY]
    else:
        raw = await request.body()
        data = strict_json(raw) if raw.strip() else {}
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise HTTPException(422, _fields(error)) from None


CHECKED_BODY = "cadre.checked_body"
"""Where a request's scope keeps its body once :func:`strict_json` parsed and checked it."""
MAX_JSON_DEPTH = 64
"""The deepest nesting of arrays and objects a request body may have."""


class NotJSON(HTTPException):
    """A request body that does not parse as JSON at all (422; JSON-RPC's parse error)."""

    def __init__(self, detail: str) -> None:
        super().__init__(422, detail)


def strict_json(raw: bytes) -> Any:
    """``raw`` parsed as JSON that every part of cadre can store and send back.

    Raises:
        HTTPException: 422 for invalid UTF-8, invalid JSON, ``NaN``/``Infinity``, an integer
            over Python's digit limit, nesting deeper than :data:`MAX_JSON_DEPTH`, or a lone
            surrogate in a string.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotJSON(f"the body is not UTF-8: {error.reason} at byte {error.start}") from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise NotJSON(f"the body is not JSON: {error.msg}") from None
    except RecursionError:
        raise HTTPException(422, _too_deep()) from None
    except ValueError as error:  # NaN/Infinity, an integer over the digit limit
        raise HTTPException(422, f"the body is not JSON cadre accepts: {error}") from None
    _check_parts(data)
    return data


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _too_deep() -> str:
    return f"the body nests deeper than {MAX_JSON_DEPTH} levels"


def _check_parts(data: Any) -> None:
    """Refuse nesting over :data:`MAX_JSON_DEPTH` and strings with lone surrogates."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(value)
            continue
        if not isinstance(value, dict | list):
            continue
        if depth >= MAX_JSON_DEPTH:
            raise HTTPException(422, _too_deep())
        if isinstance(value, dict):
            for key in value:
                _check_text(key)
            stack.extend((item, depth + 1) for item in value.values())
        else:
            stack.extend((item, depth + 1) for item in value)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise HTTPException(422, "the body holds a lone surrogate: send valid Unicode") from None


def _fields(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "body"
        message = item["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


def foreign_origin(origin: str | None, scheme: str, host: str) -> bool:
    """Whether a browser's ``Origin`` header names another site than this server's
    ``scheme://host`` (no header: not a browser's cross-site request)."""
    return origin is not None and origin != f"{scheme}://{host}"


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


_STATUS_OF: tuple[tuple[type[BaseException] | tuple[type[BaseException], ...], int], ...] = (
    (AccessDenied, 403),
    (UnknownThread, 404),
    (ThreadBusyError, 409),
    ((ReviewError, InvalidUpdate, ConfigError), 422),
    (CadreError, 400),
)
"""The status of cadre's errors, the first that matches wins."""


def refusal(error: HTTPException | CadreError) -> tuple[int, str]:
    """The HTTP status and one-line detail of a refusal (every door answers it alike, each in
    its protocol's shape)."""
    if isinstance(error, HTTPException):
        return error.status_code, str(error.detail)
    if isinstance(error, TeamFileError):  # its files' paths are the server's, not the caller's
        logger.warning("a served team file cannot run: %s", error)
        return 422, (
            "a team file this server serves cannot run (changed since the server started?): "
            "the server's log names the file and line"
        )
    status = next(status for kinds, status in _STATUS_OF if isinstance(error, kinds))
    return status, str(error)


def error_response(error: BaseException) -> Response:
    """The answer to an error: its status and a one-line ``detail``."""
    if isinstance(error, HTTPException | CadreError):
        status, detail = refusal(error)
        return JSONResponse({"detail": detail}, status_code=status)
    logger.error("request failed", exc_info=error)
    return JSONResponse({"detail": "the server failed to answer; see its log"}, status_code=500)


async def blocking(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` on a worker thread (databases and graphs block)."""
    return await asyncio.to_thread(function, *args)


Handler = Callable[[Request], Awaitable[Response]]
