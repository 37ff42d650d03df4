"""A team composed from a YAML file: worker kinds (each of a kind type of the kind-type table,
:mod:`framework.kinds.table`: builtin workers, tools and MCP servers, whole teams, remote
graphs and A2A agents), models, caps, MCP servers; or a coordinator's phases.

:func:`load_team_file` reads and checks the whole file, and every team file it includes, before
anything runs; every problem is reported on one line with the file and line of the value
(``team.yaml:12: kinds.1.tools.0: cannot import 'pkg.mod:calc' (No module named 'pkg')``), a
file that includes itself through others with the chain of its ``team:`` values
(``a.yaml:7 -> b.yaml:5 -> a.yaml``); a remote kind whose ``token_env`` is not set is refused at
its line. See docs/team-config.md.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    SkipValidation,
    ValidationError,
    model_validator,
)

from framework.engine.config_file import Where, invalid, read_yaml, shown_path
from framework.errors import ConfigError, TeamFileError
from framework.kinds.base import KindFile, KindType, Route
from framework.kinds.table import read_kind
from framework.kinds.team_names import DEFAULT_TEAM_NAME
from framework.kinds.team_phases import PhaseSpec, names_file, step_problems
from framework.models.specs import anchored_spec, parse_model_spec
from framework.tools.mcp import McpServer

__all__ = [
    "ROLES",
    "TEAMS_GROUP",
    "KindSpec",
    "LoadedTeamFile",
    "TeamFile",
    "load_team_file",
]

ROLES = ("planner", "worker", "aggregator", "reviewer", "curator", "formatter")
"""The roles a file's ``models:`` may name (besides ``default``)."""

TEAMS_GROUP = "cadre.teams"
"""The entry point group of the installed teams (a kind's ``team: NAME``)."""

Include = tuple[Path, int]
"""A file and the line of a ``team:`` value in it that includes another."""


class KindSpec(BaseModel):
    """One worker kind of the file: its name, description and cap, and the kind type its
    other keys declare (read through the kind-type table, :mod:`framework.kinds.table`).

    Attributes:
        kind_type: Its entry of the table.
        spec: The keys of its kind type, as the file declares them.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    name: str
    description: str = ""
    max_parallel: int | None = None
    kind_type: SkipValidation[KindType[Any]]
    spec: SkipValidation[BaseModel]

    @model_validator(mode="wrap")
    @classmethod
    def _read(cls, value: Any, handler: ModelWrapValidatorHandler[KindSpec]) -> KindSpec:
        if isinstance(value, KindSpec):
            return value
        own, kind_type, spec = read_kind(value)
        return handler({**own, "kind_type": kind_type, "spec": spec})

    @property
    def described(self) -> str:
        """Its description, else its kind type's default, else its name."""
        return self.description or self.kind_type.description(self.spec) or self.name

    @property
    def needs_model(self) -> bool:
        """Whether its worker calls a model."""
        return self.kind_type.needs_model(self.spec)

    @property
    def team(self) -> str | None:
        """The team each of its tasks runs, nested (None: none)."""
        return self.kind_type.team(self.spec)

    @property
    def route(self) -> Route | None:
        """Where the offline planner sends tasks for it (None: nowhere)."""
        return self.kind_type.route(self.spec)


class TeamFile(BaseModel):
    """The whole file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(default=DEFAULT_TEAM_NAME, pattern=r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
    max_parallel: int | None = Field(default=None, ge=1)
    dispatch_batch: int | None = Field(default=None, ge=1)
    """The most tasks one worker execution runs in a large dispatch (None: the team default)."""
    review: list[Literal["plan", "tasks", "answer"]] = Field(default_factory=list)
    models: dict[str, str] = Field(default_factory=dict)
    kinds: list[KindSpec] = Field(default_factory=list, min_length=1)
    phases: list[PhaseSpec] = Field(default_factory=list, min_length=1)
    """A coordinator's steps around teams, instead of ``kinds`` (see :mod:`.team_phases`)."""
    mcp_servers: list[dict[str, Any]] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> TeamFile:
        if bool(self.kinds) == bool(self.phases):
            raise ValueError(
                "a team file declares kinds (a team) or phases (a coordinator of teams): one"
            )
        extra = [key for key in _TEAM_ONLY if getattr(self, key)]
        if self.phases and extra:
            raise ValueError(
                f"a coordinator file (phases) declares name and phases only, not "
                f"{', '.join(extra)}: the files of its teams declare those"
            )
        unknown_roles = sorted(set(self.models) - {"default", *ROLES})
        if unknown_roles:
            raise ValueError(
                f"models names unknown roles {unknown_roles}: use default or {', '.join(ROLES)}"
            )
        names = [kind.name for kind in self.kinds]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"kinds named more than once: {', '.join(twice)}")
        return self


