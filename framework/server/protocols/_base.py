"""What every agent protocol does with a served team, on the same run path as LangGraph's API
(:func:`~framework.server.run_path.start.start_on_thread`: the gate admits the caller, claims
the thread, checks the input, and a resume goes through the review checks and audit): ask a
question on a thread, decide the reviews a run paused for, follow a run's events, and read how
the run ended; and :class:`Authenticated`, the wrapper every protocol's app sits behind."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from framework.engine.spoken import speaks_answer
from framework.runs.gate import Caller
from framework.server._hitl import HITL_FIELDS
from framework.server._http import (
    CHECKED_BODY,
    NotJSON,
    Server,
    authenticated,
    blocking,
    error_response,
    server_of,
    strict_json,
)
from framework.server._inbox import INBOX_FIELDS
from framework.server._requests import RunBody, StreamModeName
from framework.server._served import assistant_name, served_teams, team_description, team_of
from framework.server._tables import RunRow
from framework.server.run_path.outcome import final_values, run_error
from framework.server.run_path.start import start_on_thread

__all__ = [
    "Authenticated",
    "Outcome",
    "ServedTeam",
    "answer_words",
    "ask",
    "caller_of",
    "decide",
    "events",
    "jsonrpc_refusal",
    "outcome",
    "served",
    "served_team",
]

_CHALLENGE = 'Bearer realm="cadre"'
"""What a 401 asks for: the API token as a bearer token (or ``x-api-key``)."""
_SERVER = "cadre.server"
_CALLER = "cadre.caller"
_VALUES: tuple[StreamModeName, ...] = ("values",)


@dataclass(frozen=True, kw_only=True)
class ServedTeam:
    """A team the server serves, as a protocol names it."""

    team: str
    """The team's key (an installed team's name, or ``file:/abs/team.yaml``)."""
    name: str
    """The name callers use (an installed team's name, a team file's own name)."""
    description: str


def served() -> list[ServedTeam]:
    """Every team the server serves: the installed ones, then the team files."""
    return [_served(team) for team in served_teams()]


def served_team(name: str) -> ServedTeam:
    """The served team ``name`` names (a name, a team key or an assistant id).

    Raises:
        HTTPException: 404 naming it when no served team has that name.
    """
    return _served(team_of(name))


def _served(team: str) -> ServedTeam:
    return ServedTeam(team=team, name=assistant_name(team), description=team_description(team))


class Authenticated:
    """A protocol's ASGI app behind the server's one way in: each HTTP request's caller is
    authenticated exactly as the LangGraph API's (``x-api-key`` or a bearer token) and put in
    its scope with the server (:func:`caller_of`); without a valid token it is answered 401,
    saying how to authenticate (``WWW-Authenticate``, as MCP clients expect).

    A caller's request body is then checked once, before the protocol parses it, with the
    rules of the LangGraph API's bodies (:func:`~framework.server._http.strict_json`: UTF-8,
    JSON, depth, numbers, lone surrogates); one it refuses is answered in the protocol's own
    shape (``refuse``), never reaching the protocol's parser.

    Args:
        app: The protocol's app, mounted under the server.
        public: Paths (relative to the mount) served without a token, such as a card that
            says how to call the agent.
        refuse: The protocol's answer to a body it cannot take (default: the API's 422).
    """

    def __init__(
        self,
        app: ASGIApp,
        public: Collection[str] = (),
        refuse: Callable[[HTTPException], Response] = error_response,
    ) -> None:
        self.app = app
        self.public = frozenset(public)
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            request = Request(scope, receive)
            scope[_SERVER] = server_of(request)
            if _relative_path(scope) not in self.public:
                try:
                    scope[_CALLER] = authenticated(request)
                except HTTPException as error:
                    refused = error_response(error)
                    refused.headers["WWW-Authenticate"] = _CHALLENGE
                    await refused(scope, receive, send)
                    return
                raw = await request.body()
                try:
                    scope[CHECKED_BODY] = strict_json(raw) if raw.strip() else {}
                except HTTPException as error:
                    await self.refuse(error)(scope, receive, send)
                    return
                receive = _replayed(raw, receive)
        await self.app(scope, receive, send)


def _replayed(raw: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the body already read, then the client's own messages
    (its disconnect)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}
        return await receive()

    return replayed


def jsonrpc_refusal(status: int) -> Callable[[HTTPException], Response]:
    """How a JSON-RPC door refuses a body (HTTP ``status``): JSON-RPC's parse error (-32700)
    for one that is not JSON, its invalid request (-32600) for any other, with the one-line
    reason and no id (none was read)."""

    def refuse(error: HTTPException) -> Response:
        code = -32700 if isinstance(error, NotJSON) else -32600
        refusal = {"code": code, "message": error.detail}
        return JSONResponse({"jsonrpc": "2.0", "id": None, "error": refusal}, status_code=status)

    return refuse


def _relative_path(scope: Scope) -> str:
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "")
    return path.removeprefix(root) or "/"


def caller_of(scope: Scope) -> tuple[Server, Caller]:
    """The server and the authenticated caller of a request that came in through
    :class:`Authenticated`.

    Raises:
        HTTPException: 401 for a request that came in by a public path.
    """
    caller = scope.get(_CALLER)
    if caller is None:
        raise HTTPException(401, "a valid API token is needed: send it as x-api-key")
    server: Server = scope[_SERVER]
    return server, caller


async def ask(
    server: Server,
    caller: Caller,
    team: ServedTeam,
    question: str,
    *,
    thread_id: str | None = None,
    modes: Collection[StreamModeName] = _VALUES,
) -> RunRow:
    """Start a run of ``team`` answering ``question`` on ``thread_id`` (a new thread without
    one), as the caller; the run recorded.

    Raises:
        AccessDenied: The gate refuses the caller (no ``run`` scope, another tenant's thread).
        HTTPException: 422 for a question the team's input refuses.
        ThreadBusyError: The thread runs already.
    """
    body = RunBody(
        assistant_id=team.team,
        input={"question": question},
        stream_mode=list(modes),
        if_not_exists="create",
    )
    _, row, _ = await start_on_thread(server, caller, thread_id or str(uuid.uuid4()), body)
    return row


async def decide(
    server: Server,
    caller: Caller,
    team: ServedTeam,
    thread_id: str,
    resume: Any,
    *,
    modes: Collection[StreamModeName] = _VALUES,
) -> RunRow:
    """Resume ``thread_id`` with the caller's decisions on its pending reviews (a value
    :func:`~framework.server.run_path._resume.resume_from` takes: a decision, ``"approve"``, or
    decisions keyed by request id); the caller is the reviewer the audit names.

    Raises:
        AccessDenied: The caller lacks the ``review`` scope or the thread is not theirs.
        ReviewError: A decision is invalid or names no pending review (nothing ran).
        HTTPException: 404 for a thread that is not there.
    """
    body = RunBody(assistant_id=team.team, command={"resume": resume}, stream_mode=list(modes))
    _, row, _ = await start_on_thread(server, caller, thread_id, body)
    return row


async def events(server: Server, row: RunRow) -> AsyncIterator[tuple[str, Any]]:
    """A run's events as LangGraph's API streams them (``(mode, data)``), until it ends."""
    log = server.runs.log_of(row.run_id)
    if log is None:
        return
    async for _, name, data in log.follow():
        yield name, data


def answer_words(mode: str, data: Any) -> tuple[str, str] | None:
    """The id of the answer's message and the words it adds, when a run's event is a chunk of
    the answer as the team's formatter speaks it (the served team's formatter, not a nested
    team's; a ``messages-tuple`` event); None for any other event."""
    if mode != "messages" or not isinstance(data, list | tuple) or len(data) != 2:
        return None
    message, metadata = data
    if not speaks_answer(metadata) or message.get("type") != "AIMessageChunk":
        return None
    return str(message["id"]), str(message.get("content") or "")


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """How a run ended, in the terms every protocol needs."""

    thread_id: str
    run_id: str
    status: Literal["answered", "paused", "failed", "cancelled", "stopped"]
    """``stopped``: the server stopped it (a signal); it goes on when the server starts again."""
    answer: str
    """The team's final answer (empty unless answered)."""
    reviews: tuple[dict[str, Any], ...] = ()
    """The reviews the run paused for: ``{"id": interrupt id, "value": the typed request}``
    (a cadre review request with its id and thread, as the review API reads it)."""
    error: str | None = None
    values: dict[str, Any] | None = None
    """The thread's values after the run (as JSON)."""

    def to_json(self) -> dict[str, Any]:
        """The outcome as protocols return it (the values left out)."""
        shown: dict[str, Any] = {
            "thread_id": self.thread_id,
            "run_id": self.run_id,
            "status": self.status,
            "answer": self.answer,
        }
        if self.reviews:
            shown["reviews"] = list(self.reviews)
        if self.error is not None:
            shown["error"] = self.error
        return shown


