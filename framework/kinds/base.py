"""What a kind type is: one entry of the kind-type table (:mod:`framework.kinds.table`).

A team file's kind (``kinds: - name: pricing ...``) is of one kind type, told by the keys it
declares (``builtin:``, ``tools:``/``mcp:``, ``team:``, ``remote_graph:``, ``a2a:``). A
:class:`KindType` says everything the rest of cadre asks about its kinds: the keys (its own
pydantic model), what is wrong with a kind beyond its fields (each problem at its location, so
the reader reports it as ``FILE:LINE``), whether it needs a model, its default description, how
the offline planner routes tasks to it, and how its worker is built from a :class:`KindSetup`.
Its worker is governed, listed (``cadre tools list``) and paused as any worker is: a worker
that lists itself has ``tool_rows`` (:mod:`framework.tools.listing`), a remote one pauses and
resumes through :class:`~framework.kinds.remote.RemoteWorker`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Literal, TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from framework.engine.roles import Worker
from framework.tools.mcp import McpServer

__all__ = ["KindFile", "KindSetup", "KindType", "Loaded", "Problem", "Route"]

S = TypeVar("S", bound=BaseModel)

Route = Literal["search", "remote", "table"]
"""Where the offline planner sends a task: ``search`` (a text question the corpus answers),
``remote`` (a text question answered elsewhere, planned whatever the corpus holds) or ``table``
(a question on the corpus's CSV rows)."""

Problem = tuple[tuple[str | int, ...], str]
"""A problem of a kind: its location under the kind (``("mcp", 0)``) and what is wrong."""


@dataclass(frozen=True)
class KindFile:
    """The team file a kind is read from, as its kind type checks the kind.

    Attributes:
        path: The file, absolute (its folder is on ``sys.path`` while kinds are loaded).
        servers: The MCP servers the file declares, by name.
    """

    path: Path
    servers: Mapping[str, McpServer]


@dataclass(frozen=True)
class Loaded:
    """What a kind type loaded for one kind when the file was read, and what is wrong with it.

    Attributes:
        value: What its worker is built with (:attr:`KindSetup.loaded`; None: nothing).
        problems: Each at its location under the kind.
    """

    value: object = None
    problems: Sequence[Problem] = ()


@dataclass(frozen=True, kw_only=True)
class KindSetup:
    """What a kind's worker is built from, for one run of its team.

    Attributes:
        name: The kind's name (the tool name policies match for a remote kind).
        description: Its description, or its kind type's default.
        loaded: What its kind type loaded when the file was read (:attr:`Loaded.value`).
        model: The worker role's chat model, built when first called (governed like the
            command line's model); a ConfigError when the run has none.
        resources: Closed when the run's team is closed (servers a worker started).
        nested: The worker that runs each task as the team the kind names, nested in the run.
        builtin: The team's own worker of a builtin name (``search``, ``table``).
    """

    name: str
    description: str
    loaded: object
    model: Callable[[], BaseChatModel]
    resources: ExitStack
    nested: Callable[[], Worker]
    builtin: Callable[[str], Worker]


class KindType(ABC, Generic[S]):
    """One type of worker kind (see the module); subclasses set :attr:`key` and :attr:`spec`
    and build :meth:`worker`, the other answers have defaults."""

    key: str
    """Its name in the table, and the team-file key that declares it."""
    spec: type[S]
    """The pydantic model of the keys it declares (``key`` and any others), each with a default
    that means "not declared"."""
    label: str = ""
    """How "a kind is one of ..." names it (default: :attr:`key`)."""
    wanted: str = ""
    """How "a kind needs ..." names it (default: :attr:`key`)."""

    @property
    def keys(self) -> tuple[str, ...]:
        """The team-file keys it declares."""
        return tuple(self.spec.model_fields)

    def declared(self, spec: S) -> bool:
        """Whether a kind declares this type: one of its keys holds more than its default."""
        return any(
            getattr(spec, key) != field.get_default(call_default_factory=True)
            for key, field in type(spec).model_fields.items()
        )

    def load(self, spec: S, file: KindFile) -> Loaded:
        """What is wrong with a kind beyond its own fields, and what its worker will need from
        the file (imported when the file is read; default: nothing)."""
        return Loaded()

    def team(self, spec: S) -> str | None:
        """The team each task runs, nested: a team file or an installed team's name, which the
        reader checks and includes (default: none)."""
        return None

    def needs_model(self, spec: S) -> bool:
        """Whether its worker calls a model (default: no)."""
        return False

    def description(self, spec: S) -> str:
        """Its default description (empty: the kind's name)."""
        return ""

    def route(self, spec: S) -> Route | None:
        """Where the offline planner sends tasks for it (None: nowhere, it needs a model;
        default: ``search``)."""
        return "search"

    @abstractmethod
    def worker(self, spec: S, setup: KindSetup) -> Worker:
        """The worker of one kind of this type, for one run."""
