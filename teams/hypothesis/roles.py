"""The roles of the hypothesis team, as Protocols, and the bundle the team is built from.

Each role has an offline implementation (no model) and a model-backed one; a role only
decides, the team's nodes apply its decisions to :class:`~framework.memory.ResearchMemory`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from langchain_core.tools import BaseTool

from framework.engine.roles import check_roles
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError
from framework.memory import Conflict, EvidenceRecord, ResearchMemory
from teams.hypothesis.state import HypothesisState
from teams.hypothesis.verdicts import Decision, Judgment, Resolution

__all__ = [
    "HypothesisRoles",
    "Judge",
    "Resolver",
    "Searcher",
    "Supervisor",
    "Synthesizer",
]


@runtime_checkable
class Supervisor(Protocol):
    """Chooses the next step; ``rule`` is what the routing rule would choose."""

    def decide(self, state: HypothesisState, rule: Decision, context: NodeContext) -> Decision:
        """Return the next step and why."""
        ...


@runtime_checkable
class Searcher(Protocol):
    """Owns the sources (LangChain tools taking ``{"query": str}``) and plans the queries."""

    @property
    def sources(self) -> Sequence[BaseTool]:
        """The sources, each a LangChain tool taking ``{"query": str}``."""
        ...

    def queries(self, state: HypothesisState, context: NodeContext) -> list[str]:
        """The queries of this search round (none: nothing left to search)."""
        ...


@runtime_checkable
class Judge(Protocol):
    """Proposes hypotheses, weighs them against the evidence, finds conflicting evidence."""

    def judge(self, state: HypothesisState, context: NodeContext) -> Judgment:
        """Return the assessments and conflicts of this round."""
        ...


@runtime_checkable
class Resolver(Protocol):
    """Settles a conflict between two pieces of evidence."""

    def queries(self, conflict: Conflict, a: EvidenceRecord, b: EvidenceRecord) -> list[str]:
        """What to search the sources for, looking for decisive evidence."""
        ...

    def resolve(
        self, conflict: Conflict, a: EvidenceRecord, b: EvidenceRecord, context: NodeContext
    ) -> Resolution | None:
        """How the conflict is settled, after the search; None when nothing decides (the
        conflict stays open and the report says so)."""
        ...


@runtime_checkable
class Synthesizer(Protocol):
    """Writes the report."""

    def synthesize(self, state: HypothesisState, context: NodeContext) -> str:
        """Return the Markdown report of the run."""
        ...


_ROLE_TYPES: dict[str, type] = {
    "supervisor": Supervisor,
    "searcher": Searcher,
    "judge": Judge,
    "resolver": Resolver,
    "synthesizer": Synthesizer,
}


@dataclass(frozen=True, kw_only=True)
class HypothesisRoles:
    """The memory and the five roles of a hypothesis team, checked when the bundle is made.

    Raises:
        ConfigError: A role is missing or lacks its Protocol's members, the memory is not a
            :class:`ResearchMemory`, or the sources are not uniquely named tools that take a
            ``query``.
    """

    memory: ResearchMemory
    supervisor: Supervisor
    searcher: Searcher
    judge: Judge
    resolver: Resolver
    synthesizer: Synthesizer

    def __post_init__(self) -> None:
        if not isinstance(self.memory, ResearchMemory):
            raise ConfigError(
                f"memory is a {type(self.memory).__name__}: pass "
                "ResearchMemory(store, scope=...) from framework.memory"
            )
        check_roles(self, _ROLE_TYPES)
        check_sources(self.searcher.sources)

    def source(self, name: str) -> BaseTool:
        """The source called ``name``."""
        for tool in self.searcher.sources:
            if tool.name == name:
                return tool
        raise ConfigError(f"no source named {name!r}: the sources are {self.source_names}")

    @property
    def source_names(self) -> list[str]:
        """The names of the sources, in order."""
        return [tool.name for tool in self.searcher.sources]


def check_sources(sources: Sequence[BaseTool]) -> None:
    """Refuse a source list the search cannot use, saying how to fix it.

    Raises:
        ConfigError: No sources, a source that is not a LangChain tool or takes no ``query``
            argument, or two sources with one name.
    """
    if not sources:
        raise ConfigError("the searcher has no sources: pass at least corpus_source(corpus)")
    seen: set[str] = set()
    for tool in sources:
        if not isinstance(tool, BaseTool):
            raise ConfigError(
                f"source {tool!r} is not a LangChain tool: wrap it with "
                "langchain_core.tools.StructuredTool.from_function(func, name=...)"
            )
        if "query" not in tool.args:
            raise ConfigError(
                f"source {tool.name!r} takes {sorted(tool.args)}, not a 'query': give its "
                "function a `query: str` parameter"
            )
        if tool.name in seen:
            raise ConfigError(f"two sources are named {tool.name!r}: give each a unique name")
        seen.add(tool.name)
