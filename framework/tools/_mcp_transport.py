"""How a toolbox reaches one MCP server, and how it tells what went wrong.

* stdio: the MCP SDK's ``stdio_client``, with the server's stderr on a pipe read here: its last
  lines go into error messages (and to the debug log), and the pipe closing tells that the
  process exited, before any call has to notice.
* http: ``langchain-mcp-adapters``' streamable HTTP session, on an httpx client whose transport
  reports a broken connection (refused, reset, cut mid-answer), so calls in flight fail at once
  with the cause instead of waiting for their timeout.
* :func:`describe`: one line for any failure the SDK, anyio or httpx raise (exception groups
  unwrapped).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError
from mcp.shared.message import SessionMessage
from mcp.types import CONNECTION_CLOSED
from pydantic import ValidationError

__all__ = [
    "StderrTail",
    "describe",
    "http_client_factory",
    "open_stdio",
    "quote_line",
]

_log = logging.getLogger("framework.tools.mcp")
_TAIL_LINES = 20
_TAIL_SHOWN = 5
_LINE_CHARS = 300
_QUOTE_CHARS = 120

Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


class StderrTail(asyncio.Protocol):
    """Reads a stdio server's stderr: keeps its last lines and notes when the pipe closes."""

    def __init__(self, server: str, closed: asyncio.Future[None]) -> None:
        self._server = server
        self._closed = closed
        self._lines: deque[str] = deque(maxlen=_TAIL_LINES)
        self._partial = b""

    def data_received(self, data: bytes) -> None:
        *lines, self._partial = (self._partial + data).split(b"\n")
        if len(self._partial) > _LINE_CHARS * 4:
            lines.append(self._partial)
            self._partial = b""
        for raw in lines:
            self._keep(raw)

    def eof_received(self) -> bool:
        self._keep(self._partial)
        self._partial = b""
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._closed.done():
            self._closed.set_result(None)

    def tail(self) -> str:
        """`` (its stderr ends with: a | b)``, or ``""`` when it wrote nothing."""
        if not self._lines:
            return ""
        text = " | ".join(list(self._lines)[-_TAIL_SHOWN:])
        if len(text) > _LINE_CHARS * 2:
            text = "..." + text[-_LINE_CHARS * 2 :]
        return f" (its stderr ends with: {text})"

    def _keep(self, raw: bytes) -> None:
        line = raw.decode("utf-8", errors="replace").rstrip()
        if line:
            _log.debug("MCP server %r: %s", self._server, line)
            self._lines.append(line[:_LINE_CHARS])


@asynccontextmanager
async def open_stdio(
    params: StdioServerParameters, server: str, closed: asyncio.Future[None]
) -> AsyncIterator[tuple[Streams, StderrTail]]:
    """Start the server process with its stderr read by a :class:`StderrTail`.

    ``closed`` is set once the stderr pipe closes (the process exited). Leaving the context
    ends the process as the SDK does (stdin closed, then SIGTERM, then SIGKILL) and reaps it.
    """
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    errlog = os.fdopen(write_fd, "w")
    tail = StderrTail(server, closed)
    reader = os.fdopen(read_fd, "rb", buffering=0)
    try:
        pipe, _ = await loop.connect_read_pipe(lambda: tail, reader)
    except BaseException:
        reader.close()
        errlog.close()
        raise
    try:
        async with stdio_client(params, errlog=errlog) as (read, write):
            errlog.close()  # the child holds its own copy: the pipe closes when it exits
            yield (read, write), tail
    finally:
        errlog.close()
        await asyncio.wait((closed,), timeout=1.0)
        pipe.close()


def http_client_factory(on_broken: Callable[[str], None]) -> Callable[..., httpx.AsyncClient]:
    """An ``httpx_client_factory`` for the adapters whose client reports broken connections."""

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx.Timeout | None = None,
        auth: httpx.Auth | None = None,
    ) -> httpx.AsyncClient:
        # httpx's default pool (100 connections, 20 kept alive): measured faster against a
        # loopback FastMCP server under 100 concurrent calls than a bigger one
        inner = httpx.AsyncHTTPTransport()
        return httpx.AsyncClient(
            headers=headers,
            timeout=timeout,
            auth=auth,
            transport=_WatchedTransport(inner, on_broken),
        )

    return factory


