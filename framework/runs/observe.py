"""How observers (telemetry) plug into runs without the framework importing them."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.base import SerializerProtocol

    from framework.database.home import DataHome
    from framework.engine.middleware import Middleware
    from framework.policy.records import PolicyEntry

__all__ = [
    "OBSERVER_ENTRY_POINTS",
    "EvalPart",
    "GradedCase",
    "ObserverFactory",
    "ObserverOptions",
    "RunObserver",
    "RunPart",
    "load_observer",
]

OBSERVER_ENTRY_POINTS = "cadre.observers"


@runtime_checkable
class RunPart(Protocol):
    """One part of a run (the first, or a resume) as the observer sees it."""

    def paused(self, before: Sequence[str]) -> None:
        """The part ended paused before ``before`` (an interrupt), not finished."""
        ...


@dataclass(frozen=True, kw_only=True)
class GradedCase:
    """A case of an eval, graded: its thread (whose run spans its span links to) and grade."""

    case_id: str
    thread_id: str
    status: str
    score: float
    seconds: float
    tags: tuple[str, ...] = ()


@runtime_checkable
class EvalPart(Protocol):
    """One eval run as the observer sees it: told of every case once it is graded."""

    def case(self, graded: GradedCase) -> None:
        """A case finished."""
        ...


class _Unobserved:
    """The eval part of an observer that observes no eval."""

    def case(self, graded: GradedCase) -> None:
        """Nothing to record."""


_UNOBSERVED = _Unobserved()


@runtime_checkable
class RunObserver(Protocol):
    """Observes runs: wraps nodes, brackets each run part, sees checkpoint writes."""

    @property
    def middleware(self) -> tuple[Middleware, ...]:
        """Middleware to install on every node of the observed teams."""
        ...

    def run(self, *, thread_id: str, team: str, resumed: bool) -> AbstractContextManager[RunPart]:
        """Bracket one part of a run; exceptions raised inside mark it failed."""
        ...

    def policy_decided(self, entry: PolicyEntry) -> None:
        """A policy decided something other than allow (a span event and a metric)."""
        ...

    def evaluation(
        self, *, run_id: str, dataset: str, cases: int
    ) -> AbstractContextManager[EvalPart]:
        """Bracket an eval run (``cadre eval``): a span over its cases. By default (an observer
        that subclasses this protocol and does not override it) nothing is observed."""
        return nullcontext(_UNOBSERVED)

    def serializer(self, inner: SerializerProtocol) -> SerializerProtocol:
        """Wrap the checkpoint serializer (to count what is written)."""
        ...

    def close(self) -> None:
        """Flush what was observed and release the observer's resources."""
        ...


@dataclass(frozen=True, kw_only=True)
class ObserverOptions:
    """What the command line says about observation."""

    otlp_endpoint: str | None = None
    console: bool = False
    capture_content: bool = False


class ObserverFactory(Protocol):
    """Builds the observer of a run whose data lives in ``home``."""

    def __call__(self, home: DataHome, options: ObserverOptions) -> RunObserver:
        """Return the observer."""
        ...


def load_observer(home: DataHome, options: ObserverOptions) -> RunObserver | None:
    """The observer installed under the ``cadre.observers`` entry point (telemetry), if any."""
    for point in entry_points(group=OBSERVER_ENTRY_POINTS):
        factory: ObserverFactory = point.load()
        return factory(home, options)
    return None