_TEAM_ONLY = ("max_parallel", "dispatch_batch", "review", "models", "mcp_servers")


class LoadedTeamFile:
    """A checked team file: its settings, what its kinds name loaded, its servers declared.

    Attributes:
        path: The file, absolute.
        spec: What it declares.
        loaded: Kind name -> what its kind type loaded from the file (a tools kind's tools
            and servers).
        servers: Server name -> its declaration (paths resolved against the file's folder).
        subteams: Kind (or team phase) name -> the team it runs: an included file (checked)
            or an installed team's name.
        where: Finds the line of a value of the file.
        included: Where it is included, outermost first (empty: the file given).
    """

    def __init__(
        self,
        path: Path,
        spec: TeamFile,
        loaded: dict[str, object],
        servers: dict[str, McpServer],
        *,
        where: Where,
        included: tuple[Include, ...] = (),
    ) -> None:
        self.path = path
        self.spec = spec
        self.loaded = loaded
        self.servers = servers
        self.subteams: dict[str, LoadedTeamFile | str] = {}
        self.where = where
        self.included = included

    def problem(self, at: tuple[str | int, ...], message: str) -> str:
        """``message`` about the value at ``at``: ``FILE:LINE: at: message``, naming where the
        file is included."""
        return _trailed(self.where.at(at, message), self.included)

    def files(self) -> Iterator[LoadedTeamFile]:
        """This file and every team file it includes, to any depth."""
        yield self
        for sub in self.subteams.values():
            if isinstance(sub, LoadedTeamFile):
                yield from sub.files()

    def unmodelled(self) -> list[tuple[tuple[str, int], str]]:
        """Where its own kinds call a model while it names no default model, and their names."""
        if "default" in self.spec.models:
            return []
        return [
            (("kinds", index), kind.name)
            for index, kind in enumerate(self.spec.kinds)
            if kind.needs_model
        ]

    @property
    def needs_model(self) -> bool:
        """Whether a kind calls a model and the file names no default model, here or in a team
        file it includes."""
        return any(file.unmodelled() for file in self.files())

    def model_spec(self, role: str) -> str | None:
        """The model spec of a role (its own, else the file's default; None: none)."""
        return self.spec.models.get(role) or self.spec.models.get("default")


def load_team_file(path: Path) -> LoadedTeamFile:
    """Read, check and import everything a team file declares, and the team files it includes.

    Raises:
        TeamFileError: The file cannot be read, is not YAML, or declares something wrong; one
            line per problem, each with ``FILE:LINE`` (the file named as
            :func:`~framework.engine.config_file.shown_path` names it; a problem of an included
            file also names where it is included); a file that includes itself through others.
    """
    return _load(path, ())


def _load(path: Path, chain: tuple[Include, ...]) -> LoadedTeamFile:
    """The checked file ``path``, included through ``chain`` (outermost first)."""
    try:
        loaded = _checked(path, chain)
    except ConfigError as error:
        raise TeamFileError(_trailed(str(error), chain)) from None
    where = loaded.where
    problems: list[str] = []
    teams: list[tuple[str, tuple[str | int, ...], str | None]] = [
        (kind.name, ("kinds", index, kind.kind_type.key), kind.team)
        for index, kind in enumerate(loaded.spec.kinds)
    ]
    teams += [
        (phase.steps[0], ("phases", index, "team"), phase.team)
        for index, phase in enumerate(loaded.spec.phases)
    ]
    for name, at, team in teams:
        if team is not None:
            problem = _include(loaded, name, team, where=where, at=at, chain=chain)
            problems.extend([problem] if problem else [])
    if problems:
        invalid_file = f"team file {where.path} is invalid: " + "; ".join(problems)
        raise TeamFileError(_trailed(invalid_file, chain))
    return loaded


