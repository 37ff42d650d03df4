"""Teams are found by name through the ``cadre.teams`` entry points, so the framework never
imports a concrete team: a package declares ``name = "module:factory"`` and is runnable."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langgraph.graph import StateGraph

from framework.engine.middleware import Middleware
from framework.errors import ConfigError
from framework.memory import Corpus, SemanticStore
from framework.runs.prompts import RoleRegistry

__all__ = [
    "ENTRY_POINT_GROUP",
    "TEAM_FILE_GROUP",
    "TEAM_FILE_PREFIX",
    "TeamFactory",
    "TeamSetup",
    "available_teams",
    "load_team",
]

ENTRY_POINT_GROUP = "cadre.teams"


@dataclass(frozen=True, kw_only=True)
class TeamSetup:
    """What a team factory gets: the corpus, the store, the model (None: offline), the caps,
    the role prompts."""

    corpus: Corpus
    store: SemanticStore
    model: BaseChatModel | None = None
    max_parallel: int | None = None
    middleware: tuple[Middleware, ...] = ()
    memory_scope: tuple[str, ...] = ("default",)
    """Whose research memory the run reads and extends (a user or a project)."""
    review: frozenset[str] = frozenset()
    """The review points to pause at (``plan``, ``tasks``, ``answer``); empty pauses nowhere.
    A team turns them on for the team that plans (the research phase of the MetaCoordinator)."""
    roles: RoleRegistry = field(default_factory=RoleRegistry.in_memory)
    """The role prompts: ``roles.prompt(NAME, DEFAULT).text`` is the current version of a role."""
    corpus_dir: Path | None = None
    """The corpus folder the run indexed, for teams that read other files in it (tables);
    None when the run indexed none (a read-only command)."""
    resources: ExitStack = field(default_factory=ExitStack)
    """Closed when the run's team is closed: a team registers what it opened (tool servers)."""


class TeamFactory(Protocol):
    """Builds a team's uncompiled graph for a run."""

    def __call__(self, setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
        """Return the team's graph."""
        ...


def available_teams() -> list[str]:
    """Names of the installed teams."""
    return sorted(point.name for point in entry_points(group=ENTRY_POINT_GROUP))


TEAM_FILE_PREFIX = "file:"
"""A team name of this form names a team file (``file:/abs/team.yaml``): a run records it, so a
resume or a review decision builds the same team from the same file."""

TEAM_FILE_GROUP = "cadre.team_files"
"""The entry point group of the function that builds a team from a team file (its path)."""


def load_team(name: str) -> TeamFactory:
    """The factory of the team called ``name`` (or of the team file it names, checked whole);
    ConfigError naming the teams there are, or the file's problems."""
    if name.startswith(TEAM_FILE_PREFIX):
        [point] = entry_points(group=TEAM_FILE_GROUP)
        from_file: Callable[[Path], TeamFactory] = point.load()
        return from_file(Path(name.removeprefix(TEAM_FILE_PREFIX)))
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name == name:
            factory: TeamFactory = point.load()
            return factory
    raise ConfigError(f"unknown team {name!r}: choose one of {', '.join(available_teams())}")
