"""One MCP server seen from a toolbox's loop: its session, calls, death, restart and close.

A :class:`ServerLink` holds at most one live :class:`Session` (a stdio process, or an HTTP
connection) and shares it between every call. Each session is owned by a runner task that
opens it, starts it (initialize, then list the tools, within ``start_timeout_s``), holds it
until it dies or is closed, and then closes it (the SDK closes a stdio server's stdin, then
sends SIGTERM, then SIGKILL, and reaps it). A session dies when its stderr pipe closes (the
process exited), when its HTTP connection breaks, when the server sends something that is not
an MCP message, or when a call finds the connection closed; every call in flight on it fails
at once with the cause, and the next call opens a new session.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import anyio
from langchain_mcp_adapters.sessions import StdioConnection, StreamableHttpConnection
from langchain_mcp_adapters.sessions import create_session as create_adapter_session
from mcp import ClientSession, StdioServerParameters
from mcp.shared.exceptions import McpError
from mcp.types import CONNECTION_CLOSED, CallToolResult, RequestId
from mcp.types import Tool as McpToolSpec

from framework.errors import ToolError, ToolServerError
from framework.tools._mcp_config import McpServer
from framework.tools._mcp_session import (
    STDERR_WAIT_S,
    Dead,
    Session,
    call_tool,
    cancel_request,
    handshake,
    race,
)
from framework.tools._mcp_transport import describe, http_client_factory, malformed, open_stdio

__all__ = ["GRACE_S", "ServerLink"]

_log = logging.getLogger("framework.tools.mcp")
GRACE_S = 5.0
"""Slack on top of a server's own timeouts for the waits around them."""
_CLOSE_S = 10.0
"""How long closing waits for a session's runner (the SDK may take 2 s + 2 s to end a stdio
server that ignores its closed stdin)."""
_HTTP_READ_S = 300.0


