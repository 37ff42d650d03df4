"""Tools from MCP servers for cadre's tool workers, through ``langchain-mcp-adapters``.

Declare servers with :class:`McpServer`, start them with an :class:`McpToolbox`, and hand
``toolbox.tools`` (LangChain ``BaseTool`` objects) to a worker::

    servers = [McpServer(name="files", command="python", args=["files_server.py"])]
    with McpToolbox(servers) as toolbox:          # or: async with ...
        worker = ToolWorker(model, toolbox.tools)

How it works: the toolbox runs one background event loop on a thread of its own, and holds one
persistent MCP session per server there (a stdio subprocess, or a streamable HTTP connection),
shared by every call; sync callers (``tool.invoke``, a graph run with ``invoke``) block on it,
async callers (``await tool.ainvoke``) await it from their own loop. The adapters convert each
MCP tool (name, description, JSON argument schema) and its results; the toolbox routes their
calls to its sessions through an adapters tool-call interceptor.

Names: a tool is named as its server lists it; with ``prefix=True`` in the declaration, as
``<server>_<tool>``. Two servers exposing the same name fail the start with a ``ConfigError``
naming both (set ``prefix`` or an allowlist on one of them).

Results: ``response_format="content_and_artifact"``. The content is the tool's text when the
server answered with one text block, else the list of LangChain content blocks; the artifact is
``{"structured_content": {...}}`` when the server sent structured content, else ``None``. So
``tool.invoke(args)`` returns the content, and ``tool.invoke(tool_call)`` a ``ToolMessage``
carrying both.

Errors: a tool call never returns an error message and never raises LangChain's
``ToolException``: every failure raises a :class:`~framework.errors.ToolError`, for the worker
to turn into an error tool message.

* the tool failed on the server (MCP ``isError``, e.g. it raised), or the server refused the
  call (unknown tool, invalid arguments): ``ToolError`` with the server's text;
* no answer within the server's ``call_timeout_s``: ``ToolError`` naming server, tool and
  timeout (the server may still be working; its late answer is dropped);
* the server could not start (bad command, exited at once, no answer to the initialize within
  ``start_timeout_s``, nothing listening at the url): ``ToolServerError`` naming the server,
  the cause (with the end of a stdio server's stderr) and what to check;
* the server died or its connection broke during the call, or it sent something that is not
  an MCP message (a stdio server printing on stdout): ``ToolServerError`` with the cause, for
  that call and every other call in flight on that server; the next call starts a stdio server
  again (or reconnects over HTTP), transparently.

Every wait is bounded; closing the toolbox closes the sessions, ends and reaps the stdio
processes, and stops its thread.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections.abc import Coroutine, Iterable, Mapping
from types import TracebackType
from typing import Any, Literal, Self

from langchain_core.tools import BaseTool

from framework.errors import ConfigError, ToolError, ToolServerError
from framework.tools._mcp_config import McpServer
from framework.tools._mcp_link import GRACE_S, ServerLink
from framework.tools._mcp_loop import LoopStopped, LoopThread
from framework.tools._mcp_tool import (
    McpTool,
    Result,
    ToolDescription,
    allowed,
    convert,
    describe,
)

__all__ = ["McpServer", "McpTool", "McpToolbox", "ToolDescription", "describe_tools"]

_log = logging.getLogger("framework.tools.mcp")
_CLOSE_S = 30.0
_STOP_S = 10.0
_numbers = itertools.count(1)


class McpToolbox:
    """The tools of some MCP servers, on one persistent session per server.

    Use it as a context manager (``with`` or ``async with``), or call :meth:`start` /
    :meth:`astart` and :meth:`close` / :meth:`aclose`. Starting opens every server at once
    and lists its tools; it fails with a ``ToolServerError`` (every server that could not
    start, named) or a ``ConfigError`` (an allowlisted tool the server lacks, a name two servers
    share), having closed whatever it started. A toolbox starts once; closing is idempotent.

    Raises:
        ConfigError: A declaration is invalid, or two servers share a name.
    """

    def __init__(self, servers: Iterable[McpServer | Mapping[str, Any]]) -> None:
        declared = tuple(
            server if isinstance(server, McpServer) else McpServer.from_config(server)
            for server in servers
        )
        seen: set[str] = set()
        for server in declared:
            if server.name in seen:
                raise ConfigError(
                    f"two MCP servers are named {server.name!r}: give each a name of its own"
                )
            seen.add(server.name)
        self._servers = declared
        self._links = {server.name: ServerLink(server) for server in declared}
        self._loop = LoopThread(f"cadre-mcp-{next(_numbers)}")
        self._tools: list[McpTool] = []
        self._state: Literal["new", "starting", "started", "closed"] = "new"
        self._guard = threading.Lock()

    @property
    def servers(self) -> tuple[McpServer, ...]:
        """The declarations, in order."""
        return self._servers

    @property
    def tools(self) -> list[BaseTool]:
        """Every tool, in declaration order of their servers, then as each server lists them.

        Raises:
            ConfigError: The toolbox is not started (or closed already).
        """
        if self._state != "started":
            raise ConfigError(
                f"this MCP toolbox is {self._state}: its tools exist while it is started (in a "
                "`with` block, or between start() and close())"
            )
        return list(self._tools)

    def tools_for(self, kind: str) -> list[BaseTool]:
        """The tools a worker of ``kind`` may use: those of servers whose ``kinds`` is unset
        or names ``kind``."""
        servers = {s.name for s in self._servers if s.kinds is None or kind in s.kinds}
        return [tool for tool in self.tools if isinstance(tool, McpTool) and tool.server in servers]

    # -- life cycle ----------------------------------------------------------------------------

    def start(self) -> Self:
        """Start every server and list its tools (blocks; see the class for errors)."""
        if not self._begin():
            return self
        try:
            self._tools = self._loop.run(self._open_all(), self._start_bound())
        except BaseException:
            self.close()
            raise
        self._state = "started"
        return self

    async def astart(self) -> Self:
        """Start every server and list its tools, without blocking the caller's loop."""
        if not self._begin():
            return self
        try:
            self._tools = await self._loop.arun(self._open_all(), self._start_bound())
        except BaseException:
            await self.aclose()
            raise
        self._state = "started"
        return self

    def close(self) -> None:
        """Close every session, end and reap the stdio servers, stop the thread (idempotent)."""
        if not self._end():
            return
        try:
            if self._loop.running:
                self._loop.run(self._close_all(), _CLOSE_S)
        except TimeoutError:
            _log.warning("MCP toolbox: its servers did not close within %g s", _CLOSE_S)
        finally:
            self._loop.stop(_STOP_S)

    async def aclose(self) -> None:
        """:meth:`close` without blocking the caller's loop."""
        if not self._end():
            return
        try:
            if self._loop.running:
                await self._loop.arun(self._close_all(), _CLOSE_S)
        except TimeoutError:
            _log.warning("MCP toolbox: its servers did not close within %g s", _CLOSE_S)
        finally:
            await asyncio.to_thread(self._loop.stop, _STOP_S)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return await self.astart()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _begin(self) -> bool:
        with self._guard:
            if self._state in ("starting", "started"):
                return False
            if self._state == "closed":
                raise ConfigError("this MCP toolbox was closed: make a new one to start again")
            self._state = "starting"
        self._loop.start()
        return True

    def _end(self) -> bool:
        with self._guard:
            if self._state == "closed":
                return False
            self._state = "closed"
        return True

    def _start_bound(self) -> float:
        return max((s.start_timeout_s for s in self._servers), default=0.0) + 4 * GRACE_S

    # -- on the loop ---------------------------------------------------------------------------

    async def _open_all(self) -> list[McpTool]:
        links = list(self._links.values())
        listed = await asyncio.gather(*(link.start() for link in links), return_exceptions=True)
        failures = [result for result in listed if isinstance(result, BaseException)]
        for failure in failures:
            if not isinstance(failure, ToolServerError):
                raise failure
        if len(failures) == 1:
            raise failures[0]
        if failures:
            raise ToolServerError(
                f"{len(failures)} MCP servers could not start: "
                + " / ".join(str(failure) for failure in failures)
            )
        tools: list[McpTool] = []
        owners: dict[str, str] = {}
        for link, specs in zip(links, listed, strict=True):
            assert not isinstance(specs, BaseException)
            for tool in convert(link, allowed(link.server, specs), self):
                if tool.name in owners:
                    raise ConfigError(
                        f"MCP servers {owners[tool.name]!r} and {link.name!r} both expose a tool "
                        f"named {tool.name!r}: set prefix: true on one of them (tools become "
                        "<server>_<tool>), or leave the tool out of one's allowlist (tools)"
                    )
                owners[tool.name] = link.name
                tools.append(tool)
        return tools

    async def _close_all(self) -> None:
        await asyncio.gather(*(link.close() for link in self._links.values()))

    # -- calls ---------------------------------------------------------------------------------

    def _call_sync(self, tool: McpTool, work: Coroutine[Any, Any, Result]) -> Result:
        bound = self._check_call(tool, work)
        try:
            return self._loop.run(work, bound)
        except TimeoutError:
            raise _no_answer(tool, bound) from None
        except LoopStopped:
            raise self._not_running(tool) from None

    async def _call_async(self, tool: McpTool, work: Coroutine[Any, Any, Result]) -> Result:
        bound = self._check_call(tool, work)
        try:
            return await self._loop.arun(work, bound)
        except TimeoutError:
            raise _no_answer(tool, bound) from None
        except LoopStopped:
            raise self._not_running(tool) from None

    def _check_call(self, tool: McpTool, work: Coroutine[Any, Any, Result]) -> float:
        if self._state != "started" or not self._loop.running:
            work.close()
            raise self._not_running(tool)
        server = self._links[tool.server].server
        return server.start_timeout_s + server.call_timeout_s + 2 * GRACE_S

    def _not_running(self, tool: McpTool) -> ToolServerError:
        return ToolServerError(
            f"MCP tool {tool.name!r} of server {tool.server!r} cannot be called: its toolbox is "
            f"{self._state}"
        )


def describe_tools(toolbox: McpToolbox) -> list[ToolDescription]:
    """Each tool of a started toolbox, in order: server, names, description, JSON schemas.

    Raises:
        ConfigError: The toolbox is not started.
    """
    return [describe(tool) for tool in toolbox.tools if isinstance(tool, McpTool)]


def _no_answer(tool: McpTool, bound: float) -> ToolError:
    return ToolError(
        f"MCP tool {tool.name!r} on server {tool.server!r}: no answer from the toolbox within "
        f"{bound:g} s"
    )