class _WatchedTransport(httpx.AsyncBaseTransport):
    """An httpx transport that calls ``on_broken(cause)`` when a connection breaks.

    A timeout is no sign of a broken server (an abandoned call's answer may come late), so
    timeouts are not reported.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport, on_broken: Callable[[str], None]) -> None:
        self._inner = inner
        self._on_broken = on_broken

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            response = await self._inner.handle_async_request(request)
        except httpx.TransportError as error:
            self._report(error, request)
            raise
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_WatchedStream(response.stream, lambda error: self._report(error, request)),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()

    def _report(self, error: httpx.TransportError, request: httpx.Request) -> None:
        if not isinstance(error, httpx.TimeoutException):
            self._on_broken(
                f"the HTTP connection to {request.url} broke ({type(error).__name__}: "
                f"{error or 'no detail'})"
            )


class _WatchedStream(httpx.AsyncByteStream):
    def __init__(self, inner: Any, report: Callable[[httpx.TransportError], None]) -> None:
        self._inner = inner
        self._report = report

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                yield chunk
        except httpx.TransportError as error:
            self._report(error)
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()


def quote_line(line: object) -> str:
    """``'text'`` cut to 120 characters, for a line quoted in a message."""
    text = str(line)
    return repr(text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 3] + "...")


def describe(error: BaseException) -> str:
    """One line saying what a failure means (an exception group: its first real failure)."""
    leaf = _first_leaf(error)
    text = " ".join(str(leaf).split()) or "no detail"
    for kinds, meaning in _MEANINGS:
        if isinstance(leaf, kinds):
            return meaning(leaf, text)
    return f"{type(leaf).__name__}: {text}"


def _mcp_meaning(error: BaseException, text: str) -> str:
    assert isinstance(error, McpError)
    if error.error.code == CONNECTION_CLOSED:
        return "the server closed the connection"
    return f"the server answered an error: {error.error.message}"


def _status_meaning(error: BaseException, text: str) -> str:
    assert isinstance(error, httpx.HTTPStatusError)
    return f"the server answered HTTP {error.response.status_code} at {error.request.url}"


_MEANINGS: tuple[
    tuple[
        type[BaseException] | tuple[type[BaseException], ...], Callable[[BaseException, str], str]
    ],
    ...,
] = (
    (McpError, _mcp_meaning),
    (TimeoutError, lambda _, text: "no answer in time"),
    (
        (FileNotFoundError, PermissionError, NotADirectoryError),
        lambda _, text: f"the command could not be run ({text})",
    ),
    (
        (
            anyio.BrokenResourceError,
            anyio.ClosedResourceError,
            anyio.EndOfStream,
            BrokenPipeError,
            ConnectionResetError,
        ),
        lambda _, text: "the connection to the server broke (the server process is gone)",
    ),
    (httpx.HTTPStatusError, _status_meaning),
    (httpx.ConnectError, lambda _, text: f"could not connect ({text})"),
    (
        httpx.TransportError,
        lambda error, text: f"the HTTP connection failed ({type(error).__name__}: {text})",
    ),
    (ValidationError, lambda error, text: malformed(error)),
)
"""What each kind of failure means, first match wins."""


def malformed(error: BaseException) -> str:
    """What a message that could not be read as JSON-RPC was, from the SDK's parse error."""
    if isinstance(error, ValidationError) and error.errors():
        first = error.errors()[0]
        reason = str(first.get("msg", "invalid"))
        return (
            f"it sent something that is not an MCP message: {quote_line(first.get('input'))} "
            f"({reason})"
        )
    return f"it sent something that is not an MCP message ({type(error).__name__}: {error})"


def _first_leaf(error: BaseException) -> BaseException:
    if isinstance(error, BaseExceptionGroup):
        leaves = [_first_leaf(inner) for inner in error.exceptions]
        real = [leaf for leaf in leaves if not isinstance(leaf, asyncio.CancelledError)]
        return (real or leaves)[0]
    return error
