"""Running a compiled team: stream its progress events, return its final state."""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, Callable, Generator, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, aclosing, closing, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal, cast

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, StateSnapshot, StreamMode

from framework.engine.records import WorkerResult
from framework.errors import WorkerError
from framework.persistence.saver import CadreSaver
from framework.runs.observe import RunObserver, RunPart

__all__ = [
    "Event",
    "RunResult",
    "StreamOptions",
    "arun_team",
    "hold_thread",
    "new_thread_id",
    "run_team",
]

Event = Mapping[str, Any]
EventHandler = Callable[[tuple[str, ...], Event], None]


@dataclass(frozen=True, kw_only=True)
class RunResult:
    """The outcome of a run: its thread, final state, and the nodes it is paused before."""

    thread_id: str
    state: dict[str, Any]
    paused_before: tuple[str, ...] = ()

    def failure(self) -> WorkerError | None:
        """Why a finished run is a failed one: every task it ran failed, so its answer rests on
        no evidence (None when a task succeeded, none ran, every task was refused by a person
        or a policy, or the run is paused)."""
        results: Mapping[str, WorkerResult] = self.state.get("worker_results") or {}
        if self.paused_before or not results:
            return None
        if any(result.status != "failed" for result in results.values()):
            return None
        failed = [result for result in results.values() if not result.refused]
        if not failed:  # every task was refused by a person or a policy: a decision, not a fault
            return None
        first = failed[0]
        return WorkerError(
            f"thread {self.thread_id}: all {len(results)} task(s) failed, so the answer has no "
            f"evidence (task {first.task_id}: {first.error}); fix the cause and run the "
            f"question again (`cadre show {self.thread_id}` has every task's error)"
        )


def new_thread_id() -> str:
    """A fresh thread id."""
    return uuid.uuid4().hex[:12]


ChunkHandler = Callable[[tuple[str, ...], str, Any], None]
"""Receives every streamed chunk: the namespace of the graph it came from, its mode, its data."""

GraphEventHandler = Callable[[Mapping[str, Any]], None]
"""Receives LangGraph's ``astream_events`` v2 events (those carrying the run's chunks aside)."""


@dataclass(frozen=True, kw_only=True)
class StreamOptions:
    """More of the stream than progress events (for a server relaying a run).

    Attributes:
        modes: Stream modes besides ``custom`` and ``values`` (which a run always streams).
        on_chunk: Receives every chunk, of every mode and graph; raising stops the run.
        on_graph_event: Receives every other ``astream_events`` v2 event of the run (set, an
            async run streams through ``astream_events``; raising stops the run).
        interrupt_before: Nodes to pause before (LangGraph's static breakpoints).
        interrupt_after: Nodes to pause after.
        checkpoint_id: Run from this checkpoint of the thread (a fork of its history).
        run_id: Recorded in the metadata of every checkpoint the run writes.
        callbacks: LangChain callback handlers for the run (they follow it into nested teams,
            model and tool calls).
    """

    modes: tuple[StreamMode, ...] = ()
    on_chunk: ChunkHandler | None = None
    on_graph_event: GraphEventHandler | None = None
    interrupt_before: Sequence[str] | Literal["*"] | None = None
    interrupt_after: Sequence[str] | Literal["*"] | None = None
    checkpoint_id: str | None = None
    run_id: str | None = None
    callbacks: tuple[BaseCallbackHandler, ...] = ()


_PLAIN = StreamOptions()


def _config(
    thread_id: str,
    max_concurrency: int | None,
    metadata: Mapping[str, Any] | None,
    options: StreamOptions = _PLAIN,
) -> RunnableConfig:
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    if options.checkpoint_id is not None:
        config["configurable"]["checkpoint_id"] = options.checkpoint_id
    if options.callbacks:
        config["callbacks"] = list(options.callbacks)
    if max_concurrency is not None:
        config["max_concurrency"] = max_concurrency  # top level: inside configurable is ignored
    recorded = dict(metadata or {})
    if options.run_id is not None:
        config["run_id"] = uuid.UUID(options.run_id)
        recorded["run_id"] = options.run_id  # config's run_id alone is not in the checkpoints
    if recorded:
        config["metadata"] = recorded  # string values land in the checkpoint metadata
    return config


_MODES: tuple[StreamMode, ...] = ("custom", "values")


def _stream_arguments(options: StreamOptions) -> dict[str, Any]:
    modes = list(dict.fromkeys((*_MODES, *options.modes)))
    return {
        "stream_mode": modes,
        "subgraphs": True,
        "interrupt_before": options.interrupt_before,
        "interrupt_after": options.interrupt_after,
    }


class _Collector:
    """Passes progress events on and keeps the top graph's latest values."""

    def __init__(self, on_event: EventHandler | None, on_chunk: ChunkHandler | None) -> None:
        self.on_event = on_event
        self.on_chunk = on_chunk
        self.values: dict[str, Any] = {}
        self.paused_before: tuple[str, ...] = ()

    def take(self, chunk: Any) -> None:
        namespace, mode, payload = chunk
        if self.on_chunk is not None:
            self.on_chunk(tuple(namespace), mode, payload)
        if mode == "values":
            if not namespace:
                self.values = dict(payload)
        elif mode == "custom" and self.on_event is not None:
            self.on_event(cast(tuple[str, ...], namespace), cast(Event, payload))

    def settle(self, snapshot: StateSnapshot, part: RunPart | None) -> None:
        """Take the checkpointed state and, when the run paused, tell the observer."""
        self.values = dict(snapshot.values)
        self.paused_before = tuple(snapshot.next)
        if self.paused_before and part is not None:
            part.paused(self.paused_before)

    def result(self, thread_id: str) -> RunResult:
        return RunResult(thread_id=thread_id, state=self.values, paused_before=self.paused_before)


