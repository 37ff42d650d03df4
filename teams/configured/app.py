"""A team built from a team file: :func:`team_from_file` is the ``cadre.team_files`` entry."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.graph import StateGraph

from framework.engine.builder import compile_team
from framework.engine.records import Task, WorkerResult
from framework.engine.roles import Roles, Worker
from framework.engine.runtime import NodeContext
from framework.engine.team_worker import TeamWorker
from framework.engine.worker_kinds import WorkerKind, WorkerKinds
from framework.errors import ConfigError
from framework.memory import ResearchMemory
from framework.models.chat import ProviderChatModel
from framework.policy import governed, inherit_policies
from framework.runs.teams import TeamFactory, TeamSetup, load_team
from framework.tools.a2a_agent import A2AWorker
from framework.tools.mcp import McpServer, McpToolbox
from framework.tools.remote_graph import RemoteGraphWorker
from framework.tools.team_file import ROLES, KindSpec, LoadedTeamFile, load_team_file
from framework.tools.worker import TOOL_WORKER_SYSTEM, ToolWorker
from teams.analyst.planning import KindChoosingPlanner
from teams.analyst.tables import TableIndex, TableWorker
from teams.configured.coordinator import phased_team
from teams.configured.planning import RenamingPlanner
from teams.research.graph import build_research_team, model_roles, offline_roles
from teams.research.prompts import ResearchPrompts

__all__ = ["FileTeam", "team_from_file"]

DEFAULT_DESCRIPTIONS = {
    "search": "find passages in the corpus that answer a question",
    "table": "look up rows of the corpus's CSV files",
}


def team_from_file(path: Path) -> FileTeam:
    """The team a team file declares, checked whole (ConfigError with ``FILE:LINE``)."""
    return FileTeam(load_team_file(path))


class FileTeam:
    """Builds the team of a checked team file for a run.

    The research team's roles (model-backed when a model is given on the command line or in the
    file, offline otherwise) with one worker kind per kind of the file: ``builtin: search`` is
    the research worker, ``builtin: table`` the analyst's CSV worker, and a kind with tools or
    MCP servers a :class:`ToolWorker` built on its first task (its servers started then, and
    stopped when the run's team is closed), a ``team:`` kind a :class:`TeamWorker` that runs
    each task as the team it names, nested in the run, and a ``remote_graph:`` or ``a2a:`` kind
    a :class:`RemoteGraphWorker` or :class:`A2AWorker` that asks the remote.
    """

    def __init__(self, loaded: LoadedTeamFile) -> None:
        self.loaded = loaded
        self.subteams: dict[str, TeamFactory] = {
            kind: FileTeam(sub) if isinstance(sub, LoadedTeamFile) else load_team(sub)
            for kind, sub in loaded.subteams.items()
        }
        """Kind name -> the factory of the team each of its tasks runs."""
        self.needs_model = loaded.needs_model or any(
            sub.needs_model for sub in self.subteams.values()
        )
        specs = {spec for sub in self.subteams.values() for spec in sub.model_specs}
        self.model_specs = sorted(specs | set(loaded.spec.models.values()))
        """The models the file (and the teams it nests) name: a run builds each up front, so a
        missing key or provider package is refused before any work."""

    def __call__(self, setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
        """The team's graph for one run (a coordinator of nested teams for ``phases:``)."""
        spec = self.loaded.spec
        if spec.phases:
            return phased_team(spec, setup, self.subteam)
        memory = ResearchMemory(setup.store, scope=setup.memory_scope)
        descriptions = {kind.name: _description(kind) for kind in spec.kinds}
        models = _Models(self.loaded, setup.model)
        tables = TableIndex.from_folder(setup.corpus_dir)
        if models.any:
            prompts = ResearchPrompts.from_registry(setup.prompts)
            roles = models.roles(
                lambda model: model_roles(
                    model, setup.corpus, setup.store, memory, prompts, kinds=descriptions
                )
            )
        else:
            roles = offline_roles(setup.corpus, setup.store, memory)
            roles = replace(roles, planner=_offline_planner(spec.kinds, setup, tables))
        kinds = [
            WorkerKind(
                name=kind.name,
                worker=self._worker(kind, roles.worker, tables, models, setup),
                description=descriptions[kind.name],
                max_parallel=kind.max_parallel,
            )
            for kind in spec.kinds
        ]
        overrides: dict[str, Any] = {
            "middleware": setup.middleware,
            "review": frozenset(setup.review) | frozenset(spec.review),
            "name": spec.name,
        }
        if (setup.max_parallel or spec.max_parallel) is not None:
            overrides["max_parallel"] = setup.max_parallel or spec.max_parallel
        return build_research_team(replace(roles, worker=WorkerKinds(kinds)), **overrides)

    def _worker(
        self,
        kind: KindSpec,
        research: Worker,
        tables: TableIndex,
        models: _Models,
        setup: TeamSetup,
    ) -> Worker:
        if kind.builtin == "search":
            return research
        if kind.builtin == "table":
            return TableWorker(tables)
        if kind.team is not None:
            return self.subteam(kind.name, setup)
        if kind.remote_graph is not None:
            return RemoteGraphWorker(kind.name, kind.remote_graph, _description(kind))
        if kind.a2a is not None:
            return A2AWorker(kind.name, kind.a2a, _description(kind))
        tools = self.loaded.tools[kind.name]
        servers = [self.loaded.servers[name] for name in kind.mcp]

        def build() -> Worker:
            found: list[BaseTool] = list(tools)
            if servers:
                toolbox = McpToolbox(servers).start()
                setup.resources.callback(toolbox.close)
                found.extend(toolbox.tools)
            system = f"{TOOL_WORKER_SYSTEM}\n\nYour specialty: {_description(kind)}"
            return ToolWorker(models.for_role("worker"), found, system=system)

        return DeferredWorker(build, tools=tools, servers=servers)

    def subteam(self, kind: str, setup: TeamSetup) -> TeamWorker:
        """The team of kind (or team phase) ``kind``, nested: the run's setup, policies and
        budget (its own review points only), compiled without a checkpointer so that it takes
        the run's."""
        graph = self.subteams[kind](replace(setup, review=frozenset()))
        inherit_policies(graph, setup.middleware)
        sub = self.loaded.subteams[kind]
        name = sub.spec.name if isinstance(sub, LoadedTeamFile) else sub
        return TeamWorker(compile_team(graph, name=name), name=name)


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


class _Models:
    """The chat model of each role: the command line's, else the file's (built on first use)."""

    def __init__(self, loaded: LoadedTeamFile, given: BaseChatModel | None) -> None:
        self.loaded = loaded
        self.given = given
        self._built: dict[str, BaseChatModel] = {}

    @property
    def any(self) -> bool:
        return self.given is not None or bool(self.loaded.spec.models)

    def for_role(self, role: str) -> BaseChatModel:
        own = self.loaded.spec.models.get(role)
        if own is None and self.given is not None:
            return self.given
        spec = own or self.loaded.model_spec(role)
        if spec is None:  # refused before the run (needs_model); a file with only role models
            raise ConfigError(f"no model for role {role}: set models.default or pass --model")
        if spec not in self._built:
            # governed like the command line's model: the run's policies see its calls
            self._built[spec] = governed(ProviderChatModel(spec, build_now=False))
        return self._built[spec]

    def roles(self, build: Callable[[BaseChatModel], Roles]) -> Roles:
        """The roles, each from the roles ``build`` makes on that role's model."""
        by_model: dict[int, Roles] = {}
        chosen: dict[str, Any] = {}
        for role in ROLES:
            model = self.for_role(role)
            if id(model) not in by_model:
                by_model[id(model)] = build(model)
            chosen[role] = getattr(by_model[id(model)], role)
        return Roles(**chosen)


def _description(kind: KindSpec) -> str:
    if kind.description:
        return kind.description
    if kind.team is not None:
        return f"a question for the {kind.team} team, which plans, researches and reviews it"
    if kind.remote_graph is not None:
        return f"a question for the remote graph {kind.remote_graph.assistant}"
    if kind.a2a is not None:
        return f"a question for the agent at {kind.a2a.url}"
    return DEFAULT_DESCRIPTIONS.get(kind.builtin or "", kind.name)


def _offline_planner(kinds: list[KindSpec], setup: TeamSetup, tables: TableIndex) -> Any:
    """The analyst's planner with its two kinds named as the file's builtin kinds (a file with
    one builtin kind gets every task of that kind); a team kind and a remote kind take text
    questions, as ``search`` does (a remote one whatever the local corpus holds)."""
    search = [
        kind.name
        for kind in kinds
        if kind.builtin == "search" or kind.team is not None or kind.remote is not None
    ]
    table = [kind.name for kind in kinds if kind.builtin == "table"]
    first_search = (search or table)[0]
    first_table = (table or search)[0]
    names = {"search": first_search, "table": first_table}
    remote = any(kind.name == first_search and kind.remote is not None for kind in kinds)
    planner = KindChoosingPlanner(setup.corpus, tables, remote_search=remote)
    return RenamingPlanner(planner, names)
