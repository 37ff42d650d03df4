"""Teams are found by name through the ``cadre.teams`` entry points, so the framework never
imports a concrete team: a package declares ``name = "module:factory"`` and is runnable.

An entry point may name a plain function ``factory(setup) -> StateGraph``; what a factory can
say about itself before it runs (:attr:`TeamFactory.needs_model`,
:attr:`TeamFactory.model_specs`) are members of :class:`TeamFactory`, with defaults a plain
function gets through :class:`FunctionTeam`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langgraph.graph import StateGraph

from framework.engine.middleware import Middleware
from framework.errors import ConfigError, TeamFileError
from framework.kinds.team_file import TEAMS_GROUP, LoadedTeamFile, load_team_file
from framework.kinds.team_names import TEAM_FILE_PREFIX
from framework.memory import Corpus, SemanticStore
from framework.models.chat import ProviderChatModel
from framework.runs.prompts import PromptRegistry

__all__ = [
    "DEFAULT_TEAM",
    "ENTRY_POINT_GROUP",
    "TEAM_FILE_GROUP",
    "TEAM_FILE_PREFIX",
    "FunctionTeam",
    "TeamBuilder",
    "TeamFactory",
    "TeamSetup",
    "available_teams",
    "check_team",
    "load_team",
    "offer_team_files",
    "offered_team_files",
    "team_file_team",
    "team_label",
]

ENTRY_POINT_GROUP = TEAMS_GROUP

DEFAULT_TEAM = "meta"
"""The team ``cadre run`` runs unless told another, and the agent A2A finds at a server's
root."""


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
    prompts: PromptRegistry = field(default_factory=PromptRegistry.in_memory)
    """The role prompts: ``prompts.prompt(NAME, DEFAULT).text`` is the current version of a
    role."""
    corpus_dir: Path | None = None
    """The corpus folder the run indexed, for teams that read other files in it (tables);
    None when the run indexed none (a read-only command)."""
    resources: ExitStack = field(default_factory=ExitStack)
    """Closed when the run's team is closed: a team registers what it opened (tool servers)."""


TeamBuilder = Callable[[TeamSetup], StateGraph[Any, Any, Any, Any]]
"""Builds a team's uncompiled graph for a run: what :func:`open_team` needs of a factory."""