_HELD: ContextVar[frozenset[tuple[int, str]]] = ContextVar("cadre_held", default=frozenset())
"""The (checkpointer, thread) pairs this context holds, so a nested hold does not lock itself
out."""


@contextmanager
def hold_thread(app: CompiledStateGraph[Any, Any, Any, Any], thread_id: str) -> Iterator[None]:
    """Keep every other process from running ``thread_id`` on ``app``'s checkpointer while the
    block runs (a no-op for checkpointers other than cadre's); nested holds are free.

    Raises:
        ThreadBusyError: Another process (or saver) is running the thread; nothing changed.
    """
    saver = app.checkpointer
    key = (id(saver), thread_id)
    if not isinstance(saver, CadreSaver) or key in _HELD.get():
        yield
        return
    with saver.hold_thread(thread_id):
        token = _HELD.set(_HELD.get() | {key})
        try:
            yield
        finally:
            _HELD.reset(token)


def _observed(
    observer: RunObserver | None,
    app: CompiledStateGraph[Any, Any, Any, Any],
    thread_id: str,
    inputs: Any,
) -> AbstractContextManager[RunPart | None]:
    if observer is None:
        return nullcontext()
    resumed = not isinstance(inputs, Mapping)  # None or a Command continues the thread
    return observer.run(thread_id=thread_id, team=app.get_name(), resumed=resumed)


def run_team(
    app: CompiledStateGraph[Any, Any, Any, Any],
    inputs: Mapping[str, Any] | Command[Any] | None,
    thread_id: str,
    *,
    on_event: EventHandler | None = None,
    max_concurrency: int | None = None,
    observer: RunObserver | None = None,
    metadata: Mapping[str, Any] | None = None,
    options: StreamOptions = _PLAIN,
) -> RunResult:
    """Run (or, with ``inputs=None``, resume) a team in a sync graph, streaming its events.

    A ``Command`` resumes a paused thread with values for its interrupts (see
    :func:`framework.review.decide`, which checks them first).

    With an ``observer`` (telemetry), the run part is bracketed by it: one trace per run, a
    resume linked to the part it continues. ``metadata`` goes into the run config, so its
    string, number and boolean values are stored with every checkpoint this part writes
    (sealed, on cadre's encrypted saver). The thread is held for the run (:func:`hold_thread`).

    Raises:
        ThreadBusyError: Another process is running the thread.
    """
    config = _config(thread_id, max_concurrency, metadata, options)
    collector = _Collector(on_event, options.on_chunk)
    with hold_thread(app, thread_id), _observed(observer, app, thread_id, inputs) as part:
        stream = app.stream(inputs, config, **_stream_arguments(options))
        with closing(cast(Generator[Any, None, None], stream)) as chunks:
            for chunk in chunks:  # closed at once when a chunk's receiver raises: see _achunks
                collector.take(chunk)
        if app.checkpointer is not None:
            collector.settle(app.get_state(_latest(config)), part)
    return collector.result(thread_id)


def _latest(config: RunnableConfig) -> RunnableConfig:
    """``config`` naming the thread's latest checkpoint (not the one a fork started from)."""
    configurable = {k: v for k, v in config["configurable"].items() if k != "checkpoint_id"}
    return {**config, "configurable": configurable}


async def arun_team(
    app: CompiledStateGraph[Any, Any, Any, Any],
    inputs: Mapping[str, Any] | Command[Any] | None,
    thread_id: str,
    *,
    on_event: EventHandler | None = None,
    max_concurrency: int | None = None,
    observer: RunObserver | None = None,
    metadata: Mapping[str, Any] | None = None,
    options: StreamOptions = _PLAIN,
) -> RunResult:
    """Async form of :func:`run_team`."""
    config = _config(thread_id, max_concurrency, metadata, options)
    collector = _Collector(on_event, options.on_chunk)
    with hold_thread(app, thread_id), _observed(observer, app, thread_id, inputs) as part:
        async with aclosing(_achunks(app, inputs, config, options)) as chunks:
            async for chunk in chunks:
                collector.take(chunk)
        if app.checkpointer is not None:
            collector.settle(await app.aget_state(_latest(config)), part)
    return collector.result(thread_id)


async def _achunks(
    app: CompiledStateGraph[Any, Any, Any, Any],
    inputs: Mapping[str, Any] | Command[Any] | None,
    config: RunnableConfig,
    options: StreamOptions,
) -> AsyncGenerator[Any, None]:
    """The run's chunks; with ``options.on_graph_event``, read from ``astream_events`` (the
    root run's ``on_chain_stream`` events carry them) and every other event handed to it.

    Each stream is closed (awaited) as soon as the run stops early (a receiver raised): left to
    the garbage collector, LangGraph's loop would be closed after ``asyncio.run`` cancels every
    task, the writes of the tasks that had finished among them, which a resume would run again.
    """
    arguments = _stream_arguments(options)
    if options.on_graph_event is None:
        stream = app.astream(inputs, config, **arguments)
        async with aclosing(cast(AsyncGenerator[Any, None], stream)) as chunks:
            async for chunk in chunks:
                yield chunk
        return
    root = None
    events = app.astream_events(inputs, config, version="v2", **arguments)
    async with aclosing(cast(AsyncGenerator[Any, None], events)):
        async for event in events:
            root = root or event["run_id"]  # the first event is the root run's start
            if event["event"] == "on_chain_stream" and event["run_id"] == root:
                yield event["data"]["chunk"]
            else:
                options.on_graph_event(event)
