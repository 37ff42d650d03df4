"""The roles of a planner-workers-reviewer team, as Protocols.

Each role has a model-backed and an offline implementation in the team that uses it; the
framework's nodes wrap roles with the mechanics every team shares (selection, caps, retries,
stop rules, bookkeeping), so a role only decides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from framework.engine.records import MemoryFact, Plan, ReviewVerdict, Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState
from framework.errors import ConfigError

__all__ = [
    "Aggregator",
    "Curator",
    "Formatter",
    "Planner",
    "Reviewer",
    "Roles",
    "Worker",
    "check_roles",
]


@runtime_checkable
class Planner(Protocol):
    """Turns the question (plus the rolling summary on a re-plan) into a plan."""

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        """Return the plan: tasks to run, or a direct answer."""
        ...


@runtime_checkable
class Worker(Protocol):
    """Runs one task.

    A worker may also define ``may_pause(task) -> bool``. False says that nothing in the task
    pauses the run (``interrupt()``), so a large dispatch may run its tasks in batches
    (:mod:`framework.engine.batching`); a worker without it is taken to pause.
    """

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task in a sync graph."""
        ...

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the task in an async graph."""
        ...


@runtime_checkable
class Aggregator(Protocol):
    """Consolidates the worker results of the run so far into one text."""

    def consolidate(self, state: TeamState, context: NodeContext) -> str:
        """Return the consolidated findings."""
        ...


@runtime_checkable
class Reviewer(Protocol):
    """Judges the consolidated findings and proposes what happens next."""

    def review(self, state: TeamState, context: NodeContext) -> ReviewVerdict:
        """Return a verdict; the team's stop rules may still force a finish."""
        ...


@runtime_checkable
class Curator(Protocol):
    """Chooses what the run should remember, with provenance."""

    def curate(self, state: TeamState, context: NodeContext) -> Sequence[MemoryFact]:
        """Return the facts to keep (and persist them where the curator keeps memory)."""
        ...


@runtime_checkable
class Formatter(Protocol):
    """Writes the final answer."""

    def format(self, state: TeamState, context: NodeContext) -> str:
        """Return the final answer text."""
        ...


_ROLE_TYPES: dict[str, type] = {
    "planner": Planner,
    "worker": Worker,
    "aggregator": Aggregator,
    "reviewer": Reviewer,
    "curator": Curator,
    "formatter": Formatter,
}


@dataclass(frozen=True, kw_only=True)
class Roles:
    """The six roles of a team. Every role is required and checked at build time."""

    planner: Planner
    worker: Worker
    aggregator: Aggregator
    reviewer: Reviewer
    curator: Curator
    formatter: Formatter

    def __post_init__(self) -> None:
        check_roles(self, _ROLE_TYPES)


def check_roles(roles: object, role_types: Mapping[str, type]) -> None:
    """Check that each attribute of ``roles`` named in ``role_types`` implements its Protocol.

    Any team's bundle of roles can call it from ``__post_init__``, so a missing or wrong role
    is refused when the team is built.

    Raises:
        ConfigError: A role is missing or lacks its Protocol's members, naming them.
    """
    owner = type(roles).__name__
    for name, protocol in role_types.items():
        role = getattr(roles, name, None)
        if role is None:
            raise ConfigError(f"role {name!r} is missing: pass {owner}({name}=...)")
        if not isinstance(role, protocol):
            methods = [m for m in vars(protocol) if not m.startswith("_")]
            fields = [m for m in getattr(protocol, "__annotations__", {}) if m not in methods]
            kind = "members" if fields else "methods"
            raise ConfigError(
                f"role {name!r} is a {type(role).__name__}, which lacks the "
                f"{protocol.__name__} {kind} {fields + methods}: implement them or pass "
                "another object"
            )
