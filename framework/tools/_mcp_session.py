"""One session with an MCP server, on a toolbox's loop, and the waits around it.

A :class:`Session` is what one start of a server gives (a stdio process, or an HTTP
connection): the SDK's ``ClientSession``, the tools listed at its start, and its fate: ``ready``
once started (or not: ``error``), ``dead`` with the cause once it died or was closed. Every wait
on it is raced against its death and bounded (:func:`race`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import anyio
from jsonschema import SchemaError  # type: ignore[import-untyped]
from jsonschema.validators import validator_for  # type: ignore[import-untyped]
from mcp import ClientSession
from mcp.types import (
    CallToolRequest,
    CallToolRequestParams,
    CallToolResult,
    CancelledNotification,
    CancelledNotificationParams,
    ClientNotification,
    ClientRequest,
    ListToolsRequest,
    ListToolsResult,
    PaginatedRequestParams,
    RequestId,
    RequestParams,
)
from mcp.types import Tool as McpToolSpec
from opentelemetry.propagate import inject
from referencing import Registry

from framework.errors import ToolError, ToolServerError
from framework.tools._mcp_transport import StderrTail
from telemetry.propagation import tool_call_context

__all__ = [
    "STDERR_WAIT_S",
    "Dead",
    "Session",
    "call_tool",
    "cancel_request",
    "handshake",
    "race",
]

T = TypeVar("T")
STDERR_WAIT_S = 0.5
"""How long a failure waits for a dying stdio server's last stderr lines."""
_MAX_PAGES = 1000


class Dead(Exception):  # noqa: N818 - a signal between the session and its link
    """The session died while waiting; ``args[0]`` is the cause."""


class Session:
    """One opened session (one stdio process, or one HTTP connection) and its fate."""

    def __init__(self) -> None:
        loop = asyncio.get_running_loop()
        self.ready: asyncio.Future[None] = loop.create_future()
        self.dead: asyncio.Future[str] = loop.create_future()
        self.stderr_closed: asyncio.Future[None] = loop.create_future()
        self.stderr: StderrTail | None = None
        self.session: ClientSession | None = None
        self.error: ToolServerError | None = None
        self.tools: list[McpToolSpec] = []
        self.in_flight = 0
        """Calls sent on this session and not answered yet."""
        self._checks: dict[str, Any] = {}

    def kill(self, cause: str) -> None:
        """Mark the session dead (the first cause wins); its runner then closes it."""
        if not self.dead.done():
            self.dead.set_result(cause)

    @property
    def failed(self) -> bool:
        """Whether the session could not start or has died since."""
        return self.ready.done() and (self.error is not None or self.dead.done())

    def check_output(self, server: str, tool: str, result: CallToolResult) -> None:
        """Check a result's structured content against the tool's output schema, as the SDK's
        ``call_tool`` does, but with the schema's validator built once per session (the SDK
        builds and checks it again on every call).

        Raises:
            ToolError: The result does not match, or the schema is invalid.
        """
        if tool not in self._checks:
            self._checks[tool] = _output_check(self.tools, tool)
        check = self._checks[tool]
        if check is None:
            return
        problem = None
        if isinstance(check, str):
            problem = check
        elif result.structuredContent is None:
            problem = "it declares an output schema but sent no structured content"
        else:
            error = next(iter(check.iter_errors(result.structuredContent)), None)
            if error is not None:
                problem = (
                    f"its structured content does not match its output schema: {error.message}"
                )
        if problem:
            raise ToolError(f"MCP tool {tool!r} on server {server!r} answered wrongly: {problem}")

    async def last_words(self) -> str:
        """The end of a stdio server's stderr, once it closed (or after a short wait)."""
        if self.stderr is None:
            return ""
        await asyncio.wait((self.stderr_closed,), timeout=STDERR_WAIT_S)
        return self.stderr.tail()


async def handshake(session: ClientSession) -> list[McpToolSpec]:
    """Initialize the session and list every tool, page after page."""
    await session.initialize()
    tools: list[McpToolSpec] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        request = ClientRequest(ListToolsRequest(params=params))
        page = await session.send_request(request, ListToolsResult)
        tools.extend(page.tools)
        cursor = page.nextCursor
        if not cursor:
            return tools
    raise ToolServerError(f"the tool list did not end after {_MAX_PAGES} pages")


async def call_tool(
    current: Session, server: str, tool: str, arguments: dict[str, Any], sent: list[RequestId]
) -> CallToolResult:
    """``ClientSession.call_tool``, with the output check of :meth:`Session.check_output`
    and the current trace in the request's ``_meta`` (:func:`_trace_meta`); the request's
    JSON-RPC id goes into ``sent`` as it is sent (to cancel it by)."""
    assert current.session is not None
    params = CallToolRequestParams(name=tool, arguments=arguments, _meta=_trace_meta())
    request = ClientRequest(CallToolRequest(params=params))
    # the id send_request takes: it reads and bumps the counter before its first await
    sent.append(current.session._request_id)  # private: the SDK does not expose it
    result = await current.session.send_request(request, CallToolResult)
    if not result.isError:
        current.check_output(server, tool, result)
    return result


def _trace_meta() -> RequestParams.Meta | None:
    """The trace context of the tool call (W3C ``traceparent``, ``tracestate``, as the propagator
    writes it) as a request's ``_meta``, so the server's work joins the caller's trace (MCP's
    SEP-414); None outside a trace. Per call: the SDK sends every request of a session from a
    task started with the session, whose context is the session's, not the call's."""
    carrier: dict[str, str] = {}
    inject(carrier, context=tool_call_context())
    return RequestParams.Meta(**carrier) if carrier else None


def _output_check(specs: list[McpToolSpec], tool: str) -> Any:
    """A validator for the tool's output schema; ``None`` without one; a message if invalid."""
    schema = next((spec.outputSchema for spec in specs if spec.name == tool), None)
    if schema is None:
        return None
    try:
        kind = validator_for(schema)
        kind.check_schema(schema)
    except SchemaError as error:
        return f"its output schema is invalid: {error.message}"
    # an explicit empty registry, as the SDK: no $ref is fetched from anywhere
    return kind(schema, registry=Registry())


async def cancel_request(current: Session, request: RequestId, reason: str) -> None:
    """Tell the server to stop working on ``request`` (``notifications/cancelled``), within a
    short wait; a session that cannot take it any more is left alone (it is dying)."""
    assert current.session is not None
    params = CancelledNotificationParams(requestId=request, reason=reason)
    notice = ClientNotification(CancelledNotification(params=params))
    try:
        await race(current.session.send_notification(notice), current.dead, STDERR_WAIT_S)
    except (Dead, TimeoutError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        return


async def race(work: Awaitable[T], dead: asyncio.Future[str], timeout: float) -> T:
    """``work``'s result, unless the session dies first (:class:`Dead`) or time runs out
    (:class:`TimeoutError`); either way ``work`` is cancelled."""
    task = asyncio.ensure_future(work)
    try:
        await asyncio.wait((task, dead), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
            task.add_done_callback(_consume)
    if task.done() and not task.cancelled():
        return task.result()
    if dead.done():
        raise Dead(dead.result())
    raise TimeoutError


def _consume(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()