class ServerLink:
    """One declared server: its current session, shared by all calls; restarts on demand."""

    def __init__(self, server: McpServer) -> None:
        self.server = server
        self._current: Session | None = None
        self._runners: set[asyncio.Task[None]] = set()
        self._closed = False

    @property
    def name(self) -> str:
        return self.server.name

    @property
    def in_flight(self) -> int:
        """Calls sent on the current session and not answered yet."""
        return 0 if self._current is None else self._current.in_flight

    @property
    def connection(self) -> StdioConnection | StreamableHttpConnection:
        """The server as the adapters' connection config (names it on the converted tools)."""
        server = self.server
        if server.transport == "stdio":
            return StdioConnection(
                transport="stdio",
                command=server.command or "",
                args=list(server.args),
                env=server.env,
                cwd=server.cwd,
            )
        return StreamableHttpConnection(
            transport="streamable_http", url=server.url or "", headers=server.headers
        )

    async def start(self) -> list[McpToolSpec]:
        """Open the first session; the server's tools as it lists them.

        Raises:
            ToolServerError: The server could not start; the message names the cause.
        """
        return (await self._acquire()).tools

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call ``tool`` on the live session (opened first when there is none).

        Raises:
            ToolServerError: The server could not start, or failed during the call.
            ToolError: The call took longer than ``call_timeout_s``, or the server refused it.
        """
        current = await self._acquire()
        assert current.session is not None
        timeout = self.server.call_timeout_s
        current.in_flight += 1
        try:
            return await self._race_call(current, tool, arguments, timeout)
        except Dead as dead:
            raise self._failed_during(tool, str(dead)) from None
        except TimeoutError:
            raise ToolError(
                f"MCP tool {tool!r} on server {self.name!r} did not answer within {timeout:g} s "
                "(call_timeout_s); the call was cancelled. Raise call_timeout_s in the "
                "server's declaration if the tool is that slow."
            ) from None
        except ToolError:
            raise
        except McpError as error:
            if error.error.code != CONNECTION_CLOSED:
                raise ToolError(
                    f"MCP server {self.name!r} refused the call to {tool!r}: {error.error.message}"
                ) from None
            cause = describe(error)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream) as error:
            cause = describe(error)
        except Exception as error:
            raise ToolError(
                f"MCP tool {tool!r} on server {self.name!r}: the call failed in the client "
                f"({describe(error)})"
            ) from error
        finally:
            current.in_flight -= 1
        # the connection is gone: let a dying process's own news (exit, stderr) come first
        await asyncio.wait((current.dead,), timeout=STDERR_WAIT_S)
        current.kill(cause + await current.last_words())
        raise self._failed_during(tool, current.dead.result())

    async def _race_call(
        self, current: Session, tool: str, arguments: dict[str, Any], timeout: float
    ) -> CallToolResult:
        """The call raced against the session's death and ``timeout``; a call nobody waits
        for any more (timed out here, or its caller cancelled) is cancelled on the server."""
        sent: list[RequestId] = []
        try:
            calling = call_tool(current, self.name, tool, arguments, sent)
            return await race(calling, current.dead, timeout)
        except (asyncio.CancelledError, TimeoutError) as stopped:
            if sent:
                late = isinstance(stopped, TimeoutError)
                why = f"no answer within {timeout:g} s" if late else "the caller stopped waiting"
                await cancel_request(current, sent[0], why)
            raise

    async def close(self) -> None:
        """Close the session and wait (bounded) until its process is gone."""
        self._closed = True
        if self._current is not None:
            self._current.kill("the toolbox was closed")
        runners = set(self._runners)
        if not runners:
            return
        _, pending = await asyncio.wait(runners, timeout=_CLOSE_S)
        for runner in pending:
            _log.warning("MCP server %r did not close within %g s; cancelled", self.name, _CLOSE_S)
            runner.cancel()
        if pending:
            await asyncio.wait(pending, timeout=GRACE_S)

    # -- sessions ------------------------------------------------------------------------------

    async def _acquire(self) -> Session:
        if self._closed:
            raise ToolServerError(f"MCP server {self.name!r}: its toolbox was closed")
        current = self._current
        if current is None or current.failed:
            current = self._current = Session()
            runner = asyncio.create_task(self._own(current), name=f"mcp-server-{self.name}")
            self._runners.add(runner)
            runner.add_done_callback(self._runners.discard)
        if not current.ready.done():
            bound = self.server.start_timeout_s + GRACE_S
            await asyncio.wait((current.ready,), timeout=bound)
            if not current.ready.done():
                current.kill("it did not start in time")
                raise self._start_error(f"it did not start within {bound:g} s")
        if current.error is not None:
            raise ToolServerError(str(current.error))
        if current.dead.done():
            raise self._failed_during(None, current.dead.result())
        return current

    async def _own(self, current: Session) -> None:
        """The runner: open, start, hold until dead or closed, then close one session."""
        try:
            async with self._open(current) as session:
                current.session = session
                try:
                    current.tools = await race(
                        handshake(session), current.dead, self.server.start_timeout_s
                    )
                except Exception as error:
                    current.error = await self._start_failure(current, error)
                    current.ready.set_result(None)
                    return
                current.ready.set_result(None)
                await asyncio.wait((current.dead,))
        except Exception as error:
            if not current.ready.done():
                current.error = await self._start_failure(current, error)
            current.kill(describe(error) + await current.last_words())
        finally:
            if not current.ready.done():
                current.error = current.error or self._start_error("its start was cancelled")
                current.ready.set_result(None)
            current.kill("the session was closed")

    @asynccontextmanager
    async def _open(self, current: Session) -> AsyncIterator[ClientSession]:
        async def on_message(message: object) -> None:
            # a late answer to an abandoned call arrives as a RuntimeError: harmless
            if isinstance(message, Exception) and not isinstance(message, RuntimeError):
                current.kill(_malformed_cause(message, self.server.transport))

        server = self.server
        if server.transport == "stdio":
            params = StdioServerParameters(
                command=server.command or "", args=list(server.args), env=server.env, cwd=server.cwd
            )
            async with (
                open_stdio(params, server.name, current.stderr_closed) as (streams, tail),
                ClientSession(*streams, message_handler=on_message) as session,
            ):
                current.stderr = tail
                current.stderr_closed.add_done_callback(
                    lambda _: current.kill("the server process exited" + tail.tail())
                )
                yield session
            return
        read_s = max(_HTTP_READ_S, server.call_timeout_s + server.start_timeout_s + GRACE_S)
        connection = StreamableHttpConnection(
            transport="streamable_http",
            url=server.url or "",
            headers=server.headers,
            timeout=timedelta(seconds=server.start_timeout_s),
            sse_read_timeout=timedelta(seconds=read_s),
            httpx_client_factory=http_client_factory(current.kill),
            session_kwargs={"message_handler": on_message},
        )
        async with create_adapter_session(connection) as session:
            yield session

    # -- messages ------------------------------------------------------------------------------

    async def _start_failure(self, current: Session, error: BaseException) -> ToolServerError:
        words = await current.last_words()
        if current.dead.done():
            cause = current.dead.result()
        elif isinstance(error, Dead):
            cause = str(error)
        elif isinstance(error, TimeoutError):
            cause = (
                f"it did not answer the MCP initialize within {self.server.start_timeout_s:g} s "
                "(start_timeout_s)"
            )
        else:
            cause = describe(error)
        if words and words not in cause:
            cause += words
        return self._start_error(cause)

    def _start_error(self, cause: str) -> ToolServerError:
        server = self.server
        if server.transport == "stdio":
            command = shlex.join([server.command or "", *server.args])
            advice = (
                f"Check its command (run `{command}` by hand: it must speak MCP on stdin/stdout "
                "and log only to stderr), or raise start_timeout_s if it is slow to start."
            )
        else:
            advice = (
                f"Check that the server is running and serves MCP at {server.url} "
                "(streamable HTTP), or raise start_timeout_s if it is slow to answer."
            )
        return ToolServerError(f"MCP server {server.name!r} could not start: {cause}. {advice}")

    def _failed_during(self, tool: str | None, cause: str) -> ToolServerError:
        during = f" during the call to {tool!r}" if tool else ""
        if self._closed:
            return ToolServerError(f"MCP server {self.name!r} failed{during}: {cause}.")
        again = "starts it again" if self.server.transport == "stdio" else "connects again"
        return ToolServerError(
            f"MCP server {self.name!r} failed{during}: {cause}. Its session was closed; the "
            f"next call {again}."
        )


def _malformed_cause(error: BaseException, transport: str) -> str:
    cause = malformed(error)
    if transport == "stdio":
        cause += "; a stdio MCP server must write only MCP messages on stdout (logs go to stderr)"
    return cause
