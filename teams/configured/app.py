"""A team built from a team file: :func:`team_from_file` is the ``cadre.team_files`` entry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph import StateGraph

from framework.engine.builder import compile_team
from framework.engine.roles import Roles, Worker
from framework.engine.team_worker import TeamWorker
from framework.engine.worker_kinds import WorkerKind, WorkerKinds
from framework.errors import ConfigError
from framework.kinds.base import KindSetup
from framework.kinds.team_file import ROLES, KindSpec, LoadedTeamFile, load_team_file
from framework.memory import ResearchMemory
from framework.models.chat import ProviderChatModel
from framework.policy import governed, inherit_policies
from framework.runs.teams import TeamFactory, TeamSetup, load_team
from teams.analyst.planning import KindChoosingPlanner
from teams.analyst.tables import TableIndex, TableWorker
from teams.configured.coordinator import phased_team
from teams.configured.planning import RoutingPlanner
from teams.research.graph import build_research_team, model_roles, offline_roles
from teams.research.prompts import ResearchPrompts

__all__ = ["FileTeam", "team_from_file"]


def team_from_file(path: Path) -> FileTeam:
    """The team a team file declares, checked whole (ConfigError with ``FILE:LINE``)."""
    return FileTeam(load_team_file(path))


class FileTeam:
    """Builds the team of a checked team file for a run.

    The research team's roles (model-backed when a model is given on the command line or in the
    file, offline otherwise) with one worker kind per kind of the file, its worker built by its
    kind type (:mod:`framework.kinds.table`) from a :class:`~framework.kinds.base.KindSetup`:
    the team offers its builtin workers (``search``: the research worker, ``table``: the
    analyst's CSV worker), the worker role's model, and the nested team of a ``team:`` kind.
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
        descriptions = {kind.name: kind.described for kind in spec.kinds}
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
                worker=kind.kind_type.worker(
                    kind.spec, self._kind_setup(kind, roles.worker, tables, models, setup)
                ),
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
        if spec.dispatch_batch is not None:
            overrides["dispatch_batch"] = spec.dispatch_batch
        return build_research_team(replace(roles, worker=WorkerKinds(kinds)), **overrides)

    def _kind_setup(
        self,
        kind: KindSpec,
        research: Worker,
        tables: TableIndex,
        models: _Models,
        setup: TeamSetup,
    ) -> KindSetup:
        """What the worker of ``kind`` is built from in this run."""
        builtins: dict[str, Callable[[], Worker]] = {
            "search": lambda: research,
            "table": lambda: TableWorker(tables),
        }
        return KindSetup(
            name=kind.name,
            description=kind.described,
            loaded=self.loaded.loaded[kind.name],
            model=lambda: models.for_role("worker"),
            resources=setup.resources,
            nested=lambda: self.subteam(kind.name, setup),
            builtin=lambda name: builtins[name](),
        )

    def subteam(self, kind: str, setup: TeamSetup) -> TeamWorker:
        """The team of kind (or team phase) ``kind``, nested: the run's setup, policies and
        budget (its own review points only), compiled without a checkpointer so that it takes
        the run's."""
        graph = self.subteams[kind](replace(setup, review=frozenset()))
        inherit_policies(graph, setup.middleware)
        sub = self.loaded.subteams[kind]
        name = sub.spec.name if isinstance(sub, LoadedTeamFile) else sub
        return TeamWorker(compile_team(graph, name=name), name=name)


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


def _offline_planner(kinds: list[KindSpec], setup: TeamSetup, tables: TableIndex) -> Any:
    """The analyst's planner, its two kinds routed to the file's kinds their kind types route
    to (see :class:`RoutingPlanner`): ``search`` and ``remote`` kinds take text questions (a
    remote one whatever the local corpus holds), ``table`` kinds rows."""
    text = [kind for kind in kinds if kind.route in ("search", "remote")]
    rows = [kind for kind in kinds if kind.route == "table"]
    routes = {
        "search": [(kind.name, kind.description) for kind in text or rows],
        "table": [(kind.name, kind.description) for kind in rows or text],
    }
    remote = any(kind.route == "remote" for kind in text)
    planner = KindChoosingPlanner(setup.corpus, tables, remote_search=remote)
    return RoutingPlanner(planner, routes)