def _include(
    loaded: LoadedTeamFile,
    name: str,
    team: str,
    *,
    where: Where,
    at: tuple[str | int, ...],
    chain: tuple[Include, ...],
) -> str | None:
    """File the team ``team`` (named at ``at``) as ``loaded``'s subteam ``name``: an included
    file, checked (a cycle refused), or an installed team; the problem when there is none."""
    if names_file(team):
        here = (*chain, (loaded.path, where.line(at)))
        target = (loaded.path.parent / team).expanduser().resolve()
        _refuse_cycle(target, here)
        if not target.is_file():
            return where.at(at, f"no team file {shown_path(target)}")
        loaded.subteams[name] = _load(target, here)
        return None
    installed = sorted(point.name for point in entry_points(group=TEAMS_GROUP))
    if team not in installed:
        return where.at(at, f"no installed team {team!r}: one of {', '.join(installed)}")
    loaded.subteams[name] = team
    return None


def _refuse_cycle(target: Path, chain: tuple[Include, ...]) -> None:
    """Refuse including ``target`` through ``chain`` when it is already in it."""
    files = [file for file, _ in chain]
    if target in files:
        trail = " -> ".join(
            f"{shown_path(file)}:{line}" for file, line in chain[files.index(target) :]
        )
        raise TeamFileError(f"team files include each other: {trail} -> {shown_path(target)}")


def _trailed(message: str, chain: tuple[Include, ...]) -> str:
    """``message`` about a file included through ``chain``, naming where (as is at the top)."""
    if not chain:
        return message
    trail = " -> ".join(f"{shown_path(file)}:{line}" for file, line in chain)
    return f"{message} (included at {trail})"


def _checked(path: Path, chain: tuple[Include, ...]) -> LoadedTeamFile:
    """The file's own settings, tools and servers checked (its includes not yet read)."""
    path, _, data, where = read_yaml(path, "team file")
    if not data:
        raise ConfigError(f"{where.path}:1: a team file is a mapping (name, kinds, ...)")
    try:
        spec = TeamFile.model_validate(data)
    except ValidationError as error:
        raise invalid(where, error, "team file") from None
    servers = _servers(path.parent, where, spec)
    problems: list[str] = []
    models: dict[str, str] = {}
    for role, model in spec.models.items():
        try:
            parse_model_spec(model)
        except ConfigError as error:
            problems.append(where.at(("models", role), str(error)))
        models[role] = anchored_spec(model, path.parent)  # scripted:FILE beside the file
    spec = spec.model_copy(update={"models": models})
    file = KindFile(path, servers)
    loaded: dict[str, object] = {}
    with _importable(path.parent):
        for index, kind in enumerate(spec.kinds):
            found = kind.kind_type.load(kind.spec, file)
            loaded[kind.name] = found.value
            problems += [where.at(("kinds", index, *at), text) for at, text in found.problems]
    problems += [where.at(("phases", i), problem) for i, problem in step_problems(spec.phases)]
    if problems:
        raise ConfigError(f"team file {where.path} is invalid: " + "; ".join(problems))
    return LoadedTeamFile(path, spec, loaded, servers, where=where, included=chain)


def _servers(folder: Path, where: Where, spec: TeamFile) -> dict[str, McpServer]:
    servers: dict[str, McpServer] = {}
    problems: list[str] = []
    for index, raw in enumerate(spec.mcp_servers):
        declared = dict(raw)
        for key in ("command", "cwd"):
            if isinstance(declared.get(key), str) and declared[key].startswith("."):
                declared[key] = str((folder / declared[key]).resolve())
        if isinstance(declared.get("args"), list):
            declared["args"] = [
                str((folder / arg).resolve())
                if isinstance(arg, str) and arg.startswith(("./", "../"))
                else arg
                for arg in declared["args"]
            ]
        try:
            server = McpServer.from_config(declared)
        except ConfigError as error:
            problems.append(where.at(("mcp_servers", index), str(error)))
            continue
        if server.name in servers:
            problems.append(where.at(("mcp_servers", index), f"server {server.name!r} twice"))
        servers[server.name] = server
    if problems:
        raise ConfigError(f"team file {where.path} is invalid: " + "; ".join(problems))
    return servers


@contextmanager
def _importable(folder: Path) -> Iterator[None]:
    """The file's folder on ``sys.path`` while its kinds load what they name (tools)."""
    entry = str(folder)
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        if entry in sys.path:
            sys.path.remove(entry)
