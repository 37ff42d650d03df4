"""``tools:`` and ``mcp:``: kinds whose worker is a tool-calling model
(:class:`~framework.tools.worker.ToolWorker`) over Python tools (``package.module:attribute``,
imported when the file is read, its folder importable) and the tools of MCP servers the file
declares (started when the kind's first task runs, stopped when the run's team is closed)."""

from __future__ import annotations

import asyncio
import importlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field

from framework.engine.records import Task, WorkerResult
from framework.engine.roles import Worker
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError
from framework.kinds.base import KindFile, KindSetup, KindType, Loaded, Problem, Route
from framework.tools.mcp import McpServer, McpToolbox
from framework.tools.worker import TOOL_WORKER_SYSTEM, ToolWorker, as_tool

__all__ = ["DeferredWorker", "ToolsKeys", "ToolsKind", "Toolset"]


class ToolsKeys(BaseModel):
    """How a team file declares a tool-calling kind."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tools: list[str] = Field(default_factory=list)
    mcp: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class Toolset:
    """A tool-calling kind's Python tools (imported) and MCP servers (declared)."""

    tools: tuple[BaseTool, ...] = ()
    servers: tuple[McpServer, ...] = ()


class ToolsKind(KindType[ToolsKeys]):
    """``tools:``/``mcp:`` kinds: a :class:`DeferredWorker` building a tool worker each."""

    key = "tools"
    spec = ToolsKeys
    label = "tools/mcp"
    wanted = "tools, mcp servers"

    def load(self, spec: ToolsKeys, file: KindFile) -> Loaded:
        """Its servers found among the file's, its tools imported; what is missing."""
        problems: list[Problem] = [
            (("mcp", n), f"names no server of mcp_servers: {name!r}")
            for n, name in enumerate(spec.mcp)
            if name not in file.servers
        ]
        tools: list[BaseTool] = []
        for n, reference in enumerate(spec.tools):
            try:
                tools.append(import_tool(reference))
            except ConfigError as error:
                problems.append((("tools", n), str(error)))
        servers = tuple(file.servers[name] for name in spec.mcp if name in file.servers)
        return Loaded(Toolset(tuple(tools), servers), problems)

    def needs_model(self, spec: ToolsKeys) -> bool:
        """Yes: its worker is a tool-calling model."""
        return True

    def route(self, spec: ToolsKeys) -> Route | None:
        """None: the offline planner plans no task for it."""
        return None

    def worker(self, spec: ToolsKeys, setup: KindSetup) -> Worker:
        """A tool worker on the worker role's model, built when its first task runs."""
        toolset = setup.loaded
        assert isinstance(toolset, Toolset)  # what load() kept

        def build() -> Worker:
            found = list(toolset.tools)
            if toolset.servers:
                toolbox = McpToolbox(toolset.servers).start()
                setup.resources.callback(toolbox.close)
                found.extend(toolbox.tools)
            system = f"{TOOL_WORKER_SYSTEM}\n\nYour specialty: {setup.description}"
            return ToolWorker(setup.model(), found, system=system)

        return DeferredWorker(build, tools=toolset.tools, servers=toolset.servers)


def import_tool(reference: str) -> BaseTool:
    """The tool ``package.module:attribute`` names.

    Raises:
        ConfigError: It is no such reference, cannot be imported, or is no tool.
    """
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise ConfigError(f"tool {reference!r} is not 'package.module:attribute'")
    try:
        found: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            found = getattr(found, part)
    except Exception as error:  # an import runs user code: any failure is the file's problem
        raise ConfigError(f"cannot import {reference!r} ({error})") from None
    return as_tool(found)


class DeferredWorker:
    """A worker built when its first task runs (a read-only command never starts its tool
    servers or its model).

    Args:
        build: Builds the worker.
        tools: The Python tools the worker will have, for a listing (``cadre tools list``).
        servers: The MCP servers whose tools it will have, for a listing (started by the
            listing only).
    """

    def __init__(
        self,
        build: Callable[[], Worker],
        *,
        tools: Sequence[BaseTool] = (),
        servers: Sequence[McpServer] = (),
    ) -> None:
        self._build = build
        self.tools = tuple(tools)
        self.servers = tuple(servers)
        self._worker: Worker | None = None
        self._lock = threading.Lock()

    def _get(self) -> Worker:
        with self._lock:
            if self._worker is None:
                self._worker = self._build()
            return self._worker

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task with the worker, built first if needed."""
        return self._get().run(task, question, context)

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task with the worker, built first (on a thread) if needed."""
        worker = await asyncio.to_thread(self._get)
        return await worker.arun(task, question, context)
