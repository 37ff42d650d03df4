"""The node middleware chain: the one place where cross-cutting work wraps every node.

Telemetry, policies, redaction and budgets plug in here through :class:`Middleware`; node
functions themselves stay small. A chain with no middleware costs one ``if``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from langchain_core.runnables import RunnableConfig

from framework.engine.runtime import NodeContext
from framework.errors import ConfigError

__all__ = ["Middleware", "NodeCall", "arun_chain", "check_middleware", "run_chain"]


@dataclass(frozen=True, kw_only=True, slots=True)
class NodeCall:
    """What a middleware sees of one node execution."""

    node: str
    team: str
    input: Any
    config: RunnableConfig
    context: NodeContext
    refuse: Callable[[str], Any] | None = None
    """The update that stands for the node when a policy refuses it (a worker's failed task);
    None: a refusal stops the run."""


@runtime_checkable
class Middleware(Protocol):
    """Wraps node executions; call ``proceed()`` to run the rest of the chain and the node.

    A middleware that never pauses an execution (``interrupt()``) says so with a ``may_pause``
    attribute of False, so the worker tasks it wraps may run in batches
    (:mod:`framework.engine.batching`); one without the attribute may pause.
    """

    def wrap(self, call: NodeCall, proceed: Callable[[], Any]) -> Any:
        """Wrap a sync node execution and return its update."""
        ...

    async def awrap(self, call: NodeCall, proceed: Callable[[], Awaitable[Any]]) -> Any:
        """Wrap an async node execution and return its update."""
        ...


def check_middleware(chain: Sequence[object]) -> None:
    """Refuse a chain with an object that is not a :class:`Middleware`, saying what to do.

    Raises:
        ConfigError: An item lacks ``wrap``/``awrap``.
    """
    for middleware in chain:
        if not isinstance(middleware, Middleware):
            raise ConfigError(
                f"middleware {middleware!r} lacks wrap()/awrap(): "
                "implement framework.engine.middleware.Middleware"
            )


def run_chain(chain: Sequence[Middleware], call: NodeCall, node: Callable[[], Any]) -> Any:
    """Run ``node`` inside every middleware of ``chain`` (not empty), outermost first."""
    proceed = node
    for middleware in reversed(chain[1:]):
        proceed = _bind(middleware, call, proceed)
    return chain[0].wrap(call, proceed)


def arun_chain(
    chain: Sequence[Middleware], call: NodeCall, node: Callable[[], Awaitable[Any]]
) -> Awaitable[Any]:
    """Async form of :func:`run_chain`: the outermost middleware's awaitable (no coroutine of
    its own, and no closure for the outermost: a fan-out keeps one per task alive)."""
    proceed = node
    for middleware in reversed(chain[1:]):
        proceed = _abind(middleware, call, proceed)
    return chain[0].awrap(call, proceed)


def _bind(middleware: Middleware, call: NodeCall, inner: Callable[[], Any]) -> Callable[[], Any]:
    return lambda: middleware.wrap(call, inner)


def _abind(
    middleware: Middleware, call: NodeCall, inner: Callable[[], Awaitable[Any]]
) -> Callable[[], Awaitable[Any]]:
    return lambda: middleware.awrap(call, inner)