async def outcome(server: Server, row: RunRow) -> Outcome:
    """How ``row``'s run ended (waiting for it to end)."""
    log = server.runs.log_of(row.run_id)
    if log is not None:
        await log.ended()
    current = server.tables.run(row.tenant, row.run_id) or row
    base: dict[str, Any] = {"thread_id": row.thread_id, "run_id": row.run_id}
    if current.status == "error":
        return Outcome(**base, status="failed", answer="", error=str(run_error(log).get("message")))
    logged = run_error(log)
    if logged.get("error") == "ServerStopping":  # left running: resumed at the next start
        return Outcome(**base, status="stopped", answer="", error=str(logged.get("message")))
    if current.status == "interrupted":  # cancelled: the thread's answer is not this run's
        return Outcome(
            **base, status="cancelled", answer="", error=f"run {row.run_id} was cancelled"
        )
    values: dict[str, Any] = await blocking(final_values, server, row)
    reviews = tuple(_review(i, row.thread_id) for i in values.pop("__interrupt__", ()))
    if reviews:
        return Outcome(**base, status="paused", answer="", reviews=reviews, values=values)
    return Outcome(
        **base, status="answered", answer=str(values.get("final_answer") or ""), values=values
    )


def _review(interrupt: dict[str, Any], thread_id: str) -> dict[str, Any]:
    """An open interrupt as protocols show it: a cadre review request as the typed request
    (what the API adds for Agent Inbox and the human-in-the-loop middleware left out, its
    thread said)."""
    value = interrupt["value"]
    if isinstance(value, dict) and "allowed" in value:
        value = {key: item for key, item in value.items() if key not in INBOX_FIELDS | HITL_FIELDS}
        value["thread_id"] = thread_id
    return {"id": interrupt["id"], "value": value}
