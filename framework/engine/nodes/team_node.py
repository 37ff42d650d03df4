"""TeamNode: a lean LangGraph node with a sync and an async body and the middleware chain.

``RunnableLambda`` would add a callback run per call (measured: 2x the cost of a 1000-task
fan-out); this runnable calls the body directly, in sync and async runs alike.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from functools import partial
from typing import Any, Protocol

from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import run_in_executor

from framework.engine.batching import arun_batch, is_batch, may_pause, run_batch
from framework.engine.draining import DRAIN
from framework.engine.middleware import Middleware, NodeCall, arun_chain, run_chain
from framework.engine.records import Task
from framework.engine.runtime import NodeContext

__all__ = ["AsyncBody", "SlotLimiter", "SyncBody", "TeamNode"]

SyncBody = Callable[[Any, NodeContext], Any]
AsyncBody = Callable[[Any, NodeContext], Awaitable[Any]]


class SlotLimiter(Protocol):
    """Admits node executions by key (a concurrency cap); waiting happens before the node."""

    def slot(self, key: str) -> AbstractContextManager[None]:
        """Hold a slot for ``key`` while a sync execution runs."""
        ...

    def aslot(self, key: str) -> AbstractAsyncContextManager[None]:
        """Hold a slot for ``key`` while an async execution runs."""
        ...


class TeamNode(Runnable[Any, Any]):
    """A node of a team: ``body(input, context) -> update``, wrapped by the middleware chain.

    A slot limiter (a concurrency cap, with the key of the execution), then the process's drain
    (:mod:`framework.engine.draining`), admit the execution before the middleware runs, so what
    middleware measures is execution, not time spent queueing. A ``refusal(input, reason)``
    gives the update that stands for the node when a policy refuses it (a worker's failed
    task); without one, a refusal stops the run. ``role`` is the role
    object the body runs (a worker node's worker), kept so that a team's graph can be described
    without running it (``cadre tools list``); the node itself reads it only to learn whether
    a task may pause (:meth:`batchable`).

    On a node that ``batches``, an input that is a
    :class:`~framework.engine.batching.WorkerBatch` runs each of its tasks as
    one execution of its own (slot, drain, middleware, body), concurrently, each saved as it
    ends (:mod:`framework.engine.batching`).
    """

    def __init__(
        self,
        name: str,
        team: str,
        body: SyncBody,
        abody: AsyncBody | None = None,
        *,
        middleware: Sequence[Middleware] = (),
        slots: tuple[SlotLimiter, Callable[[Any], str]] | None = None,
        refusal: Callable[[Any, str], Any] | None = None,
        role: object | None = None,
        batches: bool = False,
    ) -> None:
        self.name: str = name
        self.node = name
        self.team = team
        self.body = body
        self.abody = abody
        self.middleware = tuple(middleware)
        self.slots = slots
        self.refusal = refusal
        self.role = role
        self.batches = batches

    def batchable(self, task: Task) -> bool:
        """Whether ``task`` may run in a batch: its role and every middleware say that nothing
        in its execution pauses (a role or middleware that does not say may pause)."""
        if may_pause(self.role, task):
            return False
        return all(getattr(item, "may_pause", True) is False for item in self.middleware)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Run the node in a sync graph, after its slot limiter (if any) admits it."""
        config = config or {}
        if self.batches and is_batch(input):
            return run_batch(self._admitted, input, config)
        return self._admitted(input, config)

    def _admitted(self, input: Any, config: RunnableConfig) -> Any:
        if self.slots is None:
            with DRAIN.admitted():
                return self._invoke(input, config)
        limiter, key = self.slots
        with limiter.slot(key(input)), DRAIN.admitted():
            return self._invoke(input, config)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Run the node in an async graph, after its slot limiter (if any) admits it."""
        config = config or {}
        if self.batches and is_batch(input):
            return await arun_batch(self._aadmitted, input, config)
        return await self._aadmitted(input, config)

    async def _aadmitted(self, input: Any, config: RunnableConfig) -> Any:
        if self.slots is None:
            async with DRAIN.admitted():
                return await self._ainvoke(input, config)
        limiter, key = self.slots
        async with limiter.aslot(key(input)), DRAIN.admitted():
            return await self._ainvoke(input, config)

    def _invoke(self, input: Any, config: RunnableConfig) -> Any:
        context = NodeContext.from_config(self.node, self.team, config)
        if not self.middleware:
            return self.body(input, context)
        call = self._call(input, config, context)
        return run_chain(self.middleware, call, lambda: self.body(input, context))

    def _call(self, input: Any, config: RunnableConfig, context: NodeContext) -> NodeCall:
        refusal = self.refusal
        return NodeCall(
            node=self.node,
            team=self.team,
            input=input,
            config=config,
            context=context,
            refuse=None if refusal is None else partial(refusal, input),
        )

    async def _ainvoke(self, input: Any, config: RunnableConfig) -> Any:
        context = NodeContext.from_config(self.node, self.team, config)

        async def run() -> Any:
            if self.abody is not None:
                return await self.abody(input, context)
            return await run_in_executor(config, self.body, input, context)

        if not self.middleware:
            return await run()
        return await arun_chain(self.middleware, self._call(input, config, context), run)