@runtime_checkable
class TeamFactory(Protocol):
    """Builds a team's uncompiled graph for a run, and says what the run needs first."""

    @property
    def needs_model(self) -> bool:
        """The team calls a chat model whatever its settings (a team file's tool kinds): a run
        without ``--model`` is refused up front."""
        ...

    @property
    def model_specs(self) -> Sequence[str]:
        """The ``provider:name`` models the team builds for itself: a run builds each up
        front, so a missing key or provider package is refused before any work."""
        ...

    def __call__(self, setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
        """Return the team's graph."""
        ...


@dataclass(frozen=True)
class FunctionTeam:
    """A :class:`TeamFactory` made of a plain builder function: it needs no model of its own."""

    build: TeamBuilder
    needs_model: bool = False
    model_specs: Sequence[str] = ()

    def __call__(self, setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
        """Return the team's graph."""
        return self.build(setup)


def _as_factory(loaded: TeamFactory | TeamBuilder) -> TeamFactory:
    return loaded if isinstance(loaded, TeamFactory) else FunctionTeam(loaded)


def available_teams() -> list[str]:
    """Names of the installed teams."""
    return sorted(point.name for point in entry_points(group=ENTRY_POINT_GROUP))


TEAM_FILE_GROUP = "cadre.team_files"
"""The entry point group of the function that builds a team from a team file (its path)."""


def load_team(name: str) -> TeamFactory:
    """The factory of the team called ``name`` (or of the team file it names, checked whole);
    ConfigError naming the teams there are, or the file's problems."""
    if name.startswith(TEAM_FILE_PREFIX):
        [point] = entry_points(group=TEAM_FILE_GROUP)
        from_file: Callable[[Path], TeamFactory | TeamBuilder] = point.load()
        return _as_factory(from_file(Path(name.removeprefix(TEAM_FILE_PREFIX))))
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name == name:
            return _as_factory(point.load())
    raise ConfigError(f"unknown team {name!r}: choose one of {', '.join(available_teams())}")


def check_team(team: str, *, model: str | None, build_models: bool = True) -> TeamFactory:
    """The factory of ``team`` (an installed team, or ``file:PATH``), checked whole for a run
    whose own model is ``model`` (None: the team's only): the one check of ``cadre run``,
    ``cadre serve`` (each ``--team-config`` before it listens) and ``cadre policies check``.

    Refused: what the team-file reader refuses; a kind that calls a model where neither its file
    (``models.default``) nor the run names one; a model the team names that cannot be built (a
    missing key or provider package, a scripted file that is not there), when ``build_models``.

    Raises:
        TeamFileError: A team file cannot run, one line with ``FILE:LINE`` of each problem.
        ConfigError: An installed team is unknown or cannot run.
    """
    factory = load_team(team)
    wanted = factory.needs_model and model is None
    unbuilt = {
        spec: why for spec in factory.model_specs if build_models and (why := _unbuilt(spec))
    }
    if not wanted and not unbuilt:
        return factory
    if team.startswith(TEAM_FILE_PREFIX):
        loaded = load_team_file(Path(team.removeprefix(TEAM_FILE_PREFIX)))
        raise _file_refusal(loaded, wanted=wanted, unbuilt=unbuilt)
    if wanted:
        raise ConfigError(f"team {team!r} needs a model: pass --model")
    raise ConfigError(next(iter(unbuilt.values())))


def _unbuilt(spec: str) -> str | None:
    """Why the model ``spec`` cannot be built now (None: it can)."""
    try:
        ProviderChatModel(spec, build_now=True)
    except ConfigError as error:
        return str(error)
    return None


def _file_refusal(
    loaded: LoadedTeamFile, *, wanted: bool, unbuilt: dict[str, str]
) -> TeamFileError:
    """The refusal of team file ``loaded``: each kind of it (or of a file it includes) that
    calls a model with none named when ``wanted``, each of its models in ``unbuilt``, at its
    line."""
    problems: list[str] = []
    placed: set[str] = set()
    for file in loaded.files():
        if wanted:
            problems += [
                file.problem(
                    at,
                    f"kind {name!r} calls a model, and neither the file (models.default) nor "
                    "the run names one: set models.default in the file or pass --model",
                )
                for at, name in file.unmodelled()
            ]
        for role, spec in file.spec.models.items():
            if spec in unbuilt:
                problems.append(file.problem(("models", role), unbuilt[spec]))
                placed.add(spec)
    problems += [why for spec, why in unbuilt.items() if spec not in placed]
    return TeamFileError(f"team file {loaded.where.path} is invalid: " + "; ".join(problems))


_OFFERED: dict[str, str] = {}
"""The team files this process offers besides the installed teams: team name -> its team
(``file:/abs/team.yaml``)."""


def team_file_team(path: Path) -> str:
    """The team that names team file ``path`` (``file:/abs/team.yaml``), as a thread records it."""
    return f"{TEAM_FILE_PREFIX}{path.expanduser().resolve()}"


def offer_team_files(paths: Sequence[Path]) -> dict[str, str]:
    """Offer the teams of team files by the names the files give them (``cadre serve
    --team-config``), in place of those offered before; each file is checked whole first.

    Returns:
        Team name -> its team (``file:/abs/team.yaml``), as :func:`offered_team_files`.

    Raises:
        ConfigError: A file is invalid (``FILE:LINE``), two files give one name, or a name is
            an installed team's.
    """
    installed = set(available_teams())
    offered: dict[str, str] = {}
    for path in paths:
        team = team_file_team(path)
        check_team(team, model=None)  # a served file runs on its own models
        name = load_team_file(path).spec.name
        if name in installed or (name in offered and offered[name] != team):
            taken = "an installed team" if name in installed else offered[name]
            raise ConfigError(
                f"team file {path} names its team {name!r}, as {taken} does: give it "
                "another name (name: in the file)"
            )
        offered[name] = team
    _OFFERED.clear()
    _OFFERED.update(offered)
    return dict(offered)


def team_label(team: str) -> str:
    """The name a team goes by where people see it: an installed team's name; a team file's,
    the name this process offers it under, else the name the file declares; never its path
    (a path on a server is not for its tenants)."""
    if not team.startswith(TEAM_FILE_PREFIX):
        return team
    offered = next((name for name, known in _OFFERED.items() if known == team), None)
    if offered is not None:
        return offered
    try:
        return load_team_file(Path(team.removeprefix(TEAM_FILE_PREFIX))).spec.name
    except ConfigError:
        return "a team file"


def offered_team_files() -> dict[str, str]:
    """The team files offered by :func:`offer_team_files`: team name -> its team."""
    return dict(_OFFERED)
